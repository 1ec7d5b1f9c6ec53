package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/store"
)

// With several clusters the audit list has a cluster filter: the page's cluster chosen,
// every cluster or another one by its label; the rows say their cluster, the exports
// keep the choice and carry each entry's cluster name. With one cluster there is no
// such control.
func TestAuditListClusterFilter(t *testing.T) {
	a := newTwoClusterApp(t)
	for _, ca := range a.clusters {
		if err := ca.store.Audit().Record(context.Background(), &store.AuditEntry{Actor: "vic", Group: "orders-cg",
			Mode: "latest", Status: store.AuditRefused, Reason: "on " + ca.cc.Name}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(target, lang string) *httptest.ResponseRecorder {
		t.Helper()
		req := newRequest(http.MethodGet, target, nil)
		if lang != "" {
			req.Header.Set("Accept-Language", lang)
		}
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", target, rec.Code, rec.Body)
		}
		return rec
	}
	page := func(target, lang string) *goquery.Document {
		t.Helper()
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(get(target, lang).Body.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	options := func(doc *goquery.Document) (all []string, selected string) {
		doc.Find(`[data-testid="af-cluster"] option`).Each(func(_ int, o *goquery.Selection) {
			v, _ := o.Attr("value")
			all = append(all, v+"="+strings.TrimSpace(o.Text()))
			if _, ok := o.Attr("selected"); ok {
				selected = v
			}
		})
		return all, selected
	}
	cells := func(doc *goquery.Document) string {
		var cs []string
		doc.Find(`[data-testid="entry-cluster"]`).Each(func(_ int, s *goquery.Selection) { cs = append(cs, s.Text()) })
		return strings.Join(cs, " ")
	}

	doc := page("/c/b/audit", "")
	all, selected := options(doc)
	if strings.Join(all, " ") != "*=All clusters a=a b=b" || selected != "b" {
		t.Errorf("b's cluster filter: %q, %q selected", all, selected)
	}
	if got := cells(doc); got != "b" {
		t.Errorf("b's audit list rows' clusters: %q, want b", got)
	}
	doc = page("/c/b/audit?cluster=*", "")
	if _, selected = options(doc); selected != "*" || cells(doc) != "b a" {
		t.Errorf("every cluster: %q selected, rows of %q", selected, cells(doc))
	}
	csvURL, _ := doc.Find(`[data-testid="export-csv"]`).Attr("href")
	jsonURL, _ := doc.Find(`[data-testid="export-json"]`).Attr("href")
	for _, u := range []string{csvURL, jsonURL} {
		p, err := url.Parse(u)
		if err != nil || p.Path != "/c/b/audit/export" || p.Query().Get("cluster") != "*" {
			t.Errorf("export link %q: want b's export of every cluster", u)
		}
	}
	if _, selected = options(page("/audit?cluster=b", "")); selected != "b" {
		t.Errorf("a's page asking for b: %q selected", selected)
	}
	if all, _ = options(page("/c/b/audit", "zh-CN")); len(all) == 0 || all[0] != "*=全部集群" {
		t.Errorf("the Chinese filter: %q", all)
	}

	rows, err := csv.NewReader(get(csvURL, "").Body).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("CSV of every cluster: %v, %q", err, rows)
	}
	col := -1
	for i, name := range rows[0] {
		if name == "cluster_name" {
			col = i
		}
	}
	if col < 0 || rows[1][col] != "b" || rows[2][col] != "a" {
		t.Errorf("CSV cluster_name column %d: %q", col, rows)
	}
	var out struct {
		Entries []struct{ ClusterName, Reason string }
	}
	if err := json.Unmarshal(get(jsonURL, "").Body.Bytes(), &out); err != nil || len(out.Entries) != 2 ||
		out.Entries[0].ClusterName != "b" || out.Entries[1].ClusterName != "a" {
		t.Errorf("JSON of every cluster: %v, %+v", err, out.Entries)
	}

	// An entry's page names its cluster in the reader's language.
	id, _ := doc.Find(`[data-testid="entry-id"]`).First().Attr("href")
	for lang, want := range map[string]string{"": " (cluster b)", "zh-CN": "（集群 b）"} {
		var cell string
		page(id, lang).Find("tr").Each(func(_ int, tr *goquery.Selection) {
			if th := strings.TrimSpace(tr.Find("th").Text()); th == "Cluster (NameServers)" || th == "集群（NameServer）" {
				cell = tr.Find("td").Text()
			}
		})
		if !strings.HasSuffix(cell, want) {
			t.Errorf("entry %s in %q: cluster %q, want it to end in %q", id, lang, cell, want)
		}
	}

	// One cluster: the list looks as before.
	one := newAuthApp(t)
	rec := httptest.NewRecorder()
	one.Handler().ServeHTTP(rec, newRequest(http.MethodGet, "/audit", nil))
	if d, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes())); rec.Code != http.StatusOK ||
		d.Find(`[data-testid="af-cluster"]`).Length() != 0 {
		t.Errorf("one cluster's audit list: %d, has a cluster filter", rec.Code)
	}
}
