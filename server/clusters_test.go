package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/handlers"
)

// deadAddr is a loopback address where nothing listens: a cluster that cannot be reached.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// newTwoClusterApp is the real console on a config file naming clusters a (default) and
// b, neither reachable.
func newTwoClusterApp(t *testing.T) *App {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(conf, []byte("clusters:\n  - name: a\n    namesrv: [\""+deadAddr(t)+"\"]\n  - name: b\n    color: \"#0a0\"\n    namesrv: [\""+deadAddr(t)+"\"]\n"), 0o600)
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--config", conf, "--timeout", "300ms"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// Paths reach their cluster's routes; redirects and links stay on the cluster; a cluster
// that does not answer says so on the overview; metrics carry the cluster's name.
func TestClusterPathsRedirectsAndMetrics(t *testing.T) {
	a := newTwoClusterApp(t)
	serve := func(method, target string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req := newRequest(method, target, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec
	}

	// A rule created on b's alerts page: back to b's page, and only b has it.
	rec := serve("POST", "/c/b/alerts", url.Values{"name": {"lagging"}, "group": {"orders-*"}, "metric": {"lag"}, "threshold": {"10"},
		"for": {"0s"}, "webhookUrl": {"http://127.0.0.1:9/hook"}, "format": {"json"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/c/b/alerts" {
		t.Fatalf("POST /c/b/alerts: %d Location %q\n%s", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	rules := func(path string) int {
		var l struct{ Rules []json.RawMessage }
		rec := serve("GET", path, nil)
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		return len(l.Rules)
	}
	if a, b := rules("/api/v1/alert-rules"), rules("/api/v1/clusters/b/alert-rules"); a != 0 || b != 1 {
		t.Errorf("alert rules: a has %d, b has %d; want 0 and 1", a, b)
	}

	// b's page: its tag, the switch, and links within b.
	rec = serve("GET", "/c/b/alerts", nil)
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if rec.Code != http.StatusOK || doc.Find(`[data-testid="cluster-option"]`).Length() != 2 {
		t.Fatalf("/c/b/alerts: %d, %d clusters in the switch", rec.Code, doc.Find(`[data-testid="cluster-option"]`).Length())
	}
	if href, _ := doc.Find(`[data-testid="nav-groups"]`).Attr("href"); href != "/c/b/groups" {
		t.Errorf("b's groups link %q", href)
	}
	if base, _ := doc.Find("body").Attr("data-base"); base != "/c/b" {
		t.Errorf("b's page data-base %q", base)
	}
	if href, _ := doc.Find(`link[rel="stylesheet"]`).Last().Attr("href"); !strings.HasPrefix(href, "/static/") {
		t.Errorf("b's stylesheet %q", href)
	}
	if rec = serve("GET", "/c/b", nil); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/c/b/" {
		t.Errorf("/c/b: %d %q", rec.Code, rec.Header().Get("Location"))
	}

	// Neither cluster answers: the overview says so for each, and still renders.
	var cs struct{ Clusters []handlers.ClusterHealth }
	rec = serve("GET", "/api/v1/clusters", nil)
	if err := json.Unmarshal(rec.Body.Bytes(), &cs); err != nil || len(cs.Clusters) != 2 {
		t.Fatalf("/api/v1/clusters: %d %s", rec.Code, rec.Body.String())
	}
	for _, c := range cs.Clusters {
		if c.NameServerOK || len(c.Errors) == 0 || c.URL != "/c/"+c.Name+"/" {
			t.Errorf("unreachable cluster %s: %+v", c.Name, c)
		}
	}
	if cs.Clusters[0].Name != "a" || !cs.Clusters[0].Default || cs.Clusters[1].Color != "#0a0" {
		t.Errorf("clusters %+v", cs.Clusters)
	}
	rec = serve("GET", "/c/b/", nil)
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if rec.Code != http.StatusOK || doc.Find(`[data-testid="cluster-row"] .status-bad`).Length() != 2 {
		t.Errorf("b's overview: %d, %d clusters without an answering NameServer", rec.Code, doc.Find(`[data-testid="cluster-row"] .status-bad`).Length())
	}

	// Each cluster's collectors, labelled.
	metrics := serve("GET", "/metrics", nil).Body.String()
	for _, want := range []string{`rmqconsole_live_group_watchers{cluster="a"}`, `rmqconsole_live_group_watchers{cluster="b"}`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
