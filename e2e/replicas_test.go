package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// A browser session against one of several consoles: its cookie, sent to any of them.
type replicaClient struct {
	t      *testing.T
	cookie *http.Cookie
}

func (c *replicaClient) do(method, u, body string) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	// As the console's page sends it with the session cookie.
	req.Header.Set("Origin", req.URL.Scheme+"://"+req.URL.Host)
	req.AddCookie(c.cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// signInOver signs name in on con through the sign-in form and returns its session.
func signInOver(t *testing.T, con *Console, name string) *replicaClient {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.PostForm(con.URL+"/login", url.Values{"name": {name}, "password": {e2ePassword}, "next": {"/"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for _, ck := range res.Cookies() {
		if ck.Name == "rmqc_session" && ck.Value != "" {
			return &replicaClient{t: t, cookie: ck}
		}
	}
	t.Fatalf("sign-in on %s: %d, no session cookie", con.URL, res.StatusCode)
	return nil
}

var leaderLine = regexp.MustCompile(`replica (\S+), (leader|follower; leader (\S+))`)

// leaderOf asks con's /readyz who leads ("" when its answer names none).
func leaderOf(t *testing.T, con *Console) (self, leader string) {
	t.Helper()
	res, err := http.Get(con.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	m := leaderLine.FindStringSubmatch(string(b))
	if m == nil {
		return "", ""
	}
	if m[2] == "leader" {
		return m[1], m[1]
	}
	return m[1], m[3]
}

// Two console processes on one PostgreSQL, against the real broker, act as one: a
// session made on one works on the other; concurrent resets of one group from both
// apply exactly once (the other is answered 409) and both land in one intact chain; a
// console killed in the middle of a reset has it marked interrupted by the other; a
// preview made on one is applied on the other; one console leads and records the lag
// history, once.
func TestTwoConsolesOnPostgresActAsOne(t *testing.T) {
	w := rsSetup(t)
	dsn := dev.RequirePostgres(t).NewDatabase(t)
	db := "RMQC_DB=" + dsn
	addUserTo(t, dsn, "alice", "operator")
	ns := "RMQC_NAMESRV=" + w.cl.NameServer
	a := StartConsole(t, ns, db, "RMQC_METRICS_INTERVAL=1s")
	b := StartConsole(t, ns, db, "RMQC_METRICS_INTERVAL=1s")
	cons := []*Console{a, b}

	// Signed in on a, the same browser is signed in on b.
	alice := signInOver(t, a, "alice")
	if st, body := alice.do(http.MethodGet, b.URL+"/api/v1/audit", ""); st != http.StatusOK {
		t.Fatalf("the session of a on b: %d %s", st, body)
	}

	// One leader, named alike by both.
	dev.Eventually(t, 30*time.Second, "one console leads", func() error {
		selfA, leadA := leaderOf(t, a)
		selfB, leadB := leaderOf(t, b)
		if leadA == "" || leadA != leadB || (leadA != selfA && leadA != selfB) || selfA == selfB {
			return fmt.Errorf("a (%s) says %q leads, b (%s) says %q", selfA, leadA, selfB, leadB)
		}
		return nil
	})

	// Each console previews, then both apply at once.
	req := `{"topic":"` + w.topic + `","mode":"earliest"`
	planIDs := make([]string, 2)
	for i, con := range cons {
		st, body := alice.do(http.MethodPost, con.URL+"/api/v1/groups/"+w.group+"/reset-preview", req+`}`)
		var p struct {
			PlanID string `json:"planId"`
		}
		if st != http.StatusOK || json.Unmarshal(body, &p) != nil || p.PlanID == "" {
			t.Fatalf("preview on console %d: %d %s", i, st, body)
		}
		planIDs[i] = p.PlanID
	}
	statuses := make([]int, 2)
	bodies := make([][]byte, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, con := range cons {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			statuses[i], bodies[i] = alice.do(http.MethodPost, con.URL+"/api/v1/groups/"+w.group+"/resets",
				req+`,"planId":"`+planIDs[i]+`","confirm":true}`)
		}()
	}
	close(start)
	wg.Wait()
	applied := -1
	for i, st := range statuses {
		switch st {
		case http.StatusOK:
			if applied >= 0 {
				t.Fatalf("both consoles applied the reset: %s / %s", bodies[0], bodies[1])
			}
			applied = i
		case http.StatusConflict:
		default:
			t.Fatalf("apply on console %d: %d %s", i, st, bodies[i])
		}
	}
	if applied < 0 {
		t.Fatalf("neither console applied: %d %s / %d %s", statuses[0], bodies[0], statuses[1], bodies[1])
	}
	var list struct{ Entries []rsEntry }
	_, body := alice.do(http.MethodGet, b.URL+"/api/v1/audit?group="+url.QueryEscape(w.group), "")
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range list.Entries {
		seen[e.Status]++
	}
	if seen["applied"] != 1 || seen["refused"] != 1 || len(list.Entries) != 2 {
		t.Fatalf("audit entries of the group: %v, want one applied and one refused", seen)
	}
	if got := w.mqadminOffsets(t); got[0] != 0 || got[1] != 0 {
		t.Fatalf("mqadmin shows %v after the reset to earliest", got)
	}

	// A third console, killed after writing its pending entry: a or b marks it.
	c := StartConsole(t, ns, db, "RMQC_TEST_PAUSE_AFTER_AUDIT=1")
	doomed := signInOver(t, c, "alice")
	st, body := doomed.do(http.MethodPost, c.URL+"/api/v1/groups/"+w.group+"/reset-preview", `{"topic":"`+w.topic+`","mode":"latest"}`)
	var p struct {
		PlanID string `json:"planId"`
	}
	if st != http.StatusOK || json.Unmarshal(body, &p) != nil {
		t.Fatalf("preview on the third console: %d %s", st, body)
	}
	go func() {
		// Blocks: the console pauses after the pending write until it is killed.
		req, _ := http.NewRequest(http.MethodPost, c.URL+"/api/v1/groups/"+w.group+"/resets",
			strings.NewReader(`{"topic":"`+w.topic+`","mode":"latest","planId":"`+p.PlanID+`","confirm":true}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", c.URL)
		req.AddCookie(doomed.cookie)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	var pendingID int64
	dev.Eventually(t, 30*time.Second, "the pending entry is written", func() error {
		var l struct{ Entries []rsEntry }
		_, body := alice.do(http.MethodGet, a.URL+"/api/v1/audit?status=pending&group="+url.QueryEscape(w.group), "")
		if err := json.Unmarshal(body, &l); err != nil || len(l.Entries) != 1 {
			return fmt.Errorf("pending entries: %s", body)
		}
		pendingID = l.Entries[0].ID
		return nil
	})
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 60*time.Second, "the killed console's reset is marked interrupted", func() error {
		var e rsEntry
		_, body := alice.do(http.MethodGet, b.URL+fmt.Sprintf("/api/v1/audit/%d", pendingID), "")
		if err := json.Unmarshal(body, &e); err != nil || e.Status != "interrupted" {
			return fmt.Errorf("entry %d: %s", pendingID, body)
		}
		return nil
	})

	// Previewed on one console, applied on the other.
	st, body = alice.do(http.MethodPost, a.URL+"/api/v1/groups/"+w.group+"/reset-preview", `{"topic":"`+w.topic+`","mode":"latest"}`)
	if st != http.StatusOK || json.Unmarshal(body, &p) != nil {
		t.Fatalf("preview on a: %d %s", st, body)
	}
	st, body = alice.do(http.MethodPost, b.URL+"/api/v1/groups/"+w.group+"/resets", `{"topic":"`+w.topic+`","mode":"latest","planId":"`+p.PlanID+`","confirm":true}`)
	var latest rsEntry
	if st != http.StatusOK || json.Unmarshal(body, &latest) != nil || latest.Status != "applied" {
		t.Fatalf("a's preview applied on b: %d %s", st, body)
	}

	// The lag history has one sample per collection, not one per console.
	dev.Eventually(t, 30*time.Second, "lag history recorded", func() error {
		var h struct {
			Samples []struct {
				At string `json:"at"`
			} `json:"samples"`
		}
		_, body := alice.do(http.MethodGet, a.URL+"/api/v1/groups/"+w.group+"/lag-history", "")
		if err := json.Unmarshal(body, &h); err != nil {
			return err
		}
		if len(h.Samples) < 5 {
			return fmt.Errorf("%d samples so far", len(h.Samples))
		}
		var prev time.Time
		for _, s := range h.Samples {
			at, err := time.Parse(time.RFC3339Nano, s.At)
			if err != nil {
				return err
			}
			if !prev.IsZero() && at.Sub(prev) < 500*time.Millisecond {
				t.Fatalf("two lag samples %s apart (%s, %s): both consoles record", at.Sub(prev), prev, at)
			}
			prev = at
		}
		return nil
	})

	// The chain is intact, checked while the consoles run.
	out, err := exec.Command(Binary(t), "audit", "verify", "--db", dsn).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("audit chain intact")) {
		t.Fatalf("audit verify: %v\n%s", err, out)
	}
}

// addUserTo runs the real `rmqconsole users add` against the database at dsn.
func addUserTo(t *testing.T, dsn, name, role string) {
	t.Helper()
	cmd := exec.Command(Binary(t), "users", "add", name, "--role", role)
	cmd.Env = append(os.Environ(), "RMQC_DB="+dsn)
	cmd.Stdin = strings.NewReader(e2ePassword + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Added user "+name) {
		t.Fatalf("users add %s: %v\n%s", name, err, out)
	}
}

// The live group view behind a load balancer that sends the page to one console and its
// websocket to another: the view connects, and a consumer joining shows up in place.
func TestLiveGroupViewWithPageAndWebsocketOnDifferentConsoles(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "e2e-ha-live", 2)
	group := dev.UniqueName("e2e-ha-live-cg")
	dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	db := "RMQC_DB=" + dev.RequirePostgres(t).NewDatabase(t)
	ns := "RMQC_NAMESRV=" + cl.NameServer
	pages := StartConsole(t, ns, db, "RMQC_GROUP_POLL=1s")
	sockets := StartConsole(t, ns, db, "RMQC_GROUP_POLL=1s")
	waitOnline(t, pages, group, 1)

	var mu sync.Mutex
	served := map[string]string{} // path → console URL
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := pages.URL
		if strings.HasPrefix(r.URL.Path, "/ws/") {
			target = sockets.URL
		}
		mu.Lock()
		served[r.URL.Path] = target
		mu.Unlock()
		u, _ := url.Parse(target)
		// The browser's Host stays as it sent it, as nginx's proxy_set_header Host does:
		// the consoles' same-origin checks compare it with Origin.
		(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host
		}}).ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)

	ctx := Browser(t)
	Do(t, ctx, "open the group page through the load balancer and wait for the live connection",
		chromedp.Navigate(lb.URL+"/groups/"+group),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="clients-table"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#live-indicator.live-on`)),
	)
	second := dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	Do(t, ctx, "see the new client appear",
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="clients-table"] tr[data-client$="@`+second.Instance+`"]`)))
	mu.Lock()
	defer mu.Unlock()
	if served["/groups/"+group] != pages.URL || served["/ws/groups/"+group] != sockets.URL {
		t.Fatalf("the load balancer did not split the page and its websocket: %v", served)
	}
}
