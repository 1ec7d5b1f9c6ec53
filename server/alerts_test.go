package server

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"rmqconsole/alerts"
	"rmqconsole/store"
)

// /metrics says which rules are pending and which firing for which group, one series
// each (two rules of one name stay apart by id); a resolved or quiet rule has none. A
// database that cannot be read gives no series and counts the failure, never a failed
// scrape.
func TestAlertMetricsSayWhichRulesArePendingOrFiring(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := alerts.NewService(st, alerts.Options{})
	who := alerts.Who{Actor: "alice", Addr: "127.0.0.1"}
	rule := func(name, forDur string) int64 {
		r, err := svc.Create(ctx, who, alerts.RuleInput{Name: name, Group: "orders-*", Metric: alerts.MetricLag, Threshold: 10,
			For: forDur, WebhookURL: "http://127.0.0.1:9/hook"})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	now, soon := rule("orders backlog", ""), rule("orders backlog", "1h")
	lag := func(v int64) *int64 { return &v }
	if err := svc.Evaluate(ctx, time.Now(), []alerts.Observation{{Group: "orders-a", Lag: lag(50)}, {Group: "orders-b", Lag: lag(5)}}); err != nil {
		t.Fatal(err)
	}
	m := &alertMetrics{svc: svc, log: slog.New(slog.DiscardHandler)}
	want := fmt.Sprintf(`
# HELP rmqconsole_alert_state 1 for each alert rule and consumer group pending (over the threshold, not yet for long enough) or firing (notified); resolved ones are left out.
# TYPE rmqconsole_alert_state gauge
rmqconsole_alert_state{group="orders-a",rule="orders backlog",rule_id="%d",state="firing"} 1
rmqconsole_alert_state{group="orders-a",rule="orders backlog",rule_id="%d",state="pending"} 1
`, now, soon)
	if err := testutil.CollectAndCompare(m, strings.NewReader(want), "rmqconsole_alert_state"); err != nil {
		t.Error(err)
	}

	if err := svc.Evaluate(ctx, time.Now(), []alerts.Observation{{Group: "orders-a", Lag: lag(0)}}); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m, "rmqconsole_alert_state"); n != 0 {
		t.Errorf("%d series once the group caught up, want none", n)
	}

	st.Close()
	if err := testutil.CollectAndCompare(m, strings.NewReader(`
# HELP rmqconsole_alert_state_read_failures_total Scrapes that could not read the alert states from the database (they then show none).
# TYPE rmqconsole_alert_state_read_failures_total counter
rmqconsole_alert_state_read_failures_total 1
`), "rmqconsole_alert_state_read_failures_total", "rmqconsole_alert_state"); err != nil {
		t.Error(err)
	}
}
