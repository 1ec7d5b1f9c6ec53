package alerts

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"rmqconsole/fault"
)

// A rule on a broker finding targets brokers: a group pattern given with it is a mistake
// on the group field, and it needs a broker pattern; a rule on a group's lag or finding
// takes no broker pattern; a rule on the NameServers takes neither. What is kept is the
// broker pattern, in the rule's one pattern.
func TestRuleTargetsAreCheckedAgainstTheMetric(t *testing.T) {
	for _, c := range []struct {
		in     RuleInput
		fields []string
	}{
		{FormInput("", "order-*", "", MetricDiskFull, "", "", "http://x", ""), []string{"group", "broker"}},
		{FormInput("", "", "bad name!", MetricSlaveBehind, "", "", "http://x", ""), []string{"broker"}},
		{FormInput("", "order-*", "broker-*", MetricStuck, "", "", "http://x", ""), []string{"broker"}},
		{FormInput("", "order-*", "broker-a", MetricNameServers, "", "", "http://x", ""), []string{"group", "broker"}},
		{RuleInput{Broker: "broker-a", WebhookURL: "http://x"}, []string{"group", "broker"}}, // lag, the default metric
	} {
		_, err := c.in.Validate()
		var got []string
		for _, fe := range fault.All(err) {
			if fe.Code != fault.Invalid || !strings.HasSuffix(fe.Msg.String(), ".") {
				t.Errorf("%+v: %v is not a sentence about bad input", c.in, fe)
			}
			got = append(got, fe.Field)
		}
		if strings.Join(got, ",") != strings.Join(c.fields, ",") {
			t.Errorf("%s %q/%q: refused fields %v, want %v", c.in.Metric, c.in.Group, c.in.Broker, got, c.fields)
		}
	}
	r, err := FormInput("", "", " broker-* ", MetricFlowControl, "5", "", "http://x", "").Validate()
	if err != nil || r.GroupPattern != "broker-*" || r.Threshold != 0 || r.Name != "brokerFlowControl of broker-*" {
		t.Errorf("a broker rule: %+v %v", r, err)
	}
	r, err = FormInput("", "", "", MetricNameServers, "", "", "http://x", "").Validate()
	if err != nil || r.GroupPattern != "" {
		t.Errorf("a NameServer rule: %+v %v", r, err)
	}
}

// A rule on a broker's finding fires for each broker its pattern covers while the
// diagnosis finds it there, never for a consumer group of a matching name, and
// resolves at the first read that no longer finds it; its notification names the
// broker. A NameServer rule fires for the NameServer that disagrees. Group rules are
// untouched by broker findings.
func TestBrokerAndNameServerRulesFireFromTheirFindings(t *testing.T) {
	st := open(t)
	rcv := newReceiver(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	svc := NewService(st, Options{Now: func() time.Time { return now }})
	for _, in := range []RuleInput{
		FormInput("", "", "broker-*", MetricDiskFull, "", "", rcv.URL+"/hook", ""),
		FormInput("", "", "", MetricNameServers, "", "", rcv.URL+"/hook", ""),
		FormInput("", "*", "", MetricStuck, "", "", rcv.URL+"/hook", ""),
	} {
		if _, err := svc.Create(t.Context(), Who{Actor: "olga"}, in); err != nil {
			t.Fatal(err)
		}
	}
	client := &http.Client{Timeout: time.Second}
	read := func(obs ...Observation) int {
		t.Helper()
		if err := svc.Evaluate(t.Context(), now, obs); err != nil {
			t.Fatal(err)
		}
		svc.sendDue(t.Context(), client)
		now = now.Add(30 * time.Second)
		n, _ := svc.Firing(t.Context())
		return n
	}
	// A group named like a broker, with the disk finding's kind: no broker rule fires.
	if n := read(Observation{Group: "broker-a", Findings: []string{MetricDiskFull}}); n != 0 {
		t.Fatalf("a group's observation fired %d rules", n)
	}
	if n := read(Observation{Target: TargetBroker, Group: "other", Findings: []string{MetricDiskFull}},
		Observation{Target: TargetBroker, Group: "broker-a", Findings: []string{MetricFlowControl}}); n != 0 {
		t.Fatalf("a broker outside the pattern, or another finding: %d firing", n)
	}
	if n := read(Observation{Target: TargetBroker, Group: "broker-a", Findings: []string{MetricDiskFull}},
		Observation{Target: TargetNameServer, Group: "10.0.0.9:9876", Findings: []string{MetricNameServers}}); n != 2 {
		t.Fatalf("broker-a's disk full and a NameServer disagreeing: %d firing, want 2", n)
	}
	if n := read(Observation{Target: TargetBroker, Group: "broker-a"}, Observation{Target: TargetNameServer, Group: "10.0.0.9:9876"}); n != 0 { // read, nothing found any more: both resolve
		t.Fatalf("nothing found: %d firing, want 0", n)
	}
	got := rcv.got()
	if len(got) != 4 {
		t.Fatalf("notifications %q, want two firing and two resolved", got)
	}
	var firing []map[string]any
	for _, b := range got[:2] {
		var m map[string]any
		if err := json.Unmarshal([]byte(b), &m); err != nil {
			t.Fatal(err)
		}
		firing = append(firing, m)
	}
	byTarget := map[string]map[string]any{}
	for _, m := range firing {
		byTarget[m["target"].(string)] = m
	}
	if b := byTarget[TargetBroker]; b == nil || b["broker"] != "broker-a" || !strings.Contains(b["summary"].(string), "broker broker-a: broker disk nearly full found since") ||
		b["rule"].(map[string]any)["broker"] != "broker-*" {
		t.Errorf("broker notification %v", b)
	}
	if b := byTarget[TargetNameServer]; b == nil || b["nameServer"] != "10.0.0.9:9876" || !strings.Contains(b["summary"].(string), "NameServer 10.0.0.9:9876: NameServers disagree found since") {
		t.Errorf("NameServer notification %v", b)
	}
	if !strings.Contains(got[2]+got[3], "[RESOLVED]") {
		t.Errorf("resolved notifications %q", got[2:])
	}
	rules, _ := svc.ForGroup(t.Context(), "broker-a")
	if len(rules) != 1 || rules[0].Metric != MetricStuck {
		t.Errorf("rules shown on group broker-a's page: %+v, want the group rule alone", rules)
	}
}

// A broker whose rule fires and whose read then fails (its runtime or its replication
// did not answer) is unknown, not healthy: the rule stays firing and nobody is told it
// resolved; a broker not observed at all keeps its state too. It resolves at the first
// read that reads it and finds nothing.
func TestBrokerRuleStaysFiringWhileTheBrokerIsUnread(t *testing.T) {
	st := open(t)
	rcv := newReceiver(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	svc := NewService(st, Options{Now: func() time.Time { return now }})
	if _, err := svc.Create(t.Context(), Who{Actor: "olga"}, FormInput("", "", "broker-*", MetricDiskFull, "", "", rcv.URL+"/hook", "")); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Second}
	read := func(obs ...Observation) int {
		t.Helper()
		if err := svc.Evaluate(t.Context(), now, obs); err != nil {
			t.Fatal(err)
		}
		svc.sendDue(t.Context(), client)
		now = now.Add(30 * time.Second)
		n, _ := svc.Firing(t.Context())
		return n
	}
	if n := read(Observation{Target: TargetBroker, Group: "broker-a", Findings: []string{MetricDiskFull}}); n != 1 {
		t.Fatalf("broker-a's disk full: %d firing, want 1", n)
	}
	if n := read(Observation{Target: TargetBroker, Group: "broker-a", Unread: true}); n != 1 {
		t.Errorf("broker-a unread: %d firing, want it still firing", n)
	}
	if n := read(); n != 1 {
		t.Errorf("broker-a not observed: %d firing, want it still firing", n)
	}
	if got := rcv.got(); len(got) != 1 || strings.Contains(got[0], "[RESOLVED]") {
		t.Fatalf("notifications while broker-a was unread %q, want the firing one alone", got)
	}
	if n := read(Observation{Target: TargetBroker, Group: "broker-a"}); n != 0 {
		t.Errorf("broker-a read, nothing found: %d firing, want 0", n)
	}
	if got := rcv.got(); len(got) != 2 || !strings.Contains(got[1], "[RESOLVED]") {
		t.Errorf("notifications %q, want firing then resolved", got)
	}
}
