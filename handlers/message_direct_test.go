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
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/cluster/clustertest"
	"rmqconsole/lookup"
	"rmqconsole/paging"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// directClient stands in for the client a broker relays to: it answers what it is
// told, and counts what it was asked.
type directClient struct {
	answer *rocketmq.ConsumeMessageDirectlyResult
	err    error
	asked  []string
}

func (d *directClient) ConsumeMessageDirectly(_ context.Context, addr, group, clientID, offsetMsgID, _ string) (*rocketmq.ConsumeMessageDirectlyResult, error) {
	d.asked = append(d.asked, addr+" "+group+" "+clientID+" "+offsetMsgID)
	return d.answer, d.err
}

// directRouter serves a message's page and its consume-again routes over two messages of
// topic T, consumed by gs (by default group g with one client), and answers the first
// message.
func directRouter(t *testing.T, role auth.Role, dc *directClient, gs ...*clustertest.Group) (*gin.Engine, *store.Store, lookup.Message) {
	t.Helper()
	f := msgFake(2)
	if len(gs) == 0 {
		gs = []*clustertest.Group{{Name: "g", Topics: []string{"T"}, Clients: []clustertest.Client{{ID: "10.0.0.9@one"}}}}
	}
	for _, g := range gs {
		f.AddGroup(g)
	}
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "rmqconsole.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := lookup.New(f, lookup.Options{Direct: dc, Audit: st.Audit(), ClusterName: "ns:9876"})
	res, err := svc.ByRange(t.Context(), lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0})
	if err != nil || len(res.Messages) != 1 {
		t.Fatal(err)
	}
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	r.Use(func(c *gin.Context) { c.Set(RoleKey, role); c.Set(ActorKey, "otto") })
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Lookup: svc}
	r.GET("/messages/:id", h.Show)
	r.POST("/messages/:id/consume-directly", h.ConsumeDirectly)
	r.POST("/api/v1/messages/:id/consume-directly", h.ConsumeDirectlyAPI)
	return r, st, res.Messages[0]
}

func directPost(h http.Handler, target, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// The page lists the group's online client with a button for an operator, and shows
// the client's answer after it is asked.
func TestConsumeAgainPageListsClientsAndShowsTheAnswer(t *testing.T) {
	dc := &directClient{answer: &rocketmq.ConsumeMessageDirectlyResult{ConsumeResult: "CR_LATER", Remark: "busy", SpentTimeMills: 1234, AutoCommit: true}}
	r, st, m := directRouter(t, auth.Operator, dc)
	doc := msgDoc(t, msgGet(t, r, "/messages/"+m.OffsetMsgID()))
	row := doc.Find(`[data-testid="consume-again-clients"] tr[data-client="10.0.0.9@one"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "4.5.2 protocol") || row.Find(`[data-testid="consume-again-button"]`).Length() != 1 {
		t.Fatalf("client row %q", row.Text())
	}
	rec := directPost(r, "/messages/"+m.OffsetMsgID()+"/consume-directly", "application/x-www-form-urlencoded",
		url.Values{"group": {"g"}, "clientId": {"10.0.0.9@one"}, "topic": {"T"}}.Encode())
	doc = msgDoc(t, rec)
	if rec.Code != http.StatusOK || doc.Find(`[data-testid="consume-again-result"]`).Text() != "CR_LATER" ||
		!strings.Contains(doc.Find(`[data-testid="consume-again-outcome"]`).Text(), "later") ||
		doc.Find(`[data-testid="consume-again-spent"]`).Text() != "1,234 ms" || doc.Find(`[data-testid="consume-again-remark"]`).Text() != "busy" {
		t.Errorf("answer shown: %d %q", rec.Code, doc.Find(`[data-testid="consume-again-answer"]`).Text())
	}
	entries, _, err := st.Audit().List(t.Context(), store.AuditFilter{})
	if err != nil || len(entries) != 1 || entries[0].Status != store.AuditFailed || entries[0].Actor != "otto" || entries[0].Mode != lookup.ModeConsumeDirectly {
		t.Errorf("audit %+v %v: want one failed entry by otto", entries, err)
	}

	// A viewer sees the client but no button.
	r, _, m = directRouter(t, auth.Viewer, dc)
	doc = msgDoc(t, msgGet(t, r, "/messages/"+m.OffsetMsgID()))
	if doc.Find(`[data-testid="consume-again-clients"] tr[data-client]`).Length() != 1 || doc.Find(`[data-testid="consume-again-button"]`).Length() != 0 {
		t.Errorf("viewer's page offers a button or hides the client")
	}
}

// A client that gives no answer is a gateway failure that still says which client and
// names the audit entry, recorded as failed; a refusal sends nothing and writes nothing.
func TestConsumeDirectlyAPIWithoutAnAnswer(t *testing.T) {
	dc := &directClient{err: &rocketmq.TimeoutError{Addr: "10.0.0.1:10911"}}
	r, st, m := directRouter(t, auth.Operator, dc)
	api := "/api/v1/messages/" + m.OffsetMsgID() + "/consume-directly"
	rec := directPost(r, api, "application/json", `{"group":"g","clientId":"10.0.0.9@one"}`)
	var j DirectAnswerJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || rec.Code != http.StatusGatewayTimeout || j.Consumed ||
		j.ClientID != "10.0.0.9@one" || j.AuditID == 0 || j.AuditStatus != "failed" || j.Error == "" || j.Code != "broker_timeout" {
		t.Errorf("no answer: %d %s", rec.Code, rec.Body)
	}
	for _, c := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"group":"g","clientId":"10.0.0.9@two"}`, 409, "client_not_in_group"},
		{`{"group":"nobody","clientId":"10.0.0.9@one"}`, 409, "group_offline"},
		{`{"group":"g"}`, 400, "missing_client"},
		{`{"group":"g r","clientId":"x"}`, 400, "bad_group"},
		{`not json`, 400, "bad_request"},
	} {
		rec := directPost(r, api, "application/json", c.body)
		var e APIError
		if json.Unmarshal(rec.Body.Bytes(), &e) != nil || rec.Code != c.status || e.Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.body, rec.Code, rec.Body, c.status, c.code)
		}
	}
	if len(dc.asked) != 1 {
		t.Errorf("the client was asked %d times, want once: %v", len(dc.asked), dc.asked)
	}
	entries, _, _ := st.Audit().List(t.Context(), store.AuditFilter{})
	if len(entries) != 1 {
		t.Errorf("%d audit entries, want 1", len(entries))
	}
}

// A topic consumed by more groups and clients than a page lists: the first clients are
// rows, the others are named in a form of their own that reaches any of them, and the
// reset's group is typed with the first groups suggested.
func TestConsumeAgainAndResetPastAPageOfGroups(t *testing.T) {
	dc := &directClient{answer: &rocketmq.ConsumeMessageDirectlyResult{ConsumeResult: "CR_SUCCESS"}}
	const n = 60
	var gs []*clustertest.Group
	for i := range n {
		gs = append(gs, &clustertest.Group{Name: fmt.Sprintf("g-%03d", i), Topics: []string{"T"},
			Clients: []clustertest.Client{{ID: fmt.Sprintf("10.0.0.9@c%03d", i)}, {ID: fmt.Sprintf("10.0.0.8@c%03d", i)}},
			Offsets: map[rocketmq.MessageQueue]int64{{Topic: "T", BrokerName: "broker-a", QueueID: 0}: 0}})
	}
	r, _, m := directRouter(t, auth.Operator, dc, gs...)

	doc := msgDoc(t, msgGet(t, r, "/messages/"+m.OffsetMsgID()))
	if rows := doc.Find(`[data-testid="consume-again-clients"] tr[data-client]`).Length(); rows != paging.DefaultLimit {
		t.Errorf("%d client rows, want the first %d", rows, paging.DefaultLimit)
	}
	// The read lists the clients of its first groups alone (lookup's bound): 2 clients
	// each of those, past the rows, and the groups it did not list are named.
	listed := lookup.DefaultClientLookups
	if others := doc.Find(`[data-testid="consume-again-others"]`).Text(); !strings.Contains(others, fmt.Sprintf("%d more clients, and the clients of %d groups", 2*listed-paging.DefaultLimit, n-listed)) {
		t.Errorf("others sentence %q", others)
	}
	if doc.Find(`[data-testid="consume-again-other-form"] input[name="clientId"]`).Length() != 1 {
		t.Error("no form naming another client")
	}
	if doc.Find(`[data-testid="reset-group-select"]`).Length() != 0 || doc.Find(`[data-testid="reset-group-input"]`).Length() != 1 ||
		doc.Find(`datalist#reset-groups option`).Length() != paging.DefaultLimit || !strings.Contains(doc.Find(`[data-testid="reset-groups-note"]`).Text(), "60 groups") {
		t.Errorf("reset's group: select %d, input %d, suggestions %d, note %q", doc.Find(`[data-testid="reset-group-select"]`).Length(),
			doc.Find(`[data-testid="reset-group-input"]`).Length(), doc.Find(`datalist#reset-groups option`).Length(), doc.Find(`[data-testid="reset-groups-note"]`).Text())
	}
	// The last client, past the rows, through the form.
	rec := directPost(r, "/messages/"+m.OffsetMsgID()+"/consume-directly", "application/x-www-form-urlencoded",
		url.Values{"group": {"g-059"}, "clientId": {"10.0.0.9@c059"}, "topic": {"T"}}.Encode())
	if rec.Code != http.StatusOK || len(dc.asked) != 1 || !strings.Contains(dc.asked[0], "g-059 10.0.0.9@c059") {
		t.Errorf("consume again on the 60th client: %d, asked %v", rec.Code, dc.asked)
	}
}
