package handlers

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// orderlyDetail is an orderly group whose queue 1 is still locked by a client that left.
func orderlyDetail() *groups.Detail {
	d := sampleDetail()
	d.Group, d.ConsumeMode, d.LockExpiryMs = "ordered", groups.ModeOrderly, 60000
	d.Clients[0].ConsumeMode = groups.ModeOrderly
	warning := plain("Queue 0 of T on broker-b is blocked: locked by a client that left 40 s ago (10.0.0.6@gone); the lock expires after 60 s, in about 20 s.")
	d.Queues[0].Lock = &groups.QueueLock{Holder: "10.0.0.5@c1", Locked: true, HolderOnline: true, LastLockTimestamp: 1_700_000_000_000, LockedSince: 1_699_999_990_000}
	d.Queues[1].Lock = &groups.QueueLock{Holder: "10.0.0.6@gone", LastLockTimestamp: 1_699_999_960_000, Blocked: true, Warning: warning}
	d.Blocked = []i18n.Text{warning}
	return d
}

func TestOrderlyGroupPageShowsLocksBlockedQueuesAndTheCostOfRebalances(t *testing.T) {
	r := newGroupRouter(t, true)
	r.fg.detail["ordered"] = orderlyDetail()
	q := 0
	dup := int64(12)
	hist := &fakeHistory{events: []store.RebalanceEvent{
		{Group: "ordered", At: time.Now().Add(-time.Minute), Kind: "locked", Topic: "T", BrokerName: "broker-a", QueueID: &q, From: "10.0.0.6@gone", To: "10.0.0.5@c1", UnlockedMs: 61000},
		{Group: "ordered", At: time.Now().Add(-time.Minute - 10*time.Second), Kind: "moved", Topic: "T", BrokerName: "broker-a", QueueID: &q, From: "10.0.0.6@gone", To: "10.0.0.5@c1", UnownedMs: 1500, DuplicatesAtRisk: &dup},
	}}
	show := &GroupShow{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Groups: r.fg, Events: hist}
	r.GET("/o/:group", show.Show)
	r.GET("/o/:group/rebalances", (&GroupRebalances{Env: show.Env, Events: hist}).API)

	rec := r.get(t, "/o/ordered")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	page := doc(t, rec)
	if m := page.Find(`[data-testid="group-mode"]`).Text(); m != "orderly" {
		t.Errorf("group mode %q, want orderly", m)
	}
	if m := strings.TrimSpace(page.Find(`[data-testid="client-mode"]`).Text()); m != "orderly" {
		t.Errorf("client listener %q, want orderly", m)
	}
	if href, _ := page.Find(`[data-testid="client-link"]`).Attr("href"); href != "/groups/ordered/clients/10.0.0.5@c1" {
		t.Errorf("client link %q", href)
	}
	locks := page.Find(`[data-testid="queue-lock"]`)
	if locks.Length() != 2 {
		t.Fatalf("%d lock cells, want 2", locks.Length())
	}
	if h, _ := locks.Eq(0).Attr("data-holder"); h != "10.0.0.5@c1" || !strings.Contains(locks.Eq(0).Text(), "locked") || !strings.Contains(locks.Eq(0).Text(), "since") {
		t.Errorf("queue 0 lock %q (holder %q): want locked by c1, with since", locks.Eq(0).Text(), h)
	}
	if b, _ := locks.Eq(1).Attr("data-blocked"); b != "true" || !strings.Contains(locks.Eq(1).Text(), "which left") {
		t.Errorf("queue 1 lock %q blocked=%s: want still locked by the client that left, blocked", locks.Eq(1).Text(), b)
	}
	if banner := page.Find(`[data-testid="queue-blocked"]`).Text(); !strings.Contains(banner, "locked by a client that left 40 s ago") {
		t.Errorf("blocked banner %q", banner)
	}
	tl := page.Find(`[data-testid="timeline-event"]`).First().Text()
	if !strings.Contains(tl, "handed over from 10.0.0.6@gone to 10.0.0.5@c1 after 1m1s without a lock holder") {
		t.Errorf("timeline %q: want the lock handover", tl)
	}
	if got := page.Find(`[data-testid="rebalance-duplicates"]`).First().Text(); got != "≤ 12" {
		t.Errorf("rebalance duplicates %q, want ≤ 12", got)
	}
	if got := page.Find(`[data-testid="day-duplicates"]`).First().Text(); got != "≤ 12" {
		t.Errorf("day duplicates %q, want ≤ 12", got)
	}
	if !strings.Contains(page.Find(`[data-testid="duplicates-note"]`).Text(), "upper bound") {
		t.Error("the page does not say the figure is an upper bound")
	}

	rec = r.get(t, "/o/ordered/rebalances")
	var out struct {
		Events []struct {
			Kind             string `json:"kind"`
			DuplicatesAtRisk *int64 `json:"duplicatesAtRisk"`
			UnlockedMs       int64  `json:"unlockedMs"`
		} `json:"events"`
		Rebalances []struct {
			Moves            int   `json:"moves"`
			LockHandovers    int   `json:"lockHandovers"`
			DuplicatesAtRisk int64 `json:"duplicatesAtRisk"`
		} `json:"rebalances"`
		Days []struct {
			Day              string `json:"day"`
			Moves            int64  `json:"moves"`
			DuplicatesAtRisk int64  `json:"duplicatesAtRisk"`
		} `json:"days"`
		Note string `json:"duplicatesNote"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Events) != 2 || out.Events[0].Kind != "locked" || out.Events[0].UnlockedMs != 61000 || out.Events[1].DuplicatesAtRisk == nil || *out.Events[1].DuplicatesAtRisk != 12 {
		t.Errorf("events %s", rec.Body.String())
	}
	if len(out.Rebalances) != 1 || out.Rebalances[0].Moves != 1 || out.Rebalances[0].LockHandovers != 1 || out.Rebalances[0].DuplicatesAtRisk != 12 {
		t.Errorf("rebalances %+v: want one, of one move and one handover, 12 at risk", out.Rebalances)
	}
	if len(out.Days) != 1 || out.Days[0].Moves != 1 || out.Days[0].DuplicatesAtRisk != 12 || !strings.Contains(out.Note, "upper bound") {
		t.Errorf("days %+v note %q", out.Days, out.Note)
	}
}

func TestGroupListSaysWhichGroupsConsumeOrderly(t *testing.T) {
	r := newGroupRouter(t, true)
	r.fg.list.Groups[0].ConsumeMode = groups.ModeOrderly
	page := doc(t, r.get(t, "/groups"))
	if m := page.Find(`tr[data-group="orders"] [data-testid="group-mode"]`).Text(); m != "orderly" {
		t.Errorf("orders' mode %q, want orderly", m)
	}
	if n := page.Find(`tr[data-group="billing"] [data-testid="group-mode"]`).Length(); n != 0 {
		t.Error("an offline group shows a mode")
	}
	var out struct {
		Groups []struct {
			Group       string `json:"group"`
			ConsumeMode string `json:"consumeMode"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(r.get(t, "/api/v1/groups").Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, g := range out.Groups {
		if want := map[string]string{"orders": "orderly"}[g.Group]; g.ConsumeMode != want {
			t.Errorf("API: %s consumeMode %q, want %q", g.Group, g.ConsumeMode, want)
		}
	}
}
