package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"rmqconsole/cluster"
	"rmqconsole/deadletters"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// plain is a service's sentence said as it is in every language, for the fakes' results.
func plain(s string) i18n.Text { return i18n.TextOf(i18n.Plain(s)) }

// Fakes behind the interfaces the group handlers own. What the real cluster answers is
// tested in package groups and server; here the handlers' own behaviour: statuses,
// shapes, forms, words.

type fakeGroups struct {
	list   *groups.List
	detail map[string]*groups.Detail
	err    error
	calls  int
	mu     sync.Mutex
}

func (f *fakeGroups) List(context.Context, bool) (*groups.List, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.list, f.err
}

func (f *fakeGroups) Lookup(_ context.Context, g string) (*groups.Detail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if d, ok := f.detail[g]; ok {
		return d, nil
	}
	if f.err != nil {
		return nil, f.err
	}
	return nil, groups.NotFound(g)
}

func (f *fakeGroups) Detail(ctx context.Context, g string) (*groups.Detail, error) {
	return f.Lookup(ctx, g)
}

type fakeHistory struct{ events []store.RebalanceEvent }

func (f *fakeHistory) RebalanceEvents(_ context.Context, g string, limit int, _ time.Time) ([]store.RebalanceEvent, error) {
	var out []store.RebalanceEvent
	for _, e := range f.events {
		if e.Group == g && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

// RebalanceDays sums the group's moves per UTC day, newest first, as the store does.
func (f *fakeHistory) RebalanceDays(_ context.Context, g string, since time.Time) ([]store.RebalanceDay, error) {
	var out []store.RebalanceDay
	for _, e := range f.events {
		if e.Group != g || e.Kind != "moved" || e.At.Before(since) {
			continue
		}
		day := e.At.UTC().Format(time.DateOnly)
		if len(out) == 0 || out[len(out)-1].Day != day {
			out = append(out, store.RebalanceDay{Day: day})
		}
		d := &out[len(out)-1]
		d.Moves++
		d.UnownedMs += e.UnownedMs
		if e.DuplicatesAtRisk == nil {
			d.UnknownMoves++
		} else {
			d.DuplicatesAtRisk += *e.DuplicatesAtRisk
		}
	}
	return out, nil
}

func i64(v int64) *int64 { return &v }

// sampleDetail is a group with one owned queue, one queue whose lag is unknown, and a
// failed broker.
func sampleDetail() *groups.Detail {
	return &groups.Detail{
		Group: "orders", Online: true, ConsumeType: "push", MessageModel: "CLUSTERING",
		Clients: []groups.Client{{ClientID: "10.0.0.5@c1", ClientAddr: "10.0.0.5:1234", Language: "GO", Version: "v2.1.1",
			Subscriptions: []groups.Subscription{{Topic: "T", Expression: "*"}}, Strategy: "AVG", Queues: 1}},
		Queues: []groups.QueueLag{
			{Topic: "T", BrokerName: "broker-a", QueueID: 0, BrokerOffset: i64(1500), ConsumerOffset: i64(500), Lag: i64(1000), Owner: "10.0.0.5@c1", LastTimestamp: 1_700_000_000_000},
			{Topic: "T", BrokerName: "broker-b", QueueID: 0, LagUnknown: plain("Broker broker-b did not answer: connection refused")},
		},
		Topics:       []groups.TopicSummary{{Topic: "T", Queues: 2, Lag: 1000, Unknown: 1, Owned: 1}},
		TotalLag:     i64(1000),
		TotalLagNote: plain("Leaves out 1 of 2 queues whose lag is unknown."),
		Failures:     []groups.BrokerFailure{{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "consume stats", Err: errors.New("connection refused")}},
		Assignment: groups.Assignment{Applicable: true, Strategy: "AVG", Unowned: 1, Queues: []groups.AssignedQueue{
			{Topic: "T", BrokerName: "broker-a", QueueID: 0, Expected: "10.0.0.5@c1", Actual: []string{"10.0.0.5@c1"}},
			{Topic: "T", BrokerName: "broker-b", QueueID: 0, Expected: "10.0.0.5@c1", Actual: []string{}, Problem: groups.ProblemUnowned},
		}, IdleClients: []string{}},
		CheckedAt: time.Unix(1_700_000_000, 0),
	}
}

func sampleList() *groups.List {
	return &groups.List{CheckedAt: time.Now().Add(-12 * time.Second), Took: 40 * time.Millisecond, Groups: []groups.Summary{
		{Group: "orders", Online: true, Clients: 2, ConsumeType: "push", MessageModel: "CLUSTERING", Topics: []string{"T"}, TotalLag: i64(1000), ConsumeTPS: 3.5},
		{Group: "billing", Topics: []string{}, LagNote: plain("No offsets are stored for this group yet.")},
		{Group: "TOOLS_CONSUMER", System: true, Topics: []string{}},
	}}
}

type groupRouter struct {
	*gin.Engine
	fg   *fakeGroups
	live *groups.Live
}

func newGroupRouter(t *testing.T, configured bool) *groupRouter {
	t.Helper()
	gin.SetMode(gin.TestMode)
	r := newEngine()
	env := &Env{Log: slog.New(slog.DiscardHandler)}
	fg := &fakeGroups{list: sampleList(), detail: map[string]*groups.Detail{"orders": sampleDetail()}}
	hist := &fakeHistory{events: []store.RebalanceEvent{{Group: "orders", At: time.Unix(1_700_000_000, 0), Kind: "joined", ClientID: "10.0.0.5@c1"}}}
	list := &GroupsList{Env: env}
	show := &GroupShow{Env: env, Events: hist}
	ws := &GroupLive{Env: env}
	gr := &groupRouter{Engine: r, fg: fg}
	if configured {
		gr.live = groups.NewLive(fg, groups.LiveOptions{Interval: 20 * time.Millisecond, Renderer: GroupFrames{}})
		t.Cleanup(gr.live.Close)
		list.Groups, show.Groups, show.Live, ws.Live = fg, fg, gr.live, gr.live
	}
	r.GET("/groups", list.Show)
	r.GET("/groups/:group", show.Show)
	r.GET("/api/v1/groups", list.API)
	r.GET("/api/v1/groups/:group", show.API)
	r.GET("/api/v1/groups/:group/rebalances", (&GroupRebalances{Env: env, Events: hist}).API)
	r.GET("/ws/groups/:group", ws.Serve)
	return gr
}

func (r *groupRouter) get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func apiError(t *testing.T, rec *httptest.ResponseRecorder) APIError {
	t.Helper()
	var e APIError
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" || e.Code == "" {
		t.Fatalf("not an API error (%v): %s", err, rec.Body.String())
	}
	return e
}

func doc(t *testing.T, rec *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGroupsAPIShapeHidesSystemGroupsUnlessAsked(t *testing.T) {
	r := newGroupRouter(t, true)
	rec := r.get(t, "/api/v1/groups")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var got struct {
		Groups []struct {
			Group       string   `json:"group"`
			Online      bool     `json:"online"`
			Clients     int      `json:"clients"`
			ConsumeType string   `json:"consumeType"`
			Topics      []string `json:"topics"`
			TotalLag    *int64   `json:"totalLag"`
			LagNote     string   `json:"lagNote"`
			ConsumeTPS  float64  `json:"consumeTps"`
		} `json:"groups"`
		Total     int       `json:"total"`
		All       int       `json:"all"`
		CheckedAt time.Time `json:"checkedAt"`
		Age       float64   `json:"ageSeconds"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 2 || got.Total != 2 || got.All != 3 || got.Age < 11 {
		t.Fatalf("%d groups, total %d of %d, age %.1f s: want the two application groups of three, about 12 s old", len(got.Groups), got.Total, got.All, got.Age)
	}
	b := got.Groups[0]
	if b.Group != "billing" || b.TotalLag != nil || !strings.Contains(b.LagNote, "No offsets") {
		t.Errorf("billing %+v: lag must be null with the reason", b)
	}
	if o := got.Groups[1]; o.TotalLag == nil || *o.TotalLag != 1000 || o.ConsumeType != "push" || o.Clients != 2 {
		t.Errorf("orders %+v", o)
	}
	if !strings.Contains(r.get(t, "/api/v1/groups?system=1").Body.String(), "TOOLS_CONSUMER") {
		t.Error("system=1 does not include the system groups")
	}
	rec = r.get(t, "/api/v1/groups?sort=size")
	if e := apiError(t, rec); rec.Code != 400 || e.Code != "bad_sort" || !strings.Contains(e.Error, "lag") {
		t.Errorf("bad sort: %d %+v, want 400 naming the sort keys", rec.Code, e)
	}
	if r.fg.calls != 2 {
		t.Errorf("%d list reads: a bad sort must not reach the service", r.fg.calls)
	}
}

func TestGroupsPageShowsUnknownLagAndKeepsTheFormOnBadInput(t *testing.T) {
	r := newGroupRouter(t, true)
	rec := r.get(t, "/groups?q=bill")
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	d := doc(t, rec)
	rows := d.Find(`[data-testid="groups-table"] tbody tr`)
	if rows.Length() != 1 {
		t.Fatalf("%d rows for filter bill, want 1", rows.Length())
	}
	lag := strings.Join(strings.Fields(rows.Find(`[data-testid="group-lag"]`).Text()), " ")
	if !strings.HasPrefix(lag, "unknown") || !strings.Contains(lag, "No offsets") || strings.Contains(lag, "-1") {
		t.Errorf("lag cell %q: want unknown and why", lag)
	}
	if href, _ := rows.Find("a").First().Attr("href"); href != "/groups/billing" {
		t.Errorf("group link %q", href)
	}
	if got := d.Find(`[data-testid="groups-checked-at"]`).Length(); got != 1 {
		t.Error("the list does not say when it was read")
	}
	if !strings.Contains(d.Find(`[data-testid="groups-count"]`).Text(), "1 system groups hidden") {
		t.Errorf("count %q does not say system groups are hidden", d.Find(`[data-testid="groups-count"]`).Text())
	}

	rec = r.get(t, "/groups?q=ord&sort=size")
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("bad sort: status %d, want 422", rec.Code)
	}
	d = doc(t, rec)
	if v, _ := d.Find("#groups-q").Attr("value"); v != "ord" {
		t.Errorf("the filter the user typed was lost: %q", v)
	}
	if msg := d.Find(`[data-testid="groups-form-error"]`).Text(); !strings.Contains(msg, "Cannot sort by") {
		t.Errorf("error %q", msg)
	}
}

func TestGroupPageHasRowsResetLinkAndLiveSocket(t *testing.T) {
	r := newGroupRouter(t, true)
	rec := r.get(t, "/groups/orders")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	d := doc(t, rec)
	if href, _ := d.Find(`[data-testid="reset-link"]`).Attr("href"); href != "/groups/orders/reset" {
		t.Errorf("reset link %q", href)
	}
	if ws, _ := d.Find(`[data-testid="group-live"]`).Attr("ws-connect"); ws != "/ws/groups/orders" {
		t.Errorf("ws-connect %q", ws)
	}
	rows := d.Find(`#queues-body tr[data-testid="queue-row"]`)
	if rows.Length() != 2 {
		t.Fatalf("%d queue rows, want 2", rows.Length())
	}
	first := strings.Join(strings.Fields(rows.Eq(0).Text()), " ")
	for _, want := range []string{"1,500", "500", "1,000", "10.0.0.5@c1"} {
		if !strings.Contains(first, want) {
			t.Errorf("row %q lacks %q", first, want)
		}
	}
	second := rows.Eq(1).Find(`[data-testid="queue-lag"]`).Text()
	if !strings.Contains(second, "unknown") || !strings.Contains(second, "broker-b did not answer") {
		t.Errorf("unknown lag cell %q", second)
	}
	if f := d.Find(`[data-testid="group-failure"]`).Text(); !strings.Contains(f, "broker-b") || !strings.Contains(f, "connection refused") {
		t.Errorf("failure banner %q does not name the broker and the error", f)
	}
	if p, _ := d.Find(`[data-testid="assignment-table"] tr[data-problem="unowned"]`).Attr("data-problem"); p != "unowned" {
		t.Error("the unowned queue is not marked in the assignment table")
	}
	if ev := d.Find(`[data-testid="timeline-event"]`).Text(); !strings.Contains(ev, "10.0.0.5@c1 joined") {
		t.Errorf("timeline %q lacks the stored event", ev)
	}
}

// Offsets read from a slave are said on the group page and in its API.
func TestGroupPageSaysWhichBrokersOffsetsCameFromASlave(t *testing.T) {
	r := newGroupRouter(t, true)
	d := sampleDetail()
	d.FromSlaves = []cluster.SlaveRead{{Broker: "broker-b", Master: "10.0.0.2:10911", Slave: "10.0.0.12:10911", Waited: 3 * time.Second}}
	r.fg.mu.Lock()
	r.fg.detail["orders"] = d
	r.fg.mu.Unlock()
	got := doc(t, r.get(t, "/groups/orders")).Find(`[data-testid="from-slave"]`).Text()
	for _, want := range []string{"Broker broker-b's master 10.0.0.2:10911 did not answer", "its offsets and lag come from its slave 10.0.0.12:10911"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page says %q, want %q", got, want)
		}
	}
	if body := r.get(t, "/api/v1/groups/orders").Body.String(); !strings.Contains(body, `"fromSlaves":[{"broker":"broker-b"`) {
		t.Errorf("the API does not name the slave read: %.300s", body)
	}
}

// A group whose clients no broker listed (every connection list refused or failed)
// reads as unknown, not offline; a group the brokers say has no client reads offline.
func TestGroupPageSaysClientsUnknownWhenNoBrokerListedThem(t *testing.T) {
	r := newGroupRouter(t, true)
	d := sampleDetail()
	d.Online, d.Clients, d.ClientsUnknown = false, []groups.Client{}, true // as the service says it: a list, empty
	r.fg.mu.Lock()
	r.fg.detail["orders"] = d
	r.fg.mu.Unlock()
	page := doc(t, r.get(t, "/groups/orders"))
	if got := page.Find(`[data-testid="group-online"]`).Text(); !strings.Contains(got, "unknown") || strings.Contains(got, "offline") {
		t.Errorf("clients card %q, want unknown", got)
	}
	if page.Find(`[data-testid="clients-unlisted"]`).Length() != 1 || page.Find(`[data-testid="no-clients"]`).Length() != 0 {
		t.Errorf("clients section: %s", page.Find(`[data-testid="group-clients"]`).Text())
	}
	if body := r.get(t, "/api/v1/groups/orders").Body.String(); !strings.Contains(body, `"clientsUnknown":true`) {
		t.Errorf("the API does not say the clients are unknown: %.300s", body)
	}

	d2 := sampleDetail()
	d2.Online, d2.Clients = false, nil
	r.fg.mu.Lock()
	r.fg.detail["orders"] = d2
	r.fg.mu.Unlock()
	page = doc(t, r.get(t, "/groups/orders"))
	if got := page.Find(`[data-testid="group-online"]`).Text(); !strings.Contains(got, "offline") {
		t.Errorf("clients card %q for a group the brokers list no client of, want offline", got)
	}
}

// A POP group's queues have no owner by design: they read "– (POP)", not "none", which
// on other groups means a queue nobody consumes.
func TestPOPGroupQueuesReadNoOwnerByDesign(t *testing.T) {
	r := newGroupRouter(t, true)
	d := sampleDetail()
	d.Pop = &groups.PopProgress{Ready: 4}
	r.fg.mu.Lock()
	r.fg.detail["orders"] = d
	r.fg.mu.Unlock()
	owners := doc(t, r.get(t, "/groups/orders")).Find(`#queues-body td[data-testid="queue-owner"]`)
	if got := owners.Eq(1).Text(); !strings.Contains(got, "(POP)") || strings.Contains(got, "none") {
		t.Errorf("the unowned queue of a POP group reads %q", got)
	}
	d.Pop = nil
	owners = doc(t, r.get(t, "/groups/orders")).Find(`#queues-body td[data-testid="queue-owner"]`)
	if got := owners.Eq(1).Text(); !strings.Contains(got, "none") {
		t.Errorf("the unowned queue of a push group reads %q", got)
	}
}

// A queue that no reporting client holds, while another client did not report, reads
// "unknown", not "none": it may well be owned.
func TestGroupPageSaysOwnerUnknownWhenAClientDidNotReport(t *testing.T) {
	r := newGroupRouter(t, true)
	d := sampleDetail()
	d.Queues[1].OwnerUnknown = true
	d.Topics[0].OwnerUnknown = 1
	d.Assignment.Unowned, d.Assignment.OwnerUnknown = 0, 1
	d.Assignment.Queues[1].Problem = groups.ProblemUnknown
	r.fg.detail["orders"] = d
	rec := r.get(t, "/groups/orders")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	page := doc(t, rec)
	owners := page.Find(`#queues-body td[data-testid="queue-owner"]`)
	if got := strings.TrimSpace(owners.Eq(1).Text()); got != "unknown" {
		t.Errorf("owner cell of the unreported queue reads %q, want unknown", got)
	}
	if s := strings.Join(strings.Fields(page.Find(`[data-testid="assignment-summary"]`).Text()), " "); !strings.Contains(s, "0 without owner") || !strings.Contains(s, "1 with an unknown owner") {
		t.Errorf("assignment summary %q", s)
	}
	if got := strings.TrimSpace(page.Find(`[data-testid="assignment-table"] tr[data-problem="owner-unknown"] td`).Eq(5).Text()); got != "owner unknown" {
		t.Errorf("assignment row state %q, want owner unknown", got)
	}
}

func TestGroupAPIShapeAndErrors(t *testing.T) {
	r := newGroupRouter(t, true)
	rec := r.get(t, "/api/v1/groups/orders")
	var got struct {
		Group   string `json:"group"`
		Online  bool   `json:"online"`
		Clients []struct {
			ClientID, ClientAddr, Language, Version string
		} `json:"clients"`
		Queues []struct {
			Topic          string `json:"topic"`
			BrokerName     string `json:"brokerName"`
			QueueID        *int   `json:"queueId"`
			BrokerOffset   *int64 `json:"brokerOffset"`
			ConsumerOffset *int64 `json:"consumerOffset"`
			Lag            *int64 `json:"lag"`
			LagUnknown     string `json:"lagUnknown"`
			Owner          string `json:"owner"`
			LastTimestamp  int64  `json:"lastTimestamp"`
		} `json:"queues"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 {
		t.Fatalf("%d %v: %s", rec.Code, err, rec.Body)
	}
	if got.Group != "orders" || !got.Online || len(got.Clients) != 1 || got.Clients[0].ClientID != "10.0.0.5@c1" || got.Clients[0].Language != "GO" {
		t.Errorf("group %+v", got)
	}
	q := got.Queues[1]
	if len(got.Queues) != 2 || got.Queues[0].Lag == nil || *got.Queues[0].Lag != 1000 || got.Queues[0].QueueID == nil {
		t.Errorf("queue 0 %+v", got.Queues[0])
	}
	if q.Lag != nil || q.LagUnknown == "" || q.BrokerOffset != nil || q.Owner != "" {
		t.Errorf("unknown queue %+v: lag and offsets null, the reason given, owner empty", q)
	}

	rec = r.get(t, "/api/v1/groups/nope")
	if e := apiError(t, rec); rec.Code != 404 || e.Code != "group_not_found" || !strings.Contains(e.Error, "nope") {
		t.Errorf("unknown group: %d %+v", rec.Code, e)
	}
	calls := r.fg.calls
	rec = r.get(t, "/api/v1/groups/bad%20name")
	if e := apiError(t, rec); rec.Code != 400 || e.Code != "bad_group" {
		t.Errorf("bad name: %d %+v", rec.Code, e)
	}
	if r.get(t, "/groups/a$b").Code != 400 || r.fg.calls != calls {
		t.Error("a bad group name reached the service")
	}
	r.fg.err = fmt.Errorf("no NameServer answered (127.0.0.1:9876): %w", &rocketmq.ConnError{Addr: "127.0.0.1:9876", Err: syscall.ECONNREFUSED})
	rec = r.get(t, "/api/v1/groups/other")
	if e := apiError(t, rec); rec.Code != 502 || !strings.Contains(e.Error, "no NameServer answered") {
		t.Errorf("cluster down: %d %+v, want 502 saying why", rec.Code, e)
	}
}

func TestRebalancesAPI(t *testing.T) {
	r := newGroupRouter(t, true)
	rec := r.get(t, "/api/v1/groups/orders/rebalances?limit=5")
	var got struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 || len(got.Events) != 1 {
		t.Fatalf("%d %v %s", rec.Code, err, rec.Body)
	}
	for _, k := range []string{"at", "kind", "clientId", "topic", "brokerName", "queueId", "from", "to"} {
		if _, ok := got.Events[0][k]; !ok {
			t.Errorf("event lacks %q: %v", k, got.Events[0])
		}
	}
	for _, bad := range []string{"limit=0", "limit=1001", "limit=x", "before=yesterday"} {
		rec := r.get(t, "/api/v1/groups/orders/rebalances?"+bad)
		if rec.Code != 400 {
			t.Errorf("%s: status %d, want 400", bad, rec.Code)
		}
	}
}

func TestWithoutClusterGroupsSayWhatToDo(t *testing.T) {
	r := newGroupRouter(t, false)
	rec := r.get(t, "/groups")
	if rec.Code != 200 || doc(t, rec).Find(`[data-testid="no-cluster"]`).Length() != 1 {
		t.Errorf("/groups without a cluster: %d, want the no-cluster state", rec.Code)
	}
	rec = r.get(t, "/api/v1/groups")
	if e := apiError(t, rec); rec.Code != 503 || e.Code != "no_cluster" {
		t.Errorf("API without a cluster: %d %+v", rec.Code, e)
	}
	if rec := r.get(t, "/groups/orders"); rec.Code != 200 || doc(t, rec).Find(`[data-testid="no-cluster"]`).Length() != 1 {
		t.Errorf("group page without a cluster: %d", rec.Code)
	}
}

func TestGroupWebsocketSendsTheFullFrameAndRefusesOtherOrigins(t *testing.T) {
	r := newGroupRouter(t, true)
	srv := httptest.NewServer(r)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/groups/orders"

	_, res, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {"https://evil.example"}})
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("a page of another origin opened the socket (%v, %v)", err, res)
	}

	conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	// The full frame: everything but the rows, then the table body in a message of its
	// own. Each is parsed as htmx parses a message (inside a template), and every part
	// must survive the parse with its id and out-of-band swap.
	for _, ids := range [][]string{
		{"group-summary", "group-clients", "group-topics", "group-assignment", "timeline", "lag-chart-data"},
		{"queues-body"},
	} {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		d := parseAsHTMX(t, msg)
		for _, id := range ids {
			el := d.Find("#" + id)
			if oob, _ := el.Attr("hx-swap-oob"); el.Length() != 1 || oob != "true" {
				t.Errorf("full frame: #%s missing or not an out-of-band swap in\n%.300s", id, msg)
			}
		}
		if ids[0] == "queues-body" && d.Find(`#queues-body tr[data-testid="queue-row"]`).Length() != 2 {
			t.Errorf("the table body message does not parse into 2 rows:\n%.300s", msg)
		}
	}
	// The next frame is a delta: nothing changed, so no rows, only the header and a point.
	_, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(msg); strings.Contains(s, `id="queues-body"`) || strings.Contains(s, "queue-row") || !strings.Contains(s, `id="group-summary"`) {
		t.Errorf("a frame without changes re-sent rows:\n%.400s", s)
	}
	if st := r.live.Stats(); st.Viewers != 1 {
		t.Errorf("stats %+v", st)
	}
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for r.live.Stats().Viewers != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the closed socket's viewer was not removed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// parseAsHTMX parses a websocket message the way htmx does: inside a template element,
// where table rows parse as rows only when they start the message.
func parseAsHTMX(t *testing.T, msg []byte) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader("<body><template>" + string(msg) + "</template></body>"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestChangedRowsTravelAloneAndParseAsRows(t *testing.T) {
	d := sampleDetail()
	u := &groups.Update{Detail: d, History: &groups.History{}, ChangedQueues: []rocketmq.MessageQueue{d.Queues[1].Queue()}}
	f, err := GroupFrames{}.Render(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 2 {
		t.Fatalf("%d messages, want the header and the changed row", len(f))
	}
	rows := parseAsHTMX(t, f[1]).Find(`tr[data-testid="queue-row"]`)
	if rows.Length() != 1 {
		t.Fatalf("changed-row message parses into %d rows:\n%s", rows.Length(), f[1])
	}
	if id, _ := rows.Attr("id"); id != QueueDOMID(d.Queues[1].Queue()) {
		t.Errorf("row id %q, want the queue's stable id", id)
	}
	if oob, _ := rows.Attr("hx-swap-oob"); oob != "true" {
		t.Error("the changed row is not an out-of-band swap")
	}
	if strings.Contains(string(f[0]), "queue-row") {
		t.Error("rows also travel in the first message, where they would not parse")
	}
}

// A name too long to be a group is refused without repeating it whole: the page, its
// title and the API's sentence show only its beginning.
func TestLongGroupNameIsCutWhenEchoed(t *testing.T) {
	long := strings.Repeat("g", 5000)
	r := newGroupRouter(t, true)
	for _, path := range []string{"/groups/" + long, "/api/v1/groups/" + long} {
		rec := r.get(t, path)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s…: %d, want 400", path[:12], rec.Code)
		}
		if strings.Contains(rec.Body.String(), strings.Repeat("g", 300)) {
			t.Errorf("%s…: the answer repeats the 5000-character name", path[:12])
		}
	}
	rs := rsRouter(&rsFake{}, nil)
	w := rsDo(t, rs, http.MethodGet, "/groups/"+long+"/reset", "", "")
	if text := rsDoc(t, w).Text(); strings.Contains(text, strings.Repeat("g", 300)) {
		t.Errorf("the reset page repeats the 5000-character name in its text")
	}
}

// Equal queues get the same word: a few messages of jitter is not growth, whichever
// sample a queue's window happens to start on; a backlog that keeps rising is.
func TestGrowingMeansARealRise(t *testing.T) {
	equal := [][]float64{
		{12, 13, 12, 13, 12, 13, 13},
		{13, 12, 13, 12, 13, 12, 12},
		{12, 12, 13, 13, 12, 12, 13},
		{13, 13, 12, 12, 13, 13, 12},
	}
	for _, q := range equal {
		if lagGrowing(q) {
			t.Errorf("jitter %v is called growing", q)
		}
	}
	if !lagGrowing([]float64{0, 5, 10, 15, 20, 25, 30, 35, 40}) {
		t.Error("a steadily rising backlog is not called growing")
	}
	if lagGrowing([]float64{math.NaN(), 7}) {
		t.Error("two samples, one unknown, are called growing")
	}
}

// On a 4.x cluster the group page and the group list say that gRPC clients, the Proxy
// and POP need RocketMQ 5.x, as the service found from the brokers' version; on 5.x
// they say nothing of it.
func TestGroupPagesSayPOPAndGRPCNeed5xOn4x(t *testing.T) {
	const needs = "gRPC clients, the RocketMQ Proxy and POP consumption need RocketMQ 5.x; this cluster's brokers run 4.9.7"
	r := newGroupRouter(t, true)
	d := sampleDetail()
	d.Needs5x = plain(needs)
	r.fg.mu.Lock()
	r.fg.detail["orders"] = d
	r.fg.list.Needs5x = plain(needs)
	r.fg.mu.Unlock()
	if got := doc(t, r.get(t, "/groups/orders")).Find(`[data-testid="needs-5x"]`).Text(); !strings.Contains(got, needs) {
		t.Errorf("group page says %q, want %q", got, needs)
	}
	if got := doc(t, r.get(t, "/groups")).Find(`[data-testid="needs-5x"]`).Text(); !strings.Contains(got, needs) {
		t.Errorf("group list says %q, want %q", got, needs)
	}
	if body := r.get(t, "/api/v1/groups/orders").Body.String(); !strings.Contains(body, `"needs5x":"gRPC clients`) {
		t.Errorf("the API does not say it: %.300s", body)
	}

	r2 := newGroupRouter(t, true)
	if n := doc(t, r2.get(t, "/groups/orders")).Find(`[data-testid="needs-5x"]`).Length(); n != 0 {
		t.Errorf("a 5.x group page says it needs 5.x")
	}
}

// fakeDeadLetters answers a group's retry and dead-letter topics.
type fakeDeadLetters struct{ topics *deadletters.GroupTopics }

func (f fakeDeadLetters) Topics(context.Context, string) (*deadletters.GroupTopics, error) {
	return f.topics, nil
}

func (f fakeDeadLetters) PopRetryTopics(_ context.Context, group string, topics []string) ([]deadletters.TopicCount, error) {
	var out []deadletters.TopicCount
	for _, t := range topics {
		out = append(out, deadletters.TopicCount{Topic: rocketmq.PopRetryTopicV1(group, t)})
	}
	return out, nil
}

// A group page no broker answered for (a user without rights on the group) says its
// retry and dead-letter topics are unknown, not "not created yet" (the broker refused,
// it did not say the group never consumed), and shows no count where no broker counted.
func TestRefusedGroupPageSaysRetryTopicsAndAssignmentUnknown(t *testing.T) {
	refused := groups.BrokerFailure{Broker: "broker-a", Addr: "10.0.0.1:10911", Op: "connections", Err: errors.New("no permission for Group:orders")}
	for _, unanswered := range []bool{true, false} {
		r := newGroupRouter(t, true)
		d := sampleDetail()
		d.Online, d.Clients, d.ClientsUnknown = false, []groups.Client{}, unanswered
		d.Failures = []groups.BrokerFailure{refused}
		show := &GroupShow{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Groups: r.fg, DeadLetters: fakeDeadLetters{&deadletters.GroupTopics{
			Retry: deadletters.TopicCount{Topic: "%RETRY%orders", Exists: true, Failures: []cluster.BrokerFailure{refused}},
			DLQ:   deadletters.TopicCount{Topic: "%DLQ%orders"},
		}}}
		r.fg.mu.Lock()
		r.fg.detail["refused"] = d
		r.fg.mu.Unlock()
		r.GET("/refused/:group", show.Show)
		page := doc(t, r.get(t, "/refused/refused"))
		stored := page.Find(`[data-topic="%RETRY%orders"] [data-testid="retry-topic-stored"]`).Text()
		if strings.TrimSpace(stored) != "unknown" {
			t.Errorf("retry topic whose every broker refused reads %q, want unknown", stored)
		}
		missing := page.Find(`[data-topic="%DLQ%orders"] [data-testid="retry-topic-missing"]`).Text()
		if unanswered == strings.Contains(missing, "not created yet") || unanswered != strings.Contains(missing, "unknown") {
			t.Errorf("unanswered %v: DLQ row reads %q", unanswered, missing)
		}
	}
}

// When some groups' lag counts max offsets kept from an earlier pass, the group list
// says how many and since when, and the API gives each one's maxOffsetsAt; otherwise
// it says nothing of it.
func TestGroupListSaysWhenLagCountsKeptMaxOffsets(t *testing.T) {
	r := newGroupRouter(t, true)
	if n := doc(t, r.get(t, "/groups")).Find(`[data-testid="groups-max-offsets"]`).Length(); n != 0 {
		t.Fatalf("%d sentences on kept max offsets where no lag counts any", n)
	}
	at := time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC)
	r.fg.mu.Lock()
	for i := range r.fg.list.Groups[:2] {
		r.fg.list.Groups[i].MaxOffsetsAt = &at
	}
	r.fg.mu.Unlock()
	got := doc(t, r.get(t, "/groups")).Find(`[data-testid="groups-max-offsets"]`).Text()
	if !strings.Contains(got, "The lag of 2 groups counts max offsets kept from earlier reads, the oldest read 2026-12-07 09:30:00") || !strings.Contains(got, "A group's own page reads them afresh") {
		t.Errorf("the list says %q", got)
	}
	if body := r.get(t, "/api/v1/groups").Body.String(); !strings.Contains(body, `"maxOffsetsAt":"2026-12-07T09:30:00Z"`) {
		t.Errorf("the API does not give maxOffsetsAt: %.300s", body)
	}
}
