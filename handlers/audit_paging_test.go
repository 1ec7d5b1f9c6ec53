package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/store"
)

var auditRowRE = regexp.MustCompile(`<tr data-entry="(\d+)"`)

// auditPagingRouter serves the audit list over a real SQLite store holding n entries,
// every third of group billing; it answers the entries' ids, newest first.
func auditPagingRouter(t *testing.T, n int) (*gin.Engine, []string) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	t0 := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	var ids []string
	for i := range n {
		group := fmt.Sprintf("cg-%03d", i)
		if i%3 == 0 {
			group = "billing"
		}
		at := t0.Add(time.Duration(i) * time.Second)
		e := &store.AuditEntry{StartedAt: at, FinishedAt: at, Actor: "otto", Cluster: "ns:9876", Group: group,
			Topics: []string{"orders"}, Mode: "latest", Status: store.AuditApplied}
		if err := st.Audit().Record(t.Context(), e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, strconv.FormatInt(e.ID, 10))
	}
	slices.Reverse(ids)
	r := newEngine()
	a := &Audit{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Entries: st.Audit()}
	r.GET("/audit", a.List)
	r.GET("/api/v1/audit", a.ListAPI)
	return r, ids
}

func TestAuditListPagesEveryEntryOnceNewestFirst(t *testing.T) {
	r, want := auditPagingRouter(t, 130)
	first := readPagedPage(t, r, "/audit", "audit", auditRowRE, false)
	if len(first.rows) != 50 || !strings.Contains(first.body, `data-testid="audit-shown">50 of 130 entries<`) {
		t.Fatalf("/audit: %d rows; want 50 and “50 of 130 entries”", len(first.rows))
	}
	if strings.Contains(first.body, `data-testid="audit-first"`) {
		t.Error("the first page links to the first page")
	}
	var seen []string
	p := first
	for range 10 {
		seen = append(seen, p.rows...)
		if p.next == "" {
			break
		}
		if strings.Contains(p.next, "before=") {
			t.Errorf("Next is %s; want a cursor", p.next)
		}
		p = readPagedPage(t, r, p.next, "audit", auditRowRE, false)
		if !strings.Contains(p.body, `data-testid="audit-first"`) {
			t.Errorf("%s has no link to the first page", p.next)
		}
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("the pages show %d entries; want the %d newest first, each once", len(seen), len(want))
	}

	// A filter pages its own entries, and counts them.
	billing := readPagedPage(t, r, "/audit?group=billing&limit=20", "audit", auditRowRE, false)
	if len(billing.rows) != 20 || !strings.Contains(billing.body, "20 of 44 entries") || !strings.Contains(billing.next, "group=billing") {
		t.Fatalf("group=billing: %d rows, Next %s; want 20 of 44 and a Next that keeps the filter", len(billing.rows), billing.next)
	}

	// Old links that say before=<id> still page as they did.
	old := readPagedPage(t, r, "/audit?before="+want[49], "audit", auditRowRE, false)
	if !slices.Equal(old.rows, want[50:100]) {
		t.Errorf("before=%s shows %d rows from %v; want the 50 older ones", want[49], len(old.rows), old.rows[:min(1, len(old.rows))])
	}

	// Bad input is refused before the store is read, with a sentence.
	u, _ := url.Parse(billing.next)
	stale := u.Query().Get("cursor")
	for q, says := range map[string]string{"limit=0": "page size", "limit=501": "page size", "cursor=%21%21": "cursor",
		"cursor=" + stale: "another filter"} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/audit?"+q, nil))
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), says) || auditRowRE.MatchString(rec.Body.String()) {
			t.Errorf("/audit?%s: %d; want 422 saying %q, with no entries", q, rec.Code, says)
		}
		rec = httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/audit?"+q, nil))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("/api/v1/audit?%s: %d; want 400", q, rec.Code)
		}
	}
}

func TestAuditAPIPagesWithNextAndTotal(t *testing.T) {
	r, want := auditPagingRouter(t, 130)
	var seen []string
	path := "/api/v1/audit?limit=40"
	for pages := 0; path != ""; pages++ {
		if pages > 10 {
			t.Fatal("the pages do not end")
		}
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var got struct {
			Entries []struct {
				ID int64 `json:"id"`
			} `json:"entries"`
			Limit int     `json:"limit"`
			Total int     `json:"total"`
			Next  *string `json:"next"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %v %s", path, rec.Code, err, rec.Body)
		}
		if got.Total != 130 || got.Limit != 40 {
			t.Errorf("%s: total %d, limit %d; want 130 and 40", path, got.Total, got.Limit)
		}
		for _, e := range got.Entries {
			seen = append(seen, strconv.FormatInt(e.ID, 10))
		}
		path = ""
		if got.Next != nil {
			path = "/api/v1/audit?limit=40&cursor=" + url.QueryEscape(*got.Next)
		}
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("the API's pages give %d entries; want the %d newest first, each once", len(seen), len(want))
	}
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/audit?cursor=%21%21", nil))
	if e := apiError(t, rec); rec.Code != http.StatusBadRequest || !strings.Contains(e.Error, "cursor") {
		t.Errorf("a bad cursor: %d %+v; want 400 saying so", rec.Code, e)
	}
}

func TestAuditListMoreRowLoadsTheNextEntriesInPlace(t *testing.T) {
	r, _ := auditPagingRouter(t, 130)
	checkMoreInPlace(t, r, "/audit", "audit", auditRowRE, 50)
}
