package store

import (
	"context"
	"testing"
	"time"
)

// A console from before a migration that widened the metrics alert rules may watch,
// with a rule firing, upgrades in place: the rule and its state are kept, the old schema
// refused a rule on a metric it did not know, and after the upgrade rules on every new
// metric (with their patterns, and a state each) can be stored.
func TestUpgradeKeepsAlertRulesAndTakesTheNewMetrics(t *testing.T) {
	type metric struct{ name, pattern string }
	for _, c := range []struct {
		name string
		from int64
		// kept is the rule stored before the upgrade, firing.
		kept metric
		// added are the metrics the upgrade lets rules watch; the first is refused before.
		added []metric
	}{
		{"finding rules (schema 12)", 12, metric{"lag", "orders-*"}, []metric{{"consumerStuck", "orders-*"}}},
		{"the later finding rules (schema 14)", 14, metric{"consumerStuck", "orders-*"},
			[]metric{{"messagesLost", "orders-*"}, {"subscriptionDiffers", "orders-*"}, {"rebalanceChurn", "orders-*"}}},
		{"retry and dead-letter rules (schema 15)", 15, metric{"messagesLost", "orders-*"},
			[]metric{{"retryStorm", "orders-*"}, {"deadLettersArriving", "orders-*"}}},
		// A broker rule keeps its broker pattern in the rule's pattern; a NameServer rule
		// has none, and its states are named by a NameServer.
		{"broker and NameServer rules (schema 17)", 17, metric{"retryStorm", "orders-*"},
			[]metric{{"brokerDiskFull", "broker-*"}, {"brokerFlowControl", "broker-a"}, {"slaveBehind", "*"}, {"nameServersDisagree", ""}, {"orderlyBlocked", "orders-*"}}},
		// Schema 19 rebuilt the check schema 18 had widened: a broker rule survives it.
		{"orderly rules (schema 18)", 18, metric{"brokerDiskFull", "broker-*"}, []metric{{"orderlyBlocked", "orders-*"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachDB(t, func(t *testing.T, db testDB) {
				ctx := context.Background()
				now := time.UnixMilli(1_700_000_000_000).UTC()
				audit := func() *AuditEntry {
					return &AuditEntry{Actor: "alice", Mode: "alert-rule-create", Status: AuditApplied}
				}
				old := openAtVersion(t, db, c.from)
				r := &AlertRule{Name: "kept", GroupPattern: c.kept.pattern, Metric: c.kept.name, Threshold: 100,
					WebhookURL: "http://127.0.0.1:9/hook", Format: "json", CreatedAt: now}
				if err := old.CreateAlertRule(ctx, r, audit()); err != nil {
					t.Fatal(err)
				}
				v := int64(150)
				if err := old.SaveAlertStates(ctx, []AlertState{{RuleID: r.ID, Group: "orders-a", State: "firing", Since: now, FiredAt: now, Value: &v}}, nil); err != nil {
					t.Fatal(err)
				}
				refused := &AlertRule{Name: "new", GroupPattern: c.added[0].pattern, Metric: c.added[0].name, WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
				if err := old.CreateAlertRule(ctx, refused, audit()); err == nil {
					t.Fatalf("schema %d stored a rule on %s", c.from, c.added[0].name)
				}
				old.Close()
				s := db.open(t)
				rules, err := s.AlertRules(ctx)
				if err != nil || len(rules) != 1 || rules[0].Name != "kept" || rules[0].Metric != c.kept.name {
					t.Fatalf("rules after the upgrade: %+v, %v", rules, err)
				}
				states, err := s.AlertStates(ctx)
				if err != nil || len(states) != 1 || states[0].State != "firing" || states[0].RuleID != r.ID {
					t.Fatalf("states after the upgrade: %+v, %v", states, err)
				}
				for _, m := range c.added {
					rule := &AlertRule{Name: m.name, GroupPattern: m.pattern, Metric: m.name, WebhookURL: r.WebhookURL, Format: "json", CreatedAt: now}
					if err := s.CreateAlertRule(ctx, rule, audit()); err != nil {
						t.Errorf("a rule on %s: %v", m.name, err)
						continue
					}
					if err := s.SaveAlertStates(ctx, []AlertState{{RuleID: rule.ID, Group: "10.0.0.1:9876", State: "pending", Since: now}}, nil); err != nil {
						t.Errorf("a state of the rule on %s: %v", m.name, err)
					}
				}
			})
		})
	}
}
