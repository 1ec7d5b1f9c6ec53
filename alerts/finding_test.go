package alerts

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A rule on a finding of the diagnosis fires while the group has it (any threshold typed
// is ignored) and resolves at the first read without it, with sentences that name it.
func TestRuleOnAFindingFiresWhileTheGroupHasIt(t *testing.T) {
	st := open(t)
	rcv := newReceiver(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	svc := NewService(st, Options{Now: func() time.Time { return now }})
	in := FormInput("", "order-*", "", MetricStuck, "500", "", rcv.URL+"/hook", "")
	if _, err := svc.Create(t.Context(), Who{Actor: "olga"}, in); err != nil {
		t.Fatalf("a rule on consumerStuck with a threshold typed: %v", err)
	}
	client := &http.Client{Timeout: time.Second}
	read := func(found ...string) {
		t.Helper()
		if err := svc.Evaluate(t.Context(), now, []Observation{{Group: "order-a", Lag: lag(500), Findings: found}}); err != nil {
			t.Fatal(err)
		}
		svc.sendDue(t.Context(), client)
		now = now.Add(30 * time.Second)
	}
	read(MetricSlow)
	if n, _ := svc.Firing(t.Context()); n != 0 {
		t.Fatalf("a slow consumer fired a consumerStuck rule (%d firing)", n)
	}
	read(MetricStuck)
	if n, _ := svc.Firing(t.Context()); n != 1 {
		t.Fatalf("stuck found: %d firing, want 1", n)
	}
	read()
	if n, _ := svc.Firing(t.Context()); n != 0 {
		t.Fatalf("stuck gone: %d firing, want 0", n)
	}
	got := rcv.got()
	if len(got) != 2 || !strings.Contains(got[0], "[FIRING] consumer stuck: order-*: consumer group order-a: consumer stuck found since") ||
		!strings.Contains(got[1], "[RESOLVED]") {
		t.Fatalf("notifications %q", got)
	}
}

// Rules on the later findings (messages lost, subscriptions that differ, frequent
// rebalances) are taken, fire while the group has that finding and no other, and are
// named in the notification.
func TestRulesOnTheLaterFindingsFireWhileTheGroupHasThem(t *testing.T) {
	for _, metric := range []string{MetricLost, MetricSubscriptions, MetricChurn, MetricRetryStorm, MetricDeadLetters, MetricOrderly} {
		t.Run(metric, func(t *testing.T) {
			st := open(t)
			rcv := newReceiver(t)
			now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			svc := NewService(st, Options{Now: func() time.Time { return now }})
			if _, err := svc.Create(t.Context(), Who{Actor: "olga"}, FormInput("", "order-*", "", metric, "", "", rcv.URL+"/hook", "")); err != nil {
				t.Fatalf("a rule on %s: %v", metric, err)
			}
			client := &http.Client{Timeout: time.Second}
			read := func(found ...string) int {
				t.Helper()
				if err := svc.Evaluate(t.Context(), now, []Observation{{Group: "order-a", Lag: lag(5), Findings: found}}); err != nil {
					t.Fatal(err)
				}
				svc.sendDue(t.Context(), client)
				now = now.Add(30 * time.Second)
				n, _ := svc.Firing(t.Context())
				return n
			}
			if n := read(MetricStuck); n != 0 {
				t.Fatalf("another finding fired the %s rule (%d firing)", metric, n)
			}
			if n := read(metric); n != 1 {
				t.Fatalf("%s found: %d firing, want 1", metric, n)
			}
			if n := read(); n != 0 {
				t.Fatalf("%s gone: %d firing, want 0", metric, n)
			}
			if got := rcv.got(); len(got) != 2 || !strings.Contains(got[0], "[FIRING]") || !strings.Contains(got[0], "found since") {
				t.Fatalf("notifications %q", got)
			}
		})
	}
}
