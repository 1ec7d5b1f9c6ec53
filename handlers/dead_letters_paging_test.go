package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/deadletters"
)

type fakeDLQOverview struct{ list []deadletters.GroupDLQ }

func (f *fakeDLQOverview) Overview(context.Context, bool) ([]deadletters.GroupDLQ, error) {
	return f.list, nil
}

// bigDLQList is n dead-letter topics in Overview's order: many share a newest time and
// a count, so the topic breaks ties; every seventh has never held a dead letter.
func bigDLQList(n int) []deadletters.GroupDLQ {
	t0 := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	var out []deadletters.GroupDLQ
	for i := range n {
		g := deadletters.GroupDLQ{Group: fmt.Sprintf("cg-%04d", i)}
		g.Topic, g.Exists, g.Counted = "%DLQ%"+g.Group, true, 1
		if i%7 != 0 {
			g.Newest, g.Stored = t0.Add(-time.Duration(i%11)*time.Minute), int64(i%5)
		}
		out = append(out, g)
	}
	// The overview's order: the newest dead letters first, then the fullest, then by topic.
	slices.SortFunc(out, func(a, b deadletters.GroupDLQ) int {
		return cmp.Or(b.Newest.Compare(a.Newest), cmp.Compare(b.Stored, a.Stored), strings.Compare(a.Topic, b.Topic))
	})
	return out
}

func dlqRouter(list []deadletters.GroupDLQ) http.Handler {
	r := newEngine()
	h := &DeadLetterList{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Service: &fakeDLQOverview{list: list}}
	r.GET("/dead-letters", h.Show)
	return r
}

var dlqRowRE = regexp.MustCompile(`<tr data-testid="dlq-row" data-topic="([^"]+)"`)

func TestDeadLetterListPagesEveryTopicOnceNewestFirst(t *testing.T) {
	list := bigDLQList(400)
	r := dlqRouter(list)
	var seen []string
	first := readPagedPage(t, r, "/dead-letters", "dlqs", dlqRowRE, false)
	if len(first.rows) != 50 || !strings.Contains(first.body, "50 of 400 dead-letter topics") {
		t.Fatalf("/dead-letters: %d rows; want 50 and “50 of 400 dead-letter topics”", len(first.rows))
	}
	p := first
	for range 20 {
		seen = append(seen, p.rows...)
		if p.next == "" {
			break
		}
		p = readPagedPage(t, r, p.next, "dlqs", dlqRowRE, false)
	}
	var want []string
	for _, g := range list {
		want = append(want, g.Topic)
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("the pages show %d topics; want the %d in the overview's order, each once", len(seen), len(want))
	}
	for _, q := range []string{"limit=0", "cursor=%21%21"} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dead-letters?"+q, nil))
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "page") {
			t.Errorf("?%s: %d; want 422 with a sentence", q, rec.Code)
		}
	}
}

func TestDeadLetterListMoreRowLoadsTheNextRowsInPlace(t *testing.T) {
	checkMoreInPlace(t, dlqRouter(bigDLQList(130)), "/dead-letters", "dlqs", dlqRowRE, 50)
}

// A broker that did not count a topic on the last page is named on the first, where a
// reader looks, and the count says every topic.
func TestDeadLetterListNamesBrokerFailuresOnEveryPage(t *testing.T) {
	list := bigDLQList(130)
	list[len(list)-1].Failures = []cluster.BrokerFailure{{Broker: "broker-z", Addr: "10.0.0.9:10911", Op: "topic stats", Err: errors.New("i/o timeout")}}
	first := readPagedPage(t, dlqRouter(list), "/dead-letters", "dlqs", dlqRowRE, false)
	if slices.Contains(first.rows, list[len(list)-1].Topic) {
		t.Fatal("the failed topic is on the first page; want it on the last")
	}
	if !regexp.MustCompile(`data-testid="dlqs-failure">[^<]*broker-z`).MatchString(first.body) {
		t.Errorf("the first page does not name broker-z, which failed to count a topic on the last page")
	}
	if !strings.Contains(first.body, `data-testid="dlqs-shown">50 of 130 dead-letter topics<`) {
		t.Errorf("the count does not say the 130 topics of every page")
	}
}

// The API pages the overview as the page does: every topic once, in the overview's
// order, with the total on every page and next absent on the last; the broker that did
// not count a topic of the last page is named beside the first.
func TestDeadLettersAPIPagesEveryTopicOnce(t *testing.T) {
	list := bigDLQList(130)
	list[len(list)-1].Failures = []cluster.BrokerFailure{{Broker: "broker-z", Addr: "10.0.0.9:10911", Topic: list[len(list)-1].Topic,
		Op: "topic stats", Err: errors.New("i/o timeout")}}
	list[len(list)-1].Counted = 0
	r := newEngine()
	h := &DeadLetterList{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Service: &fakeDLQOverview{list: list}}
	r.GET("/api/v1/dead-letters", h.API)
	type page struct {
		DeadLetters []struct {
			Group    string         `json:"group"`
			Topic    string         `json:"topic"`
			Stored   *int64         `json:"stored"`
			Newest   *int64         `json:"newest"`
			Failures []failureShape `json:"failures"`
		} `json:"deadLetters"`
		Total    int            `json:"total"`
		Next     *string        `json:"next"`
		Failures []failureShape `json:"failures"`
	}
	get := func(path string) (page, int) {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var p page
		if rec.Code == http.StatusOK {
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatalf("%s: %v %s", path, err, rec.Body)
			}
		}
		return p, rec.Code
	}
	var seen []string
	path := "/api/v1/dead-letters"
	for n := 0; path != ""; n++ {
		p, code := get(path)
		if code != http.StatusOK || p.Total != 130 || n > 5 {
			t.Fatalf("%s: %d, total %d; want 200 and 130", path, code, p.Total)
		}
		if n == 0 && (len(p.DeadLetters) != 50 || len(p.Failures) != 1 || p.Failures[0].Broker != "broker-z" || p.Failures[0].Code != "broker_timeout" && p.Failures[0].Code != "broker_error") {
			t.Errorf("first page: %d topics, failures %+v; want 50 and broker-z named", len(p.DeadLetters), p.Failures)
		}
		for i, d := range p.DeadLetters {
			seen = append(seen, d.Topic)
			g := list[len(seen)-1]
			switch {
			case d.Group != g.Group:
				t.Errorf("%s is of group %q; want %q", d.Topic, d.Group, g.Group)
			case g.Newest.IsZero() != (d.Newest == nil) || d.Newest != nil && *d.Newest != g.Newest.UnixMilli():
				t.Errorf("%s: newest %v; want %v (null when unknown)", d.Topic, d.Newest, g.Newest)
			case g.Counted == 0 && (d.Stored != nil || len(d.Failures) != 1 || d.Failures[0].Addr != "10.0.0.9:10911"):
				t.Errorf("%s: stored %v, failures %+v; want null and broker-z", d.Topic, d.Stored, d.Failures)
			case g.Counted > 0 && (d.Stored == nil || *d.Stored != g.Stored):
				t.Errorf("%s (row %d): stored %v; want %d", d.Topic, i, d.Stored, g.Stored)
			}
		}
		path = ""
		if p.Next != nil {
			path = "/api/v1/dead-letters?cursor=" + url.QueryEscape(*p.Next)
		}
	}
	var want []string
	for _, g := range list {
		want = append(want, g.Topic)
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("the API's pages give %d topics; want the %d in the overview's order, each once", len(seen), len(want))
	}
	for _, q := range []string{"limit=0", "limit=x", "cursor=%21%21"} {
		if _, code := get("/api/v1/dead-letters?" + q); code != http.StatusBadRequest {
			t.Errorf("?%s: %d; want 400", q, code)
		}
	}
}
