package handlers

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"

	"rmqconsole/acl"
	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/subgroups"
)

// fakeSettings records what the handlers ask of the group settings service.
type fakeSettings struct {
	cfg     *subgroups.Config
	plans   []subgroups.Request
	applies []subgroups.Confirmation
	deletes []subgroups.DeleteRequest
	err     error
}

func (f *fakeSettings) Config(context.Context, string) (*subgroups.Config, error) { return f.cfg, nil }
func (f *fakeSettings) Plan(_ context.Context, r subgroups.Request) (*subgroups.Plan, error) {
	f.plans = append(f.plans, r)
	if f.err != nil {
		return nil, f.err
	}
	return &subgroups.Plan{ID: "group-config-1", Group: r.Group, Request: r, Brokers: []subgroups.BrokerPlan{{Name: "broker-a", Exists: true,
		Changes: []subgroups.Change{{Field: "retryMaxTimes", Current: "16", New: "5"}}}}}, nil
}
func (f *fakeSettings) Apply(_ context.Context, c subgroups.Confirmation) (*subgroups.Applied, error) {
	f.applies = append(f.applies, c)
	if f.err != nil {
		return nil, f.err
	}
	return &subgroups.Applied{Plan: &subgroups.Plan{Group: c.Group}, Entry: &store.AuditEntry{ID: 3, Status: store.AuditApplied, Mode: subgroups.ModeUpdate,
		Group: c.Group, Result: []store.AuditQueue{{BrokerName: "broker-a", Note: i18n.PlainText("updated: retryMaxTimes 16 → 5; read back")}}}}, nil
}
func (f *fakeSettings) Impact(_ context.Context, g string) (*subgroups.Impact, error) {
	return &subgroups.Impact{Group: g, Brokers: []string{"broker-a"}}, nil
}
func (f *fakeSettings) Delete(_ context.Context, _ subgroups.Who, r subgroups.DeleteRequest) (*subgroups.Applied, error) {
	f.deletes = append(f.deletes, r)
	if f.err != nil {
		return nil, f.err
	}
	return &subgroups.Applied{Entry: &store.AuditEntry{ID: 4, Status: store.AuditApplied, Mode: subgroups.ModeDelete}}, nil
}

func settingsRouter(f *fakeSettings, role auth.Role) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	r.Use(Localize, func(c *gin.Context) { c.Set(RoleKey, role) })
	h := &GroupSettings{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Settings: f}
	r.GET("/groups/:group/settings", h.Show)
	r.POST("/groups/:group/settings/preview", h.Preview)
	r.POST("/groups/:group/settings/apply", h.Apply)
	r.GET("/api/v1/groups/:group/config", h.ConfigAPI)
	r.POST("/api/v1/groups/:group/config-preview", h.PreviewAPI)
	r.PUT("/api/v1/groups/:group/config", h.ApplyAPI)
	r.DELETE("/api/v1/groups/:group", h.DeleteAPI)
	return r
}

func twoMasters() *subgroups.Config {
	doc := func(retries string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"groupName": json.RawMessage(`"orders"`), "consumeEnable": json.RawMessage("true"), "consumeBroadcastEnable": json.RawMessage("true"),
			"retryMaxTimes": json.RawMessage(retries), "retryQueueNums": json.RawMessage("1"), "brokerId": json.RawMessage("0")}
	}
	return &subgroups.Config{Group: "orders", Brokers: []subgroups.BrokerConfig{
		{Name: "broker-a", Addr: "10.0.0.1:10911", Version: "5.3.3", Is5: true, Doc: doc("16")},
		{Name: "broker-b", Addr: "10.0.0.2:10911", Version: "5.3.3", Is5: true, Doc: doc("3")},
	}, Drift: []subgroups.Drift{{Field: "retryMaxTimes", Values: map[string]string{"broker-a": "16", "broker-b": "3"}}}}
}

// The settings form sends only what was changed: a field the masters disagree on starts
// empty and, left so, is not sent; fields the form never shows are never sent.
func TestSettingsFormSendsOnlyWhatChanged(t *testing.T) {
	f := &fakeSettings{cfg: twoMasters()}
	r := settingsRouter(f, auth.Operator)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/groups/orders/settings", nil))
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if v, _ := doc.Find(`[data-testid="f-retryMaxTimes"]`).Attr("value"); v != "" {
		t.Fatalf("a field the masters disagree on starts as %q", v)
	}
	if doc.Find(`tr[data-field="retryMaxTimes"] [data-testid="drift-mark"]`).Length() != 1 {
		t.Error("the disagreement is not marked")
	}
	v := url.Values{"consumeEnable": {"false"}, "consumeBroadcastEnable": {"true"}, "retryMaxTimes": {""}, "retryQueueNums": {"1"},
		"brokerNames": {"broker-a", "broker-b"}}
	doc.Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("name")
		val, _ := s.Attr("value")
		v.Set(n, val)
	})
	rec = postForm(r, "/groups/orders/settings/preview", v, false)
	if rec.Code != http.StatusOK || len(f.plans) != 1 {
		t.Fatalf("preview: %d, %d plans", rec.Code, len(f.plans))
	}
	got := f.plans[0]
	if got.ConsumeEnable == nil || *got.ConsumeEnable || got.RetryMaxTimes != nil || got.RetryQueueNums != nil || got.ConsumeBroadcastEnable != nil ||
		got.BrokerID != nil || got.GroupRetryPolicy != nil || got.Attributes != nil {
		t.Fatalf("asked %+v, want consumeEnable=false only", got.Settings)
	}
	page, _ := goquery.NewDocumentFromReader(rec.Body)
	if page.Find(`[data-testid="settings-preview"] [data-testid="apply"]`).Length() != 1 {
		t.Error("the preview has no apply button")
	}
}

// A viewer reads the settings but gets no form; bad input is 422 on the page with the
// sentence on its field, and 400 in the API with the field named.
func TestSettingsRolesAndBadInput(t *testing.T) {
	f := &fakeSettings{cfg: twoMasters()}
	rec := httptest.NewRecorder()
	settingsRouter(f, auth.Viewer).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/groups/orders/settings", nil))
	doc, _ := goquery.NewDocumentFromReader(rec.Body)
	if rec.Code != http.StatusOK || doc.Find(`[data-testid="settings-form"]`).Length() != 0 || doc.Find(`[data-testid="settings-readonly"]`).Length() != 1 {
		t.Fatalf("viewer's page: %d", rec.Code)
	}
	f.err = fault.List{fault.InvalidField("retryMaxTimes", "subgroups.input.range", "Field", "retryMaxTimes", "N", -5, "Min", 0, "Max", 128)}
	r := settingsRouter(f, auth.Operator)
	rec = postForm(r, "/groups/orders/settings/preview", url.Values{"retryMaxTimes": {"-5"}}, false)
	doc, _ = goquery.NewDocumentFromReader(rec.Body)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(`[data-testid="err-retryMaxTimes"]`).Text(), "between 0 and 128") {
		t.Fatalf("bad input on the page: %d %q", rec.Code, doc.Find(`[data-testid="err-retryMaxTimes"]`).Text())
	}
	rec = sendJSON(r, http.MethodPost, "/api/v1/groups/orders/config-preview", `{"retryMaxTimes":-5}`)
	var e APIError
	json.Unmarshal(rec.Body.Bytes(), &e)
	if rec.Code != http.StatusBadRequest || e.Code != "invalid" || e.Field != "retryMaxTimes" || !strings.Contains(e.Error, "between 0 and 128") {
		t.Fatalf("bad input in the API: %d %+v", rec.Code, e)
	}
	f.err = nil
	asked := len(f.plans)
	rec = sendJSON(r, http.MethodPost, "/api/v1/groups/orders/config-preview", `{"retryMaxTimes":5,"retryTimes":3}`)
	json.Unmarshal(rec.Body.Bytes(), &e)
	if rec.Code != http.StatusBadRequest || e.Code != "bad_json" || !strings.Contains(e.Error, "retryTimes") {
		t.Fatalf("an unknown field: %d %+v", rec.Code, e)
	}
	if len(f.plans) != asked {
		t.Errorf("an unknown field reached the service")
	}
}

// The API's preview, apply and delete answer the documented shapes; the apply names
// the group of its path, and the delete passes the confirmation and its options.
func TestSettingsAPIShapes(t *testing.T) {
	f := &fakeSettings{cfg: twoMasters()}
	r := settingsRouter(f, auth.Admin)
	rec := sendJSON(r, http.MethodGet, "/api/v1/groups/orders/config", "")
	var cfg GroupConfigJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &cfg); err != nil || len(cfg.Brokers) != 2 || !cfg.Brokers[0].Exists ||
		cfg.Brokers[1].Config["retryMaxTimes"] == nil || len(cfg.Drift) != 1 || cfg.Failures == nil {
		t.Fatalf("config: %v %s", err, rec.Body)
	}
	rec = sendJSON(r, http.MethodPost, "/api/v1/groups/orders/config-preview", `{"brokerNames":["broker-a"],"retryMaxTimes":5}`)
	var plan struct {
		PlanID  string `json:"planId"`
		Brokers []struct {
			BrokerName string             `json:"brokerName"`
			Changes    []subgroups.Change `json:"changes"`
		} `json:"brokers"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &plan); err != nil || plan.PlanID == "" || plan.Brokers[0].Changes[0].New != "5" {
		t.Fatalf("preview: %v %s", err, rec.Body)
	}
	rec = sendJSON(r, http.MethodPut, "/api/v1/groups/orders/config", `{"planId":"group-config-1","confirm":true}`)
	var ch ChangeJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &ch); err != nil || rec.Code != http.StatusOK || ch.Status != "applied" || ch.Entry.ID != 3 ||
		f.applies[0].Group != "orders" || !f.applies[0].Confirmed {
		t.Fatalf("apply: %d %s %+v", rec.Code, rec.Body, f.applies)
	}
	rec = sendJSON(r, http.MethodDelete, "/api/v1/groups/orders?confirm=orders&removeOffsets=true", "")
	if rec.Code != http.StatusOK || f.deletes[0] != (subgroups.DeleteRequest{Group: "orders", Confirm: "orders", RemoveOffsets: true}) {
		t.Fatalf("delete: %d %+v", rec.Code, f.deletes)
	}
}

// Each fault code is answered with its status, in the reader's language, naming the
// field; an error of the console's own stays a 500.
func TestFaultsAnswerTheirStatus(t *testing.T) {
	for code, want := range map[fault.Code]int{fault.Invalid: 400, fault.NotFound: 404, fault.Conflict: 409, fault.Refused: 403,
		fault.Unavailable: 503, fault.Busy: 503, fault.Internal: 500} {
		status, api := errorStatus(fault.New(code, "previews.unknown"))
		if status != want || api != string(code) {
			t.Errorf("%s: %d %s, want %d", code, status, api, want)
		}
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(Localize)
	env := &Env{Log: slog.New(slog.DiscardHandler)}
	r.GET("/api/x", func(c *gin.Context) {
		env.Fail(c, fault.InvalidField("retryMaxTimes", "subgroups.input.range", "Field", "retryMaxTimes", "N", 500, "Min", 0, "Max", 128).Because("out_of_range"))
	})
	req := httptest.NewRequest(http.MethodGet, "/api/x", nil)
	req.Header.Set("Accept-Language", "zh-CN")
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	var e APIError
	json.Unmarshal(rec.Body.Bytes(), &e)
	zh := i18n.Match("zh-CN").T("subgroups.input.range", "Field", "retryMaxTimes", "N", 500, "Min", 0, "Max", 128)
	if rec.Code != 400 || e.Code != "out_of_range" || e.Field != "retryMaxTimes" || e.Error != zh {
		t.Fatalf("%d %+v, want 400 out_of_range in Chinese %q", rec.Code, e, zh)
	}
}

// fakeACL answers the ACL page and API with one user.
type fakeACL struct {
	plans   []acl.UserRequest
	applies []acl.Confirmation
}

func (f *fakeACL) Self() string { return "rmqc-admin" }
func (f *fakeACL) Overview(context.Context) (*acl.Overview, error) {
	return &acl.Overview{Mode: acl.ModeACL2, Processes: []acl.Process{{Broker: "broker-a", Addr: "10.0.0.1:10911", Role: "master", Mode: acl.ModeACL2, Authorization: true}},
		Users: []acl.UserRow{{Username: "rmqc-admin", UserType: "Super", UserStatus: "enable", Missing: []string{}, Self: true}}}, nil
}
func (f *fakeACL) PlanUser(_ context.Context, _ acl.Who, create bool, r acl.UserRequest) (*acl.Plan, error) {
	f.plans = append(f.plans, r)
	u := r
	u.Password = ""
	return &acl.Plan{ID: "acl-1", Mode: acl.ModeUserCreate, User: &u, PasswordChanged: r.Password != "",
		Processes: []acl.ProcessPlan{{Process: "broker-a/0", Changes: []acl.Change{{Field: "password", New: "set"}}}}}, nil
}
func (f *fakeACL) PlanPolicy(context.Context, acl.Who, bool, acl.PolicyRequest) (*acl.Plan, error) {
	return nil, fault.InvalidField("entries", "acl.input.entries.none")
}
func (f *fakeACL) Apply(_ context.Context, c acl.Confirmation) (*store.AuditEntry, *acl.Plan, error) {
	f.applies = append(f.applies, c)
	return &store.AuditEntry{ID: 9, Status: store.AuditApplied, Mode: acl.ModeUserCreate}, &acl.Plan{Mode: acl.ModeUserCreate}, nil
}
func (f *fakeACL) DeleteUser(context.Context, acl.Who, string, string) (*store.AuditEntry, error) {
	return nil, fault.New(fault.Refused, "acl.refused.self.delete", "Key", "rmqc-admin").Because("own_access_key")
}
func (f *fakeACL) DeletePolicy(context.Context, acl.Who, string, string, string, string) (*store.AuditEntry, error) {
	return nil, nil
}

// The ACL API answers a preview without the password and applies it with the password
// sent again; refusing the console's own key is a 403 naming why.
func TestACLAPIPreviewsThenAppliesWithThePasswordAgain(t *testing.T) {
	f := &fakeACL{}
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	r.Use(Localize)
	h := &ACL{Env: &Env{Log: slog.New(slog.DiscardHandler)}, ACL: f}
	r.GET("/api/v1/acl/users", h.UsersAPI)
	r.POST("/api/v1/acl/users", h.CreateUserAPI)
	r.POST("/api/v1/acl/policies", h.CreatePolicyAPI)
	r.DELETE("/api/v1/acl/users/:name", h.DeleteUserAPI)
	rec := sendJSON(r, http.MethodPost, "/api/v1/acl/users", `{"username":"alice","password":"s3cret-pw","userType":"Normal"}`)
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "s3cret-pw") || !strings.Contains(rec.Body.String(), `"passwordChanged":true`) {
		t.Fatalf("preview: %d %s", rec.Code, rec.Body)
	}
	rec = sendJSON(r, http.MethodPost, "/api/v1/acl/users", `{"planId":"acl-1","confirm":true,"password":"s3cret-pw"}`)
	if rec.Code != http.StatusCreated || len(f.applies) != 1 || f.applies[0].Password != "s3cret-pw" || len(f.plans) != 1 {
		t.Fatalf("apply: %d %s", rec.Code, rec.Body)
	}
	rec = sendJSON(r, http.MethodPost, "/api/v1/acl/policies", `{"subject":"User:alice","entries":[]}`)
	var e APIError
	json.Unmarshal(rec.Body.Bytes(), &e)
	if rec.Code != 400 || e.Field != "entries" {
		t.Fatalf("a policy with no entry: %d %+v", rec.Code, e)
	}
	rec = sendJSON(r, http.MethodDelete, "/api/v1/acl/users/rmqc-admin?confirm=rmqc-admin", "")
	json.Unmarshal(rec.Body.Bytes(), &e)
	if rec.Code != 403 || e.Code != "own_access_key" {
		t.Fatalf("deleting the console's own key: %d %+v", rec.Code, e)
	}
	rec = sendJSON(r, http.MethodGet, "/api/v1/acl/users", "")
	var users ACLJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &users); err != nil || users.Mode != "acl2" || len(users.Users) != 1 || !users.Users[0].Self {
		t.Fatalf("users: %v %s", err, rec.Body)
	}
}
