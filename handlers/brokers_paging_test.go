package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"rmqconsole/brokers"
)

// bigBrokerList is n broker names of a master and two slaves each, in the list's order.
func bigBrokerList(n int) *brokers.List {
	l := &brokers.List{CheckedAt: time.Now()}
	for i := range n {
		for id := range int64(3) {
			l.Brokers = append(l.Brokers, brokers.Runtime{Cluster: "c", Name: fmt.Sprintf("broker-%04d", i), ID: id,
				Addr: fmt.Sprintf("10.0.%d.%d:10911", i/200, id), Role: map[bool]string{true: "master", false: "slave"}[id == 0], Version: "5.3.3"})
		}
	}
	return l
}

func TestBrokersAPIPagesEveryProcessOnce(t *testing.T) {
	r := brokersRouter(&fakeBrokers{list: bigBrokerList(400)})
	get := func(path string) (rows []string, total int, next string, size int) {
		t.Helper()
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		var p struct {
			Brokers []struct {
				Name string `json:"brokerName"`
				ID   int64  `json:"brokerId"`
			} `json:"brokers"`
			Total int     `json:"total"`
			Next  *string `json:"next"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		for _, b := range p.Brokers {
			rows = append(rows, fmt.Sprintf("%s/%d", b.Name, b.ID))
		}
		if p.Next != nil {
			next = *p.Next
			if next == "" {
				t.Fatalf("%s: next is empty rather than absent", path)
			}
		}
		return rows, p.Total, next, rec.Body.Len()
	}
	first, total, next, size := get("/api/v1/brokers")
	if len(first) != 50 || total != 1200 || next == "" {
		t.Fatalf("first page: %d rows of %d, next %q; want 50 of 1200 and a cursor", len(first), total, next)
	}
	t.Logf("first page %d bytes", size)
	var all []string
	path := "/api/v1/brokers?limit=170"
	for range 100 {
		rows, _, next, _ := get(path)
		all = append(all, rows...)
		if next == "" {
			break
		}
		path = "/api/v1/brokers?limit=170&cursor=" + url.QueryEscape(next)
	}
	want := bigBrokerList(400).Brokers
	if len(all) != len(want) {
		t.Fatalf("pages hold %d processes; want %d", len(all), len(want))
	}
	for i, w := range want {
		if all[i] != fmt.Sprintf("%s/%d", w.Name, w.ID) {
			t.Fatalf("row %d is %s; want %s/%d", i, all[i], w.Name, w.ID)
		}
	}
	for _, q := range []string{"limit=0", "limit=501", "cursor=%21%21", "cursor=e30"} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/brokers?"+q, nil))
		if e := apiError(t, rec); rec.Code != http.StatusBadRequest || !strings.HasSuffix(e.Error, ".") {
			t.Errorf("?%s: %d %+v; want 400 with a sentence", q, rec.Code, e)
		}
		page := httptest.NewRecorder()
		r.ServeHTTP(page, httptest.NewRequest(http.MethodGet, "/brokers?"+q, nil))
		if page.Code != http.StatusUnprocessableEntity || !strings.Contains(page.Body.String(), "page") {
			t.Errorf("/brokers?%s: %d; want 422 with the sentence", q, page.Code)
		}
	}
}

func TestBrokersMoreRowLoadsTheNextRowsInPlace(t *testing.T) {
	r := brokersRouter(&fakeBrokers{list: bigBrokerList(100)})
	checkMoreInPlace(t, r, "/brokers", "brokers", regexp.MustCompile(`<tr data-broker="([^"]+" data-addr="[^"]+)"`), 50)
}

// The first page of the broker list, page or API, reads every broker afresh, so that a
// broker that failed a moment ago shows there; the pages after it, and their More rows,
// are cut from the copy kept since, so that no row repeats or goes missing.
func TestBrokerListFirstPageReadsAfreshLaterPagesTheKeptCopy(t *testing.T) {
	f := &fakeBrokers{list: bigBrokerList(100)}
	r := brokersRouter(f)
	first := httptest.NewRecorder()
	r.ServeHTTP(first, httptest.NewRequest(http.MethodGet, "/api/v1/brokers", nil))
	var p struct {
		Next string `json:"next"`
	}
	if err := json.Unmarshal(first.Body.Bytes(), &p); err != nil || p.Next == "" {
		t.Fatalf("the first page: %v, next %q", err, p.Next)
	}
	for _, path := range []string{"/brokers", "/api/v1/brokers?cursor=" + url.QueryEscape(p.Next),
		"/brokers?cursor=" + url.QueryEscape(p.Next), "/brokers?refresh=1&cursor=" + url.QueryEscape(p.Next)} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, rec.Code)
		}
	}
	if want := []bool{true, true, false, false, true}; fmt.Sprint(f.afresh) != fmt.Sprint(want) {
		t.Errorf("fresh reads asked: %v; want %v (first pages and Refresh afresh, later pages kept)", f.afresh, want)
	}
}
