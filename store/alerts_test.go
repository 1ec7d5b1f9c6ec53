package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A rule's states are replaced in place as it moves (pending → firing), its deliveries
// come due and record their outcome, and deleting the rule takes its states and keeps
// its deliveries; both the creation and the deletion are audited.
func TestAlertRuleStatesAndDeliveries(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		ctx := context.Background()
		now := time.UnixMilli(1_700_000_000_000).UTC()
		r := &AlertRule{Name: "orders behind", GroupPattern: "orders-*", Metric: "lag", Threshold: 100, For: time.Minute,
			WebhookURL: "http://127.0.0.1:9/hook", Format: "json", CreatedBy: "alice", CreatedAt: now}
		if err := s.CreateAlertRule(ctx, r, &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}); err != nil || r.ID == 0 {
			t.Fatalf("create rule: id %d, %v", r.ID, err)
		}
		v := int64(150)
		pending := AlertState{RuleID: r.ID, Group: "orders-a", State: "pending", Since: now, Value: &v}
		if err := s.SaveAlertStates(ctx, []AlertState{pending}, nil); err != nil {
			t.Fatal(err)
		}
		firing := pending
		firing.State, firing.FiredAt = "firing", now.Add(time.Minute)
		d := []AlertDelivery{{RuleID: r.ID, RuleName: r.Name, Group: "orders-a", Event: "firing", CreatedAt: now.Add(time.Minute),
			URL: r.WebhookURL, Format: "json", Body: "{}"}}
		if err := s.SaveAlertStates(ctx, []AlertState{firing}, d); err != nil || d[0].ID == 0 {
			t.Fatalf("save firing: id %d, %v", d[0].ID, err)
		}
		states, err := s.AlertStates(ctx)
		if err != nil || len(states) != 1 || states[0].State != "firing" || !states[0].FiredAt.Equal(now.Add(time.Minute)) || *states[0].Value != 150 {
			t.Fatalf("states: %+v, %v", states, err)
		}
		due, err := s.DueDeliveries(ctx, now.Add(2*time.Minute), 10)
		if err != nil || len(due) != 1 || due[0].ID != d[0].ID {
			t.Fatalf("due: %+v, %v", due, err)
		}
		due[0].Status, due[0].Attempts, due[0].ResponseCode = "sent", 1, 200
		if err := s.UpdateDelivery(ctx, due[0]); err != nil {
			t.Fatal(err)
		}
		if due, _ := s.DueDeliveries(ctx, now.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("a sent delivery is still due: %+v", due)
		}
		if err := s.DeleteAlertRule(ctx, r.ID, &AuditEntry{Actor: "alice", Mode: "alert-rule-delete", Status: AuditApplied}); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteAlertRule(ctx, r.ID, &AuditEntry{Actor: "alice", Status: AuditApplied}); !errors.Is(err, ErrAlertRuleNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if states, _ := s.AlertStates(ctx); len(states) != 0 {
			t.Fatalf("states outlived their rule: %+v", states)
		}
		if ds, err := s.AlertDeliveries(ctx, r.ID, 10); err != nil || len(ds) != 1 || ds[0].Status != "sent" {
			t.Fatalf("deliveries after the rule went: %+v, %v", ds, err)
		}
		if rep, err := s.Audit().Verify(ctx); err != nil || !rep.Intact || rep.Sealed != 2 {
			t.Fatalf("audit: %+v, %v", rep, err)
		}
	})
}
