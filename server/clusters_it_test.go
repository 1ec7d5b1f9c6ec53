package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/gorilla/websocket"

	"rmqconsole/auth"
	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/handlers"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// consumedGroup gives cluster cl a topic (two queues per broker) with n messages, all
// consumed by group with a real client that then goes offline.
func consumedGroup(t *testing.T, cl *dev.Cluster, topic, group string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	for i := range n {
		if r, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte(fmt.Sprintf("order %d", i)))); err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send to %s: %v %v", cl.NameServer, r, err)
		}
	}
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, RouteTTL: -1})
	pc := dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	dev.Eventually(t, 90*time.Second, "the consumer commits every message on "+cl.NameServer, func() error {
		if sum := sumOffsets(mqadminOffsets(t, cl, topic, group)); sum != int64(n) {
			return fmt.Errorf("committed %d of %d", sum, n)
		}
		return nil
	})
	pc.Stop()
	dev.Eventually(t, 60*time.Second, "the group goes offline on "+cl.NameServer, func() error {
		for _, b := range cl.Brokers {
			if _, err := c.ConsumerConnections(t.Context(), b.Addr, group); !errors.Is(err, rocketmq.ErrConsumerNotOnline) {
				return fmt.Errorf("connections on %s: %v", b.Name, err)
			}
		}
		return nil
	})
}

// mqadminOffsets is RocketMQ's own view of the group's committed offsets on cl, by
// "broker/queue" (consumerProgress).
func mqadminOffsets(t *testing.T, cl *dev.Cluster, topic, group string) map[string]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	out, err := cl.MQAdmin(ctx, "consumerProgress", "-g", group)
	if err != nil {
		t.Fatal(err)
	}
	offs := map[string]int64{}
	for _, line := range strings.Split(out, "\n") {
		// #Topic  #Broker Name  #QID  #Broker Offset  #Consumer Offset  ...
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != topic {
			continue
		}
		o, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			t.Fatalf("cannot read consumerProgress row %q", line)
		}
		offs[f[1]+"/"+f[2]] = o
	}
	return offs
}

func sumOffsets(m map[string]int64) int64 {
	var n int64
	for _, o := range m {
		n += o
	}
	return n
}

// Two real clusters at once, each with its NameServer and brokers on its own loopback
// ports, configured by a file: the same group name on both is two groups; a reset on one
// leaves the other untouched (mqadmin against each); role limits are per cluster; the
// audit log records and filters by cluster; pages link within their cluster.
func TestTwoClustersAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("needs two RocketMQ clusters")
	}
	prod, test := dev.RequireCluster(t), dev.RequirePrivateCluster(t)
	if prod.NameServer == test.NameServer {
		t.Fatal("the two clusters share a NameServer")
	}
	topic, group := dev.UniqueName("mc-orders"), dev.UniqueName("mc-cg")
	consumedGroup(t, prod, topic, group, 6)
	consumedGroup(t, test, topic, group, 8)
	queues := func(cl *dev.Cluster) int { return 2 * len(cl.Brokers) }

	conf := filepath.Join(t.TempDir(), "clusters.toml")
	os.WriteFile(conf, []byte(fmt.Sprintf(`
[[clusters]]
name = "prod"
label = "Production"
color = "red"
default = true
namesrv = [%q]
max_role = "viewer"
roles = { alice = "operator" }

[[clusters]]
name = "test"
namesrv = [%q]
`, prod.NameServer, test.NameServer)), 0o600)
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--config", conf, "--metrics-interval", "0", "--topic-figures-interval", "0"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	addUsers(t, a, map[string]auth.Role{"alice": auth.Operator, "bob": auth.Operator})
	do := func(user, method, path, body string) *httptest.ResponseRecorder {
		t.Helper()
		req := newRequest(method, path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.AddCookie(sessionCookie(t, a, user))
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec
	}

	// The overview's clusters: both answer, with their brokers.
	var cs struct{ Clusters []handlers.ClusterHealth }
	if rec := do("bob", "GET", "/api/v1/clusters", ""); json.Unmarshal(rec.Body.Bytes(), &cs) != nil || len(cs.Clusters) != 2 {
		t.Fatalf("GET /api/v1/clusters: %d %s", rec.Code, rec.Body.String())
	}
	for i, cl := range []*dev.Cluster{prod, test} {
		if h := cs.Clusters[i]; !h.NameServerOK || h.BrokersUp != len(cl.Brokers) || len(h.Versions) == 0 {
			t.Errorf("cluster %s: %+v, want its NameServer answering and %d brokers up", h.Name, h, len(cl.Brokers))
		}
	}

	// The same group name: two groups, each with its own queues and offsets.
	for _, c := range []struct {
		path string
		cl   *dev.Cluster
		sum  int64
	}{{"/api/v1/groups/" + group, prod, 6}, {"/api/v1/clusters/prod/groups/" + group, prod, 6}, {"/api/v1/clusters/test/groups/" + group, test, 8}} {
		rec := do("bob", "GET", c.path, "")
		var g struct {
			Queues []struct {
				Topic          string
				BrokerName     string
				ConsumerOffset int64
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body.String())
		}
		var sum int64
		n := 0
		for _, q := range g.Queues {
			if q.Topic == topic {
				sum += q.ConsumerOffset
				n++
			}
		}
		if n != queues(c.cl) || sum != c.sum {
			t.Errorf("%s: %d queues of %s with %d consumed, want %d with %d", c.path, n, topic, sum, queues(c.cl), c.sum)
		}
	}

	// Roles are capped per cluster: bob, an operator, only reads prod; alice may reset it.
	preview := `{"topic":"` + topic + `","mode":"earliest"}`
	if rec := do("bob", "POST", "/api/v1/groups/"+group+"/reset-preview", preview); rec.Code != http.StatusForbidden ||
		!strings.Contains(rec.Body.String(), "at most viewer") {
		t.Errorf("bob's preview on prod: %d %s, want 403 naming the cluster's limit", rec.Code, rec.Body.String())
	}
	if rec := do("bob", "POST", "/api/v1/groups/"+group+"/resets", preview); rec.Code != http.StatusForbidden {
		t.Errorf("bob's apply on prod: %d %s, want 403", rec.Code, rec.Body.String())
	}
	if rec := do("alice", "POST", "/api/v1/groups/"+group+"/reset-preview", preview); rec.Code != http.StatusOK {
		t.Errorf("alice's preview on prod: %d %s", rec.Code, rec.Body.String())
	}

	// bob resets the group on test to the earliest offsets.
	prodBefore := mqadminOffsets(t, prod, topic, group)
	rec := do("bob", "POST", "/api/v1/clusters/test/groups/"+group+"/reset-preview", preview)
	var plan struct{ PlanID string }
	if json.Unmarshal(rec.Body.Bytes(), &plan); rec.Code != http.StatusOK || plan.PlanID == "" {
		t.Fatalf("bob's preview on test: %d %s", rec.Code, rec.Body.String())
	}
	rec = do("bob", "POST", "/api/v1/clusters/test/groups/"+group+"/resets",
		`{"topic":"`+topic+`","mode":"earliest","planId":"`+plan.PlanID+`","confirm":true}`)
	var entry handlers.AuditEntryJSON
	if json.Unmarshal(rec.Body.Bytes(), &entry); rec.Code != http.StatusOK || entry.Status != "applied" || entry.ClusterName != "test" || entry.Cluster != test.NameServer {
		t.Fatalf("bob's reset on test: %d %s", rec.Code, rec.Body.String())
	}
	dev.Eventually(t, 30*time.Second, "mqadmin on test shows the reset", func() error {
		if offs := mqadminOffsets(t, test, topic, group); len(offs) != queues(test) || sumOffsets(offs) != 0 {
			return fmt.Errorf("offsets on test %v", offs)
		}
		return nil
	})
	if after := mqadminOffsets(t, prod, topic, group); fmt.Sprint(after) != fmt.Sprint(prodBefore) || sumOffsets(after) != 6 {
		t.Errorf("prod's offsets changed by the reset on test: %v, were %v", after, prodBefore)
	}

	// The audit log: each cluster's page lists its own entries; cluster=* lists all.
	audit := func(path string) (ids []string) {
		rec := do("alice", "GET", path, "")
		var l struct{ Entries []handlers.AuditEntryJSON }
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		for _, e := range l.Entries {
			if e.Group == group {
				ids = append(ids, e.ClusterName+":"+e.Status)
			}
		}
		return ids
	}
	for path, want := range map[string]string{
		"/api/v1/audit":                            "prod:refused",
		"/api/v1/audit?cluster=test":               "test:applied",
		"/api/v1/clusters/test/audit":              "test:applied",
		"/api/v1/clusters/test/audit?cluster=*":    "test:applied prod:refused",
		"/api/v1/clusters/test/audit?cluster=prod": "prod:refused",
	} {
		if got := strings.Join(audit(path), " "); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}

	// Pages of test link within test; the header names it; the overview lists both.
	rec = do("bob", "GET", "/c/test/groups/"+group, "")
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if rec.Code != http.StatusOK || strings.TrimSpace(doc.Find(`[data-testid="cluster-current"]`).Text()) != "test" {
		t.Fatalf("/c/test/groups/%s: %d, header cluster %q", group, rec.Code, doc.Find(`[data-testid="cluster-current"]`).Text())
	}
	doc.Find("[href], [action], [hx-get], [hx-post], [ws-connect]").Each(func(_ int, s *goquery.Selection) {
		for _, attr := range []string{"href", "action", "hx-get", "hx-post", "ws-connect"} {
			u, ok := s.Attr(attr)
			if !ok || !strings.HasPrefix(u, "/") {
				continue
			}
			if !strings.HasPrefix(u, "/c/") && !strings.HasPrefix(u, "/api/v1/clusters/test/") && !strings.HasPrefix(u, "/static/") &&
				u != "/logout" && u != "/tokens" && u != "/language" && !strings.HasPrefix(u, "/users/") {
				t.Errorf("page of test links %s=%q, off its cluster", attr, u)
			}
		}
	})
	// The live view of test's group: its websocket through the cluster's path, its frames
	// linking within test.
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/c/test/ws/groups/"+group,
		http.Header{"Origin": {srv.URL}, "Cookie": {sessionCookie(t, a, "bob").String()}})
	if err != nil {
		t.Fatalf("websocket of test's group: %v", err)
	}
	defer ws.Close()
	// The first update comes as two frames: everything but the queue rows, then the rows.
	var frames string
	for range 2 {
		_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, frame, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("live frame of test's group: %v", err)
		}
		frames += string(frame)
	}
	if !strings.Contains(frames, `="/c/test/`) {
		t.Errorf("test's live frames have no link within test:\n%.600s", frames)
	}
	for _, m := range regexp.MustCompile(`="(/[^"]*)"`).FindAllStringSubmatch(frames, -1) {
		if !strings.HasPrefix(m[1], "/c/test/") && !strings.HasPrefix(m[1], "/static/") {
			t.Errorf("test's live frame links %q, off its cluster", m[1])
		}
	}

	rec = do("bob", "GET", "/", "")
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if n := doc.Find(`[data-testid="cluster-row"]`).Length(); n != 2 {
		t.Errorf("overview lists %d clusters, want 2", n)
	}
	if style, _ := doc.Find(`[data-testid="cluster-current"]`).Attr("style"); !strings.Contains(style, "red") {
		t.Errorf("prod's tag is not red: style %q", style)
	}

	// A cluster that is not configured: 404 naming those that are.
	rec = do("bob", "GET", "/c/staging/groups", "")
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "prod, test") {
		t.Errorf("/c/staging/groups: %d %s", rec.Code, rec.Body.String())
	}
	if rec = do("bob", "GET", "/api/v1/clusters/staging/groups", ""); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "cluster_not_found") {
		t.Errorf("/api/v1/clusters/staging/groups: %d %s", rec.Code, rec.Body.String())
	}
}
