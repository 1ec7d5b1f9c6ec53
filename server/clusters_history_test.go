package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/store"
)

// Group G of cluster b: its alert rule, its rebalance events and its lag samples show on
// b's pages and API only, never on a's, which has a group of the same name.
func TestClusterHistoryStaysOnItsCluster(t *testing.T) {
	a := newTwoClusterApp(t)
	ctx, b := context.Background(), a.clusters[1].store
	now := time.Now()
	q, lag := 0, int64(42)
	if err := b.AddRebalanceEvents(ctx, []store.RebalanceEvent{{Group: "G", At: now.Add(-time.Minute), Kind: "joined", ClientID: "c1"},
		{Group: "G", At: now.Add(-time.Minute), Kind: "moved", Topic: "T", BrokerName: "broker-a", QueueID: &q, To: "c1"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.AddLagSamples(ctx, []store.LagSample{{Group: "G", At: now.Add(-time.Minute), Lag: &lag}}); err != nil {
		t.Fatal(err)
	}
	rule := &store.AlertRule{Name: "g-lag", GroupPattern: "G", Metric: "lag", Threshold: 10, WebhookURL: "http://127.0.0.1:9/hook",
		Format: "json", CreatedAt: now}
	if err := b.CreateAlertRule(ctx, rule, &store.AuditEntry{Actor: "vic", Status: store.AuditApplied, Mode: "alert-rule"}); err != nil {
		t.Fatal(err)
	}
	get := func(target string) *httptest.ResponseRecorder {
		t.Helper()
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", target, rec.Code, rec.Body)
		}
		return rec
	}
	for _, c := range []struct {
		api, page string
		want      int
	}{{"/api/v1", "", 0}, {"/api/v1/clusters/b", "/c/b", 1}} {
		var rb struct {
			Events []json.RawMessage
			Days   []struct{ Moves int64 }
		}
		if err := json.Unmarshal(get(c.api+"/groups/G/rebalances").Body.Bytes(), &rb); err != nil {
			t.Fatal(err)
		}
		if len(rb.Events) != 2*c.want || len(rb.Days) != c.want {
			t.Errorf("%s: G's rebalances: %d events, %d days; want %d and %d", c.api, len(rb.Events), len(rb.Days), 2*c.want, c.want)
		}
		var lh struct{ Samples []struct{ Lag *int64 } }
		if err := json.Unmarshal(get(c.api+"/groups/G/lag-history").Body.Bytes(), &lh); err != nil {
			t.Fatal(err)
		}
		if len(lh.Samples) != c.want {
			t.Errorf("%s: G's lag history has %d samples, want %d", c.api, len(lh.Samples), c.want)
		}
		var rs struct{ Rules []json.RawMessage }
		if err := json.Unmarshal(get(c.api+"/alert-rules").Body.Bytes(), &rs); err != nil {
			t.Fatal(err)
		}
		if len(rs.Rules) != c.want {
			t.Errorf("%s: %d alert rules, want %d", c.api, len(rs.Rules), c.want)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(get(c.page + "/alerts").Body.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if n := doc.Find(`[data-testid="rule-row"]`).Length(); n != c.want {
			t.Errorf("%s/alerts lists %d rules, want %d", c.page, n, c.want)
		}
	}
}
