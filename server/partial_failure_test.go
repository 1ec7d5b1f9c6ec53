package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/store"
)

// Partial failure on a real cluster: a broker frozen with SIGSTOP (it keeps its
// sockets open and answers nothing), and a NameServer that accepts connections
// and never answers. Each answer must come within about one broker-call
// timeout, name what failed, and keep what the others answered.
//
// The time bounds are loose (twice the timeout, on a 2 s timeout) so that a
// slow machine passes, yet they catch a call that waits for the caller's
// deadline instead of its own (the group list's was 2 minutes).

const partialTimeout = 2 * time.Second

// newTimeoutApp is the real console on ns with a short broker-call timeout.
func newTimeoutApp(t *testing.T, ns string) *App {
	t.Helper()
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", ns,
		"--timeout", partialTimeout.String()}, noEnv, io.Discard)
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

// timedServe serves target and fails the test when the answer takes longer
// than bound; the request itself is abandoned at 3 × bound so a regression
// fails in seconds rather than minutes.
func timedServe(t *testing.T, a *App, target string, bound time.Duration) *httptest.ResponseRecorder {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*bound)
	defer cancel()
	rec := httptest.NewRecorder()
	start := time.Now()
	a.Handler().ServeHTTP(rec, newRequest(http.MethodGet, target, nil).WithContext(ctx))
	if d := time.Since(start); d > bound {
		t.Errorf("%s answered in %s, want within %s (broker-call timeout %s)", target, d.Round(time.Millisecond), bound, partialTimeout)
	}
	return rec
}

// silentListener accepts connections and reads whatever comes, answering
// nothing: a NameServer that is up at the TCP level and stuck above it.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// /readyz with a first NameServer that never answers and a second that does:
// ready, within the check's own deadline.
func TestReadyWithSilentFirstNameServer(t *testing.T) {
	cl := dev.RequireCluster(t)
	silent := silentListener(t)
	a := newTimeoutApp(t, silent+";"+cl.NameServer)
	rec := timedServe(t, a, "/readyz", 2*partialTimeout)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), cl.NameServer) {
		t.Errorf("/readyz = %d %q, want 200 naming %s", rec.Code, rec.Body, cl.NameServer)
	}
	// Only silent NameServers: not ready, and the answer says which.
	a = newTimeoutApp(t, silent)
	rec = timedServe(t, a, "/readyz", 2*partialTimeout)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), silent) {
		t.Errorf("/readyz with no NameServer answering = %d %q, want 503 naming %s", rec.Code, rec.Body, silent)
	}
}

// A frozen broker on the private two-broker cluster: the group list answers
// within about one timeout, names the frozen broker, and does not report the
// healthy one failed.
func TestFrozenBrokerGroupList(t *testing.T) {
	cl := dev.RequirePrivateCluster(t)
	_, group := offlineGroupWithLag(t, cl, 2, 4)
	a := newTimeoutApp(t, cl.NameServer)
	frozen, healthy := cl.Brokers[0], cl.Brokers[1]

	if rec := grpServe(t, a, "/api/v1/groups?refresh=1&q="+group); rec.Code != http.StatusOK {
		t.Fatalf("group list before freezing: %d %s", rec.Code, rec.Body)
	}
	if err := cl.Freeze(frozen.Name); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cl.Thaw(frozen.Name); err != nil {
			t.Error(err)
		}
	}()

	rec := timedServe(t, a, "/api/v1/groups?refresh=1&q="+group, 2*partialTimeout)
	var list struct {
		Groups []struct {
			Group    string `json:"group"`
			Failures []struct {
				Broker string `json:"broker"`
				Error  string `json:"error"`
			} `json:"failures"`
		} `json:"groups"`
		Failures []struct {
			Broker string `json:"broker"`
			Error  string `json:"error"`
		} `json:"failures"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("group list with %s frozen: %d %v: %s", frozen.Name, rec.Code, err, rec.Body)
	}
	named := false
	for _, f := range list.Failures {
		named = named || f.Broker == frozen.Name
		if f.Broker == healthy.Name {
			t.Errorf("healthy %s reported failed: %s", healthy.Name, f.Error)
		}
	}
	for _, g := range list.Groups {
		for _, f := range g.Failures {
			if f.Broker == healthy.Name {
				t.Errorf("group %s: healthy %s reported failed: %s", g.Group, healthy.Name, f.Error)
			}
		}
	}
	if !named {
		t.Errorf("group list does not name the frozen %s: %s", frozen.Name, rec.Body)
	}
	if len(list.Groups) != 1 || list.Groups[0].Group != group {
		t.Errorf("group list with %s frozen lost %s (it has offsets on %s): %s", frozen.Name, group, healthy.Name, rec.Body)
	}
}

// The start-up reconciler reads the offsets of a reset left pending by a crash
// before the console serves; with a broker frozen it gives up on that broker
// within a couple of timeouts, marks the entry interrupted with what the
// healthy broker answered, and starts.
func TestFrozenBrokerStartupReconciler(t *testing.T) {
	cl := dev.RequirePrivateCluster(t)
	// Six queues per broker: asked one by one, a frozen broker's would take
	// seven timeouts.
	const queuesPerBroker = 6
	topic, group := offlineGroupWithLag(t, cl, queuesPerBroker, 4)
	frozen, healthy := cl.Brokers[0], cl.Brokers[1]
	dataDir := t.TempDir()
	st, err := store.Open(t.Context(), filepath.Join(dataDir, "rmqconsole.db"))
	if err != nil {
		t.Fatal(err)
	}
	var queues []store.AuditQueue
	for _, b := range cl.Brokers {
		for id := range queuesPerBroker {
			queues = append(queues, store.AuditQueue{Topic: topic, BrokerName: b.Name, BrokerAddr: b.Addr, QueueID: id, Before: 0, Target: 0})
		}
	}
	crashed := &store.AuditEntry{StartedAt: time.Now(), Actor: "alice", Cluster: cl.NameServer, Group: group,
		Topics: []string{topic}, Mode: "earliest", Plan: store.AuditPlan{Queues: queues}, Status: store.AuditPending}
	if err := st.Audit().Begin(t.Context(), crashed); err != nil {
		t.Fatal(err)
	}
	st.Close()

	if err := cl.Freeze(frozen.Name); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cl.Thaw(frozen.Name); err != nil {
			t.Error(err)
		}
	}()
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", dataDir, "--namesrv", cl.NameServer,
		"--timeout", partialTimeout.String()}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	a, err := New(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if d, bound := time.Since(start), 4*partialTimeout; d > bound {
		t.Errorf("start-up with a frozen broker and a pending reset took %s, want within %s (timeout %s)", d.Round(time.Millisecond), bound, partialTimeout)
	}
	got, err := a.store.Audit().Get(t.Context(), crashed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.AuditInterrupted {
		t.Fatalf("entry %s after start-up, want interrupted", got.Status)
	}
	for _, q := range got.Result {
		switch {
		case q.BrokerName == healthy.Name && q.After == nil:
			t.Errorf("queue %s/%d on the healthy broker not read back: %s", q.BrokerName, q.QueueID, q.Note)
		case q.BrokerName == frozen.Name && (q.After != nil || !strings.Contains(q.Note.String(), "could not be read")):
			t.Errorf("queue %s/%d on the frozen broker: after %v, note %q", q.BrokerName, q.QueueID, q.After, q.Note)
		}
	}
}

// With --max-heavy-queries 1, a second time-range search while one runs (slowed
// here by a frozen broker) is answered 503 with Retry-After at once; key searches
// and a range search after the first ended go through.
func TestHeavyQueriesCapped(t *testing.T) {
	cl := dev.RequirePrivateCluster(t)
	topic, _ := offlineGroupWithLag(t, cl, 2, 4)
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", cl.NameServer,
		"--timeout", partialTimeout.String(), "--max-heavy-queries", "1"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	now := time.Now()
	rangeURL := fmt.Sprintf("/api/v1/messages?topic=%s&begin=%d&end=%d", topic, now.Add(-time.Hour).UnixMilli(), now.Add(time.Minute).UnixMilli())
	if rec := grpServe(t, a, rangeURL); rec.Code != http.StatusOK {
		t.Fatalf("range search: %d %s", rec.Code, rec.Body)
	}

	frozen := cl.Brokers[0]
	if err := cl.Freeze(frozen.Name); err != nil {
		t.Fatal(err)
	}
	// Three at once: one takes the slot and waits for the frozen broker, the
	// others are refused straight away.
	recs := make([]*httptest.ResponseRecorder, 3)
	var wg sync.WaitGroup
	for i := range recs {
		wg.Go(func() { recs[i] = grpServe(t, a, rangeURL) })
	}
	keyRec := grpServe(t, a, "/api/v1/messages?topic="+topic+"&key=none")
	wg.Wait()
	if err := cl.Thaw(frozen.Name); err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, rec := range recs {
		switch rec.Code {
		case http.StatusOK:
			answered++
		case http.StatusServiceUnavailable:
			if rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `"busy"`) {
				t.Errorf("refused search: Retry-After %q, body %s", rec.Header().Get("Retry-After"), rec.Body)
			}
		default:
			t.Errorf("range search with %s frozen: %d %s", frozen.Name, rec.Code, rec.Body)
		}
	}
	if answered != 1 {
		t.Errorf("%d of 3 concurrent range searches ran, want 1 (--max-heavy-queries 1)", answered)
	}
	if keyRec.Code == http.StatusServiceUnavailable {
		t.Errorf("a key search was refused as heavy: %s", keyRec.Body)
	}
	if rec := grpServe(t, a, rangeURL); rec.Code != http.StatusOK {
		t.Errorf("range search after the first ended: %d %s", rec.Code, rec.Body)
	}
}
