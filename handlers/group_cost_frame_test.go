package handlers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/groups"
	"rmqconsole/store"
)

// When a live tick finds rebalances recorded (by the watcher or the collector's sweep),
// its frame redraws the timeline, the recent rebalances and the daily sums together, from
// what the store holds: the page never shows moves beside "no queue moved".
func TestLiveFrameRedrawsTheDailySumsWithTheRebalances(t *testing.T) {
	at := time.Now().UTC()
	q := 1
	var recent []groups.Event
	for i := range 6 {
		recent = append(recent, groups.Event{At: at.Add(-time.Duration(i) * time.Second), Kind: groups.KindMoved, ClientID: "c2",
			Topic: "T", BrokerName: "broker-a", QueueID: &q, From: "c1", To: "c2"})
	}
	days := []store.RebalanceDay{{Day: at.Format("2006-01-02"), Moves: 6}}
	u := &groups.Update{Detail: sampleDetail(), History: &groups.History{}, Reloaded: true, Recent: recent, Days: days}
	f, err := GroupFrames{}.Render(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	d, err := goquery.NewDocumentFromReader(strings.NewReader(string(f[0])))
	if err != nil {
		t.Fatal(err)
	}
	if n := d.Find(`[data-testid="rebalances-table"] tbody tr`).Length(); n != 1 {
		t.Errorf("%d recent rebalances in the frame, want 1", n)
	}
	if got := d.Find(`#rebalance-days-block [data-testid="rebalance-days"] tbody tr td`).Eq(1).Text(); got != "6" {
		t.Errorf("the frame's daily sums say %q moves, want 6 beside the rebalance of 6 moves:\n%s", got, f[0])
	}
	if n := d.Find(`[data-testid="timeline-event"]`).Length(); n != 6 {
		t.Errorf("%d timeline events redrawn, want the 6 stored", n)
	}
}
