package handlers

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/resets"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// undoRouter is the reset and audit routes with the caller's role set as the access
// middleware sets it.
func undoRouter(f ResetService, audit AuditReader, role auth.Role) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	r.Use(func(c *gin.Context) { c.Set(RoleKey, role) })
	env := &Env{Log: slog.New(slog.DiscardHandler)}
	h := &Resets{Env: env, Service: f, Now: func() time.Time { return rsNow }}
	r.POST("/groups/:group/reset/preview", h.Preview)
	r.POST("/api/v1/groups/:group/reset-preview", h.PreviewAPI)
	a := &Audit{Env: env, Entries: audit, CanReset: true}
	r.GET("/audit/:id", a.Show)
	r.GET("/api/v1/audit/:id", a.ShowAPI)
	return r
}

func undoEntry(t *testing.T, st *store.Store, mode string, params string) *store.AuditEntry {
	t.Helper()
	after := int64(0)
	e := &store.AuditEntry{StartedAt: rsNow, Actor: "alice", Cluster: "ns:9876", Group: "g", Topics: []string{"orders"}, Mode: mode,
		Params: json.RawMessage(params), Status: store.AuditApplied, FinishedAt: rsNow,
		Result: []store.AuditQueue{{Topic: "orders", BrokerName: "broker-a", QueueID: 0, Before: 120, Target: 0, After: &after}}}
	if err := st.Audit().Record(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	return e
}

// An applied reset's entry offers operators an Undo button that previews the undo; the
// undo's entry names the reset it undoes, and the reset's entry links to its undo.
func TestAuditEntryOffersUndoAndLinksBothWays(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reset := undoEntry(t, st, "earliest", `{"mode":"earliest","topic":"orders"}`)
	var asked []resets.Request
	f := &rsFake{plan: func(req resets.Request) (*resets.Plan, error) {
		asked = append(asked, req)
		return rsPlan(req), nil
	}}
	r := undoRouter(f, st.Audit(), auth.Operator)

	doc := rsDoc(t, rsDo(t, r, "GET", "/audit/1", "", ""))
	form := doc.Find(`[data-testid="undo-form"]`)
	action, _ := form.Attr("action")
	id, _ := form.Find(`input[name="auditId"]`).Attr("value")
	mode, _ := form.Find(`input[name="mode"]`).Attr("value")
	if action != "/groups/g/reset/preview" || id != "1" || mode != "undo" {
		t.Fatalf("undo form posts to %q with auditId %q mode %q", action, id, mode)
	}
	if doc.Find(`[data-testid="entry-undone-by"]`).Length() != 0 {
		t.Errorf("a reset nobody undid says it was undone")
	}

	// The button's form opens the preview of the undo, which keeps what it undoes.
	w := rsDo(t, r, "POST", action, "application/x-www-form-urlencoded", "mode=undo&auditId=1")
	pdoc := rsDoc(t, w)
	if w.Code != http.StatusOK || len(asked) != 1 || asked[0].Mode != resets.ModeUndo || asked[0].AuditID != reset.ID {
		t.Fatalf("%d, planned %+v", w.Code, asked)
	}
	if v, _ := pdoc.Find(`[data-testid="apply-form"] input[name="auditId"]`).Attr("value"); v != "1" {
		t.Errorf("the apply form does not keep auditId: %q", v)
	}
	if pdoc.Find(`[data-testid="mode-undo"]`).Length() != 1 {
		t.Errorf("the form shown again does not say it undoes entry 1")
	}

	undo := undoEntry(t, st, "undo", `{"mode":"undo","auditId":1}`)
	if got := rsDoc(t, rsDo(t, r, "GET", "/audit/2", "", "")).Find(`[data-testid="entry-undoes"] a`); got.AttrOr("href", "") != "/audit/1" {
		t.Errorf("the undo's page links %q, want /audit/1", got.AttrOr("href", ""))
	}
	by := rsDoc(t, rsDo(t, r, "GET", "/audit/1", "", "")).Find(`[data-testid="entry-undone-by"] a`)
	if by.Length() != 1 || by.AttrOr("href", "") != "/audit/2" || undo.ID != 2 {
		t.Errorf("the reset's page links its undo as %q", by.AttrOr("href", ""))
	}
	// The API answers the same links, both ways.
	for _, c := range []struct{ path, want string }{{"/api/v1/audit/1", `"undoneBy":[2]`}, {"/api/v1/audit/2", `"undoes":1`}} {
		if w := rsDo(t, r, "GET", c.path, "", ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("GET %s: %d %s, want %s", c.path, w.Code, w.Body.String(), c.want)
		}
	}

	// A viewer may not reset: no button.
	if n := rsDoc(t, rsDo(t, undoRouter(f, st.Audit(), auth.Viewer), "GET", "/audit/1", "", "")).Find(`[data-testid="undo-form"]`).Length(); n != 0 {
		t.Errorf("a viewer is offered the undo")
	}
	// A refused attempt cannot be undone: no button.
	refused := &store.AuditEntry{StartedAt: rsNow, Actor: "bob", Cluster: "ns:9876", Group: "g", Mode: "latest", Status: store.AuditRefused}
	if err := st.Audit().Record(context.Background(), refused); err != nil {
		t.Fatal(err)
	}
	if n := rsDoc(t, rsDo(t, r, "GET", "/audit/3", "", "")).Find(`[data-testid="undo-form"]`).Length(); n != 0 {
		t.Errorf("a refused attempt offers an undo")
	}
}

// The API reads auditId; one that is not an entry number is refused before the service.
func TestUndoPreviewAPIReadsAuditID(t *testing.T) {
	var asked []resets.Request
	f := &rsFake{plan: func(req resets.Request) (*resets.Plan, error) {
		asked = append(asked, req)
		p := rsPlan(req)
		after := int64(3)
		p.Undo = &resets.Undo{AuditID: req.AuditID, Moved: []resets.UndoQueue{{Queue: p.Queues[0].Queue, Before: 0, After: &after, Current: 5}}}
		return p, nil
	}}
	r := undoRouter(f, nil, auth.Operator)
	w := rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", `{"mode":"undo","auditId":7}`)
	var body PlanJSON
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if len(asked) != 1 || asked[0].AuditID != 7 || body.Undo == nil || body.Undo.AuditID != 7 || len(body.Undo.Moved) != 1 || body.Undo.Moved[0].CurrentOffset != 5 {
		t.Fatalf("asked %+v, answered %s", asked, w.Body)
	}
	for _, bad := range []string{`{"mode":"undo","auditId":-1}`, `{"mode":"undo","auditId":1.5}`, `{"mode":"undo"}`, `{"mode":"undo","auditId":7,"topic":"orders"}`} {
		w := rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", bad)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field"`) {
			t.Errorf("%s: %d %s", bad, w.Code, w.Body)
		}
	}
	if len(asked) != 1 {
		t.Errorf("bad undo requests reached the service: %+v", asked[1:])
	}
}

// The page and the API read fromGroup for mode group; without it the request is
// refused before the service.
func TestCopyFromGroupIsReadFromTheFormAndTheAPI(t *testing.T) {
	var asked []resets.Request
	f := &rsFake{plan: func(req resets.Request) (*resets.Plan, error) {
		asked = append(asked, req)
		p := rsPlan(req)
		p.Copy = &resets.Copy{FromGroup: req.FromGroup, NoOffset: []rocketmq.MessageQueue{p.Queues[0].Queue}}
		return p, nil
	}}
	r := undoRouter(f, nil, auth.Operator)
	w := rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", `{"topic":"orders","mode":"group","fromGroup":"h"}`)
	var body PlanJSON
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if len(asked) != 1 || asked[0].FromGroup != "h" || body.Copy == nil || body.Copy.FromGroup != "h" || len(body.Copy.NoOffset) != 1 {
		t.Fatalf("asked %+v, answered %s", asked, w.Body)
	}
	w = rsDo(t, r, "POST", "/groups/g/reset/preview", "application/x-www-form-urlencoded", "topic=orders&mode=group&fromGroup=h")
	doc := rsDoc(t, w)
	if v, _ := doc.Find(`[data-testid="apply-form"] input[name="fromGroup"]`).Attr("value"); w.Code != http.StatusOK || v != "h" {
		t.Errorf("%d: the apply form keeps fromGroup %q", w.Code, v)
	}
	for _, bad := range []string{`{"topic":"orders","mode":"group"}`, `{"topic":"orders","mode":"group","fromGroup":"g"}`} {
		w := rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", bad)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"fromGroup"`) {
			t.Errorf("%s: %d %s", bad, w.Code, w.Body)
		}
	}
	w = rsDo(t, r, "POST", "/groups/g/reset/preview", "application/x-www-form-urlencoded", "topic=orders&mode=group&fromGroup=")
	if doc := rsDoc(t, w); w.Code != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(`[data-testid="err-fromGroup"]`).Text(), "Name the group whose offsets to copy") {
		t.Errorf("%d: %s", w.Code, doc.Find("main").Text())
	}
	if len(asked) != 2 {
		t.Errorf("bad copy requests reached the service: %+v", asked)
	}
}
