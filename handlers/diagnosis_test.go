package handlers

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/brokers"
	"rmqconsole/diagnosis"
	"rmqconsole/i18n"
)

// findingsOf answers the same findings for the overview and every group.
type findingsOf []diagnosis.Finding

func (f findingsOf) Findings() ([]diagnosis.Finding, time.Time) {
	return f, time.Unix(1_700_000_000, 0)
}
func (f findingsOf) ForGroup(string) ([]diagnosis.Finding, time.Time) {
	return f, time.Unix(1_700_000_000, 0)
}
func (f findingsOf) ForBroker(string) ([]diagnosis.Finding, time.Time) {
	return f, time.Unix(1_700_000_000, 0)
}
func (f findingsOf) Unread() []diagnosis.Unread          { return nil }
func (f findingsOf) UnreadFor(string) []diagnosis.Unread { return nil }

// partlyRead has findings and sources the last read could not read.
type partlyRead struct {
	findingsOf
	unread []diagnosis.Unread
}

func (p partlyRead) Unread() []diagnosis.Unread { return p.unread }
func (p partlyRead) UnreadFor(g string) []diagnosis.Unread {
	var out []diagnosis.Unread
	for _, u := range p.unread {
		if u.What != diagnosis.UnreadNameServer {
			out = append(out, u)
		}
	}
	return out
}

// Every kind of finding, its severity and the page its action opens are said in words of
// both languages on the overview and the group page, never as a catalogue key.
func TestEveryKindOfFindingIsSaidInBothLanguages(t *testing.T) {
	var fs findingsOf
	for _, kind := range diagnosis.Kinds {
		for _, action := range []string{"group", "reset", "client", "timeline", "deadLetters", "broker", "overview"} {
			fs = append(fs, diagnosis.Finding{Kind: kind, Severity: diagnosis.Warning, Group: "g", Subject: "g",
				Evidence: i18n.M("diagnosis.evidence.lost", "Count", 1, "QueueCount", 1, "Queues", "t/b/0"), Action: "/groups/g", ActionKind: action})
		}
	}
	c := contextWith(Rights{})
	for _, lang := range []string{"en", "zh-CN"} {
		l := i18n.Match(lang)
		overview, group := overviewDiagnosisVM(c, l, fs), groupDiagnosisVM(c, l, fs, "g")
		for _, r := range append(overview.Rows, group.Rows...) {
			for _, s := range []string{r.KindLabel, r.SeverityLabel, r.ActionLabel, r.Evidence} {
				if s == "" || strings.HasPrefix(s, "diagnosis.") {
					t.Errorf("%s: finding %s with action %s says %q", lang, r.Kind, r.ActionLabel, s)
				}
			}
		}
	}
}

// What the last read could not read is a line of each kind, in both languages, with its
// cause, never a catalogue key.
func TestEveryUnreadSourceIsSaidInBothLanguages(t *testing.T) {
	var us []diagnosis.Unread
	for _, what := range []string{diagnosis.UnreadDeadLetters, diagnosis.UnreadRebalances, diagnosis.UnreadBrokers,
		diagnosis.UnreadBroker, diagnosis.UnreadReplication, diagnosis.UnreadNameServer, diagnosis.UnreadLocks} {
		us = append(us, diagnosis.Unread{What: what, Subject: "subject-x", Cause: "cause-y"})
	}
	for _, lang := range []string{"en", "zh-CN"} {
		vm := overviewDiagnosisVM(contextWith(Rights{}), i18n.Match(lang), partlyRead{unread: us})
		if len(vm.Unread) != len(us) {
			t.Fatalf("%s: %d lines, want %d", lang, len(vm.Unread), len(us))
		}
		for i, line := range vm.Unread {
			if strings.Contains(line, "diagnosis.") || !strings.Contains(line, "cause-y") ||
				(us[i].What != diagnosis.UnreadDeadLetters && us[i].What != diagnosis.UnreadRebalances && us[i].What != diagnosis.UnreadBrokers && !strings.Contains(line, "subject-x")) {
				t.Errorf("%s: %s said %q", lang, us[i].What, line)
			}
		}
	}
}

// What the last read could not read is a muted line on the overview (with or without
// findings, never hidden), on the group page (what the group's findings need), and a
// field of the API's answer beside the findings, said in the request's language.
func TestWhatTheLastReadCouldNotReadIsShownAndAnswered(t *testing.T) {
	unread := []diagnosis.Unread{
		{What: diagnosis.UnreadRebalances, Cause: "sql: database is closed"},
		{What: diagnosis.UnreadNameServer, Subject: "ns2:9876", Cause: "connection refused"},
	}
	stuck := diagnosis.Finding{Kind: diagnosis.KindStuck, Severity: diagnosis.Critical, Subject: "orders", Group: "orders",
		Evidence: i18n.M("diagnosis.evidence.lost", "Count", 1, "QueueCount", 1, "Queues", "t/b/0"), Action: "/groups/orders", ActionKind: "group"}
	overview := func(e Findings) *goquery.Document {
		r := newEngine()
		r.GET("/", (&Home{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Diagnosis: e,
			Overview: func(context.Context) (*brokers.Overview, error) { return &brokers.Overview{}, nil }}).Show)
		return msgDoc(t, msgGet(t, r, "/"))
	}
	page := overview(partlyRead{unread: unread})
	if s := page.Find(`[data-testid="overview-diagnosis-unread"] [data-testid="diagnosis-unread"]`).Text(); !strings.Contains(s, "Could not read the rebalance counts from the store") ||
		!strings.Contains(s, "sql: database is closed") || !strings.Contains(s, "NameServer ns2:9876") {
		t.Errorf("overview without findings says %q", s)
	}
	page = overview(partlyRead{findingsOf: findingsOf{stuck}, unread: unread})
	if s := page.Find(`[data-testid="overview-diagnosis"] [data-testid="diagnosis-unread"] li`); s.Length() != 2 {
		t.Errorf("overview with findings: %d unread lines, want 2", s.Length())
	}
	if page.Find(`[data-testid="overview-diagnosis-unread"]`).Length() != 0 {
		t.Errorf("the lines are said twice")
	}

	h := &Diagnosis{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Engine: partlyRead{findingsOf: findingsOf{stuck}, unread: unread}}
	r := newEngine()
	r.GET("/api/v1/diagnosis", h.API)
	r.GET("/api/v1/groups/:group/diagnosis", h.GroupAPI)
	var body struct {
		Findings []struct{ Kind string }
		Unread   []struct{ What, Subject, Cause, Text string }
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/diagnosis", nil)
	r.ServeHTTP(rec, req.WithContext(i18n.With(req.Context(), i18n.Match("zh-CN"))))
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Findings) != 1 || len(body.Unread) != 2 || body.Unread[1].What != "nameServer" || body.Unread[1].Subject != "ns2:9876" ||
		body.Unread[1].Cause != "connection refused" || !strings.Contains(body.Unread[1].Text, "无法读取") {
		t.Errorf("answer %s", rec.Body.String())
	}
	body.Unread = nil
	rec = msgGet(t, r, "/api/v1/groups/orders/diagnosis")
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Unread) != 1 || body.Unread[0].What != "rebalanceCounts" {
		t.Errorf("group answer %s: want the rebalance counts alone", rec.Body.String())
	}
	h.Engine = findingsOf{stuck}
	if rec = msgGet(t, r, "/api/v1/diagnosis"); strings.Contains(rec.Body.String(), "unread") {
		t.Errorf("answer %s: no unread field when everything was read", rec.Body.String())
	}
}

// A broker's page says which of that broker's own reads failed (a process's runtime, its
// master's replication status) and a failed broker list, not another broker's or a
// group's.
func TestTheBrokerPageSaysItsOwnUnreadReads(t *testing.T) {
	e := partlyRead{unread: []diagnosis.Unread{
		{What: diagnosis.UnreadBroker, Subject: "broker-a (10.0.0.2:10911)", Broker: "broker-a", Cause: "timeout-a"},
		{What: diagnosis.UnreadReplication, Subject: "broker-b (10.0.0.3:10911)", Broker: "broker-b", Cause: "timeout-b"},
		{What: diagnosis.UnreadLocks, Subject: "broker-a", Cause: "timeout-g"},
	}}
	vm := brokerDiagnosisVM(i18n.Match("en"), e, "broker-a")
	if len(vm.Unread) != 1 || !strings.Contains(vm.Unread[0], "the runtime of broker broker-a (10.0.0.2:10911)") || !strings.Contains(vm.Unread[0], "timeout-a") {
		t.Errorf("broker-a's page says unread %q, want its runtime alone", vm.Unread)
	}
}
