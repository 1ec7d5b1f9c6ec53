package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"rmqconsole/fault"
)

// Two clusters in one database: the same group name is two groups — each may have its
// reset pending, each has its own rebalances, lag history and alert rules — the audit
// filter tells them apart, entries written before clusters had names read as the
// default cluster's, and the hash chain verifies across old and new entries.
func TestClustersShareTheDatabaseApart(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.open(t)
		// An entry and rows written before clusters had names.
		finishApplied(t, s.Audit(), beginPending(t, s.Audit(), "orders-cg"))
		if err := s.AddRebalanceEvents(ctx, []RebalanceEvent{{Group: "orders-cg", At: time.Now(), Kind: "joined", ClientID: "old"}}); err != nil {
			t.Fatal(err)
		}

		s.SetDefaultCluster("prod")
		if err := s.ClaimUnnamedRows(ctx); err != nil {
			t.Fatal(err)
		}
		prod, test := s.ForCluster("prod"), s.ForCluster("test")

		p := beginPending(t, prod.Audit(), "orders-cg")
		tp := beginPending(t, test.Audit(), "orders-cg") // another cluster's group of that name
		if err := prod.Audit().Begin(ctx, pendingEntry("orders-cg")); !fault.Is(err, fault.Conflict) {
			t.Fatalf("second pending reset of prod's orders-cg: %v, want busy", err)
		}
		if pend, err := test.Audit().Pending(ctx); err != nil || len(pend) != 1 || pend[0].ID != tp.ID || pend[0].ClusterName != "test" {
			t.Fatalf("test's pending entries: %+v, %v", pend, err)
		}
		finishApplied(t, prod.Audit(), p)
		finishApplied(t, test.Audit(), tp)

		for _, c := range []struct {
			cluster string
			want    int
		}{{"prod", 2}, {"test", 1}, {"", 3}} {
			es, _, err := s.Audit().List(ctx, AuditFilter{Cluster: c.cluster})
			if err != nil || len(es) != c.want {
				t.Errorf("audit of cluster %q: %d entries, want %d (%v)", c.cluster, len(es), c.want, err)
			}
		}
		if rep, err := s.Audit().Verify(ctx); err != nil || !rep.Intact || rep.Sealed != 3 {
			t.Fatalf("chain across entries with and without a cluster name: %+v, %v", rep, err)
		}
		// The cluster name is covered by the hash.
		if _, err := s.SQL().Exec(dropAuditGuards[db.dialect]); err != nil {
			t.Fatal(err)
		}
		if err := s.DB.Exec(`UPDATE audit_entries SET cluster_name = 'prod' WHERE id = ?`, tp.ID).Error; err != nil {
			t.Fatal(err)
		}
		if rep, _ := s.Audit().Verify(ctx); rep.Intact {
			t.Error("moving an entry to another cluster went unnoticed")
		}

		if err := test.AddRebalanceEvents(ctx, []RebalanceEvent{{Group: "orders-cg", At: time.Now(), Kind: "left", ClientID: "t"}}); err != nil {
			t.Fatal(err)
		}
		if err := prod.AddRebalanceEvents(ctx, []RebalanceEvent{{Group: "orders-cg", At: time.Now(), Kind: "moved", ClientID: "p", Topic: "T"}}); err != nil {
			t.Fatal(err)
		}
		if ev, _ := prod.RebalanceEvents(ctx, "orders-cg", 10, time.Time{}); len(ev) != 2 || ev[0].ClientID != "p" || ev[1].ClientID != "old" {
			t.Errorf("prod's rebalances: %+v", ev)
		}
		if ev, _ := test.RebalanceEvents(ctx, "orders-cg", 10, time.Time{}); len(ev) != 1 || ev[0].ClientID != "t" {
			t.Errorf("test's rebalances: %+v", ev)
		}

		lag := int64(5)
		now := time.Now()
		if err := prod.AddLagSamples(ctx, []LagSample{{Group: "orders-cg", At: now, Lag: &lag}}); err != nil {
			t.Fatal(err)
		}
		lag2 := int64(9)
		if err := test.AddLagSamples(ctx, []LagSample{{Group: "orders-cg", At: now, Lag: &lag2}}); err != nil {
			t.Fatal(err)
		}
		if got, _ := test.LagSamples(ctx, "orders-cg", now.Add(-time.Minute), now.Add(time.Minute)); len(got) != 1 || *got[0].Lag != 9 {
			t.Errorf("test's lag history: %+v", got)
		}
		if got, _ := prod.LagSamples(ctx, "orders-cg", now.Add(-time.Minute), now.Add(time.Minute)); len(got) != 1 || *got[0].Lag != 5 {
			t.Errorf("prod's lag history: %+v", got)
		}
		if got, _ := prod.RecentLag(ctx, []string{"orders-cg"}, now.Add(-time.Minute)); len(got["orders-cg"]) != 1 || *got["orders-cg"][0].Lag != 5 {
			t.Errorf("prod's recent lag: %+v", got)
		}
		if days, _ := test.RebalanceDays(ctx, "orders-cg", now.Add(-24*time.Hour)); len(days) != 0 {
			t.Errorf("test's rebalance days count prod's moves: %+v", days)
		}

		rule := &AlertRule{Name: "r", GroupPattern: "*", Metric: "lag", Threshold: 1, WebhookURL: "http://x", Format: "json", CreatedAt: now}
		if err := test.CreateAlertRule(ctx, rule, &AuditEntry{Actor: "a", Status: AuditApplied, Mode: "alert-rule"}); err != nil {
			t.Fatal(err)
		}
		if rs, _ := prod.AlertRules(ctx); len(rs) != 0 {
			t.Errorf("prod sees test's alert rules: %+v", rs)
		}
		if _, err := prod.AlertRule(ctx, rule.ID); !errors.Is(err, ErrAlertRuleNotFound) {
			t.Errorf("prod reads test's rule %d: %v", rule.ID, err)
		}
		if rs, _ := test.AlertRules(ctx); len(rs) != 1 {
			t.Errorf("test's alert rules: %+v", rs)
		}

		// A preview made on test cannot be applied through prod.
		if err := test.SavePreview(ctx, "plan-1", []byte(`{}`), now, now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := prod.TakePreview(ctx, "plan-1"); !errors.Is(err, ErrPreviewNotFound) {
			t.Errorf("prod took test's preview: %v", err)
		}
		if _, err := test.TakePreview(ctx, "plan-1"); err != nil {
			t.Errorf("test's own preview: %v", err)
		}
	})
}
