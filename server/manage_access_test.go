package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rmqconsole/handlers"
	"rmqconsole/store"
)

// A change of group settings, ACL or broker configuration refused for the caller's
// role is audited as refused with the change's mode (and the group when there is one),
// saying what the role may not do; a refused read of the ACL is not audited.
func TestChangesRefusedForTheRoleAreAudited(t *testing.T) {
	a := newAuthApp(t, "--namesrv", "127.0.0.1:1")
	addUsers(t, a, roleUsers)
	ctx := context.Background()
	for _, c := range []struct {
		user, method, path, mode, group, says string
	}{
		{"vera", http.MethodPut, "/api/v1/groups/billing/config", "group-config-update", "billing", "may not change consumer group settings"},
		{"otto", http.MethodDelete, "/api/v1/groups/billing?confirm=billing", "group-delete", "billing", "may not delete consumer groups"},
		{"otto", http.MethodPost, "/api/v1/acl/users", "acl-change", "", "may not manage ACL users and policies"},
		{"otto", http.MethodPut, "/api/v1/brokers/broker-a/config", "broker-config-update", "", "may not change broker configuration"},
	} {
		req := newRequest(c.method, c.path, strings.NewReader(`{"planId":"x","confirm":true}`))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(sessionCookie(t, a, c.user))
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		var e handlers.APIError
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusForbidden || !strings.Contains(e.Error, c.says) {
			t.Errorf("%s %s as %s: %d %q, want 403 saying %q", c.method, c.path, c.user, rec.Code, e.Error, c.says)
			continue
		}
		entries, _, err := a.store.Audit().List(ctx, store.AuditFilter{Actor: c.user})
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 || entries[0].Status != store.AuditRefused || entries[0].Mode != c.mode || entries[0].Group != c.group {
			t.Errorf("%s %s as %s: newest entry %+v, want refused %s of group %q", c.method, c.path, c.user, entries, c.mode, c.group)
		}
	}
	before, _, _ := a.store.Audit().List(ctx, store.AuditFilter{})
	req := newRequest(http.MethodGet, "/api/v1/acl/users", nil)
	req.AddCookie(sessionCookie(t, a, "otto"))
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	after, _, _ := a.store.Audit().List(ctx, store.AuditFilter{})
	if rec.Code != http.StatusForbidden || len(after) != len(before) {
		t.Errorf("an operator's read of the ACL: %d, %d entries written", rec.Code, len(after)-len(before))
	}
}
