package handlers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"rmqconsole/topics"
)

// Each topic's figures say how old they are, or that they are unknown and why, never 0;
// sorted by them, a topic without figures comes last and the page says so.
func TestTopicListSaysHowOldItsFiguresAre(t *testing.T) {
	f := sampleTopics()
	at := time.Now().Add(-12 * time.Second)
	f.list.Topics[0].FiguresAt, f.list.Topics[0].StatsFrom = &at, 2 // orders
	p := &f.list.Topics[1]                                          // payments: never read
	p.Messages, p.PutTPS, p.StatsFrom, p.FiguresUnknown = 0, nil, 0, topics.FiguresNotReadYet
	r := topicsRouter(f)

	doc := msgDoc(t, msgGet(t, r, "/topics?sort=messages&desc=1"))
	rows := doc.Find(`[data-testid="topics-table"] tbody tr`)
	if first, _ := rows.First().Attr("data-topic"); first != "orders" {
		t.Errorf("first by messages: %s, want orders (payments has no figures and sorts last)", first)
	}
	orders := doc.Find(`tr[data-topic="orders"]`)
	if got := orders.Find(`[data-testid="topic-figures-age"]`).Text(); !strings.HasSuffix(got, " s ago") {
		t.Errorf("orders' figures age %q, want seconds ago", got)
	}
	pay := doc.Find(`tr[data-topic="payments"]`)
	if got := pay.Find(`[data-testid="topic-messages-count"]`).Text(); got != "unknown" {
		t.Errorf("payments' stored messages %q, want unknown", got)
	}
	if got := pay.Find(`[data-testid="topic-figures-unknown"]`).Text(); got != "not read yet" {
		t.Errorf("payments' figures %q, want not read yet", got)
	}
	if got := doc.Find(`[data-testid="topics-sort-note"]`).Text(); !strings.Contains(got, "1 topic has no figures yet and sorts last") {
		t.Errorf("sort note %q", got)
	}

	var api TopicsJSON
	if err := json.Unmarshal(msgGet(t, r, "/api/v1/topics?sort=messages&desc=1").Body.Bytes(), &api); err != nil {
		t.Fatal(err)
	}
	if len(api.Topics) != 2 || api.FiguresUnknown != 1 || api.Topics[0].FiguresAgeSeconds == nil || *api.Topics[0].FiguresAgeSeconds < 11 ||
		api.Topics[1].FiguresUnknown != topics.FiguresNotReadYet {
		t.Errorf("API: %+v", api)
	}
}
