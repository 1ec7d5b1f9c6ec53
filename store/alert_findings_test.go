package store

import (
	"context"
	"testing"
	"time"
)

// A console from before rules on diagnosis findings (schema 12) with a lag rule firing
// upgrades in place: the rule and its state are kept, and a rule on a finding can then
// be stored.
func TestUpgradeKeepsAlertRulesAndTakesFindingRules(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		now := time.UnixMilli(1_700_000_000_000).UTC()
		old := openAtVersion(t, db, 12)
		r := &AlertRule{Name: "orders behind", GroupPattern: "orders-*", Metric: "lag", Threshold: 100,
			WebhookURL: "http://127.0.0.1:9/hook", Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, r, &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}); err != nil {
			t.Fatal(err)
		}
		v := int64(150)
		if err := old.SaveAlertStates(ctx, []AlertState{{RuleID: r.ID, Group: "orders-a", State: "firing", Since: now, FiredAt: now, Value: &v}}, nil); err != nil {
			t.Fatal(err)
		}
		stuck := &AlertRule{Name: "stuck", GroupPattern: "orders-*", Metric: "consumerStuck", WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, stuck, &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}); err == nil {
			t.Fatal("schema 12 stored a rule on consumerStuck")
		}
		old.Close()
		s := db.open(t)
		rules, err := s.AlertRules(ctx)
		if err != nil || len(rules) != 1 || rules[0].Name != "orders behind" {
			t.Fatalf("rules after the upgrade: %+v, %v", rules, err)
		}
		states, err := s.AlertStates(ctx)
		if err != nil || len(states) != 1 || states[0].State != "firing" || states[0].RuleID != r.ID {
			t.Fatalf("states after the upgrade: %+v, %v", states, err)
		}
		stuck.ID = 0
		if err := s.CreateAlertRule(ctx, stuck, &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}); err != nil {
			t.Fatalf("a rule on consumerStuck: %v", err)
		}
	})
}

// A console from before rules on the later findings (schema 14) with a rule on a stuck
// consumer firing upgrades in place: the rule and its state are kept, and rules on lost
// messages, differing subscriptions and frequent rebalances can then be stored.
func TestUpgradeKeepsAlertRulesAndTakesTheLaterFindingRules(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		now := time.UnixMilli(1_700_000_000_000).UTC()
		old := openAtVersion(t, db, 14)
		audit := func() *AuditEntry {
			return &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}
		}
		r := &AlertRule{Name: "stuck", GroupPattern: "orders-*", Metric: "consumerStuck", WebhookURL: "http://127.0.0.1:9/hook", Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, r, audit()); err != nil {
			t.Fatal(err)
		}
		if err := old.SaveAlertStates(ctx, []AlertState{{RuleID: r.ID, Group: "orders-a", State: "firing", Since: now, FiredAt: now}}, nil); err != nil {
			t.Fatal(err)
		}
		lost := &AlertRule{Name: "lost", GroupPattern: "orders-*", Metric: "messagesLost", WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, lost, audit()); err == nil {
			t.Fatal("schema 14 stored a rule on messagesLost")
		}
		old.Close()
		s := db.open(t)
		rules, err := s.AlertRules(ctx)
		if err != nil || len(rules) != 1 || rules[0].Name != "stuck" {
			t.Fatalf("rules after the upgrade: %+v, %v", rules, err)
		}
		states, err := s.AlertStates(ctx)
		if err != nil || len(states) != 1 || states[0].State != "firing" || states[0].RuleID != r.ID {
			t.Fatalf("states after the upgrade: %+v, %v", states, err)
		}
		for _, m := range []string{"messagesLost", "subscriptionDiffers", "rebalanceChurn"} {
			rule := &AlertRule{Name: m, GroupPattern: "orders-*", Metric: m, WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
			if err := s.CreateAlertRule(ctx, rule, audit()); err != nil {
				t.Errorf("a rule on %s: %v", m, err)
			}
		}
	})
}

// A console from before rules on retry storms and dead letters (schema 15) with a rule
// on lost messages firing upgrades in place: the rule and its state are kept, and rules
// on retryStorm and deadLettersArriving can then be stored.
func TestUpgradeKeepsAlertRulesAndTakesRetryAndDeadLetterRules(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		now := time.UnixMilli(1_700_000_000_000).UTC()
		old := openAtVersion(t, db, 15)
		audit := func() *AuditEntry {
			return &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}
		}
		r := &AlertRule{Name: "lost", GroupPattern: "orders-*", Metric: "messagesLost", WebhookURL: "http://127.0.0.1:9/hook", Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, r, audit()); err != nil {
			t.Fatal(err)
		}
		if err := old.SaveAlertStates(ctx, []AlertState{{RuleID: r.ID, Group: "orders-a", State: "firing", Since: now, FiredAt: now}}, nil); err != nil {
			t.Fatal(err)
		}
		storm := &AlertRule{Name: "storm", GroupPattern: "orders-*", Metric: "retryStorm", WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, storm, audit()); err == nil {
			t.Fatal("schema 15 stored a rule on retryStorm")
		}
		old.Close()
		s := db.open(t)
		rules, err := s.AlertRules(ctx)
		if err != nil || len(rules) != 1 || rules[0].Name != "lost" {
			t.Fatalf("rules after the upgrade: %+v, %v", rules, err)
		}
		states, err := s.AlertStates(ctx)
		if err != nil || len(states) != 1 || states[0].State != "firing" || states[0].RuleID != r.ID {
			t.Fatalf("states after the upgrade: %+v, %v", states, err)
		}
		for _, m := range []string{"retryStorm", "deadLettersArriving"} {
			rule := &AlertRule{Name: m, GroupPattern: "orders-*", Metric: m, WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
			if err := s.CreateAlertRule(ctx, rule, audit()); err != nil {
				t.Errorf("a rule on %s: %v", m, err)
			}
		}
	})
}

// A console from before rules on blocked orderly queues (schema 17) with a rule firing
// upgrades in place: the rule and its state are kept, and a rule on orderlyBlocked can
// then be stored.
func TestUpgradeKeepsAlertRulesAndTakesOrderlyBlockedRules(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		now := time.UnixMilli(1_700_000_000_000).UTC()
		old := openAtVersion(t, db, 17)
		audit := func() *AuditEntry {
			return &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}
		}
		r := &AlertRule{Name: "storm", GroupPattern: "orders-*", Metric: "retryStorm", WebhookURL: "http://127.0.0.1:9/hook", Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, r, audit()); err != nil {
			t.Fatal(err)
		}
		if err := old.SaveAlertStates(ctx, []AlertState{{RuleID: r.ID, Group: "orders-a", State: "firing", Since: now, FiredAt: now}}, nil); err != nil {
			t.Fatal(err)
		}
		blocked := &AlertRule{Name: "blocked", GroupPattern: "orders-*", Metric: "orderlyBlocked", WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, blocked, audit()); err == nil {
			t.Fatal("schema 17 stored a rule on orderlyBlocked")
		}
		old.Close()
		s := db.open(t)
		rules, err := s.AlertRules(ctx)
		if err != nil || len(rules) != 1 || rules[0].Name != "storm" {
			t.Fatalf("rules after the upgrade: %+v, %v", rules, err)
		}
		states, err := s.AlertStates(ctx)
		if err != nil || len(states) != 1 || states[0].State != "firing" || states[0].RuleID != r.ID {
			t.Fatalf("states after the upgrade: %+v, %v", states, err)
		}
		blocked.ID = 0
		if err := s.CreateAlertRule(ctx, blocked, audit()); err != nil {
			t.Errorf("a rule on orderlyBlocked: %v", err)
		}
	})
}
