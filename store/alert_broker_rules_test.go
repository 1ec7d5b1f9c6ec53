package store

import (
	"context"
	"testing"
	"time"
)

// A database of schema 17 keeps its rules and their states through migration 18, which
// takes rules on the broker findings (their broker pattern in the rule's pattern) and
// on the NameServers (no pattern), with states named by a broker or a NameServer; 17
// refused them.
func TestUpgradeKeepsAlertRulesAndTakesBrokerAndNameServerRules(t *testing.T) {
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
		disk := &AlertRule{Name: "disk", GroupPattern: "broker-*", Metric: "brokerDiskFull", WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
		if err := old.CreateAlertRule(ctx, disk, audit()); err == nil {
			t.Fatal("schema 17 stored a rule on brokerDiskFull")
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
		for m, pattern := range map[string]string{"brokerDiskFull": "broker-*", "brokerFlowControl": "broker-a", "slaveBehind": "*", "nameServersDisagree": ""} {
			rule := &AlertRule{Name: m, GroupPattern: pattern, Metric: m, WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
			if err := s.CreateAlertRule(ctx, rule, audit()); err != nil {
				t.Errorf("a rule on %s: %v", m, err)
				continue
			}
			if err := s.SaveAlertStates(ctx, []AlertState{{RuleID: rule.ID, Group: "10.0.0.1:9876", State: "pending", Since: now}}, nil); err != nil {
				t.Errorf("a state of the rule on %s: %v", m, err)
			}
		}
	})
}
