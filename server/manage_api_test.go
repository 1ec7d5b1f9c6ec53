package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
)

// manageCall sends one API call to the console, with a JSON body when body is not "",
// and decodes the answer into out (when not nil). TestMain checks each answer against
// the API document.
func manageCall(t *testing.T, a *App, method, target, body string, out any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := newRequest(method, target, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %d %.300s: %v", method, target, rec.Code, rec.Body, err)
		}
	}
	return rec.Code, rec.Body.String()
}

// The calls that change what the cluster is made of, on the real broker: a group's
// settings created, read, changed and deleted, the brokers' configuration read and a
// change previewed (not applied: the broker is shared), the ACL read, and a topic
// changed with PUT and refused a second create. Their answers are what the document
// says (TestMain fails the run otherwise).
func TestManageAPIOnRealBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := newMessagesApp(t, cl.NameServer)
	broker := cl.Brokers[0].Name

	// A group's settings: preview a new group, create it, read it, change it, delete it.
	group := dev.UniqueName("api-settings")
	var plan struct {
		PlanID string `json:"planId"`
		Create bool   `json:"create"`
	}
	base := "/api/v1/groups/" + group
	if code, got := manageCall(t, a, http.MethodPost, base+"/config-preview", `{"retryMaxTimes": 5, "brokerNames": ["`+broker+`"]}`, &plan); code != http.StatusOK || !plan.Create || plan.PlanID == "" {
		t.Fatalf("preview of a new group: %d %+v (%.400s)", code, plan, got)
	}
	var change struct{ Status string }
	if code, got := manageCall(t, a, http.MethodPut, base+"/config", `{"planId": "`+plan.PlanID+`", "confirm": true}`, &change); code != http.StatusCreated || change.Status != "applied" {
		t.Fatalf("apply of a new group: %d %+v (%.400s)", code, change, got)
	}
	t.Cleanup(func() {
		_, _ = manageCall(t, a, http.MethodDelete, base+"?confirm="+url.QueryEscape(group)+"&removeOffsets=true", "", nil)
	})
	var cfg struct {
		Brokers []struct {
			BrokerName string         `json:"brokerName"`
			Exists     bool           `json:"exists"`
			Config     map[string]any `json:"config"`
		} `json:"brokers"`
	}
	if code, got := manageCall(t, a, http.MethodGet, base+"/config", "", &cfg); code != http.StatusOK {
		t.Fatalf("GET %s/config: %d (%.400s)", base, code, got)
	}
	found := false
	for _, b := range cfg.Brokers {
		if b.BrokerName == broker {
			found = b.Exists && b.Config["retryMaxTimes"] == float64(5)
		}
	}
	if !found {
		t.Fatalf("the group's settings on %s: %+v, want retryMaxTimes 5", broker, cfg)
	}
	if code, got := manageCall(t, a, http.MethodPost, base+"/config-preview", `{"retryMaxTimes": 7}`, &plan); code != http.StatusOK || plan.Create {
		t.Fatalf("preview of a change: %d %+v (%.400s)", code, plan, got)
	}
	if code, got := manageCall(t, a, http.MethodPut, base+"/config", `{"planId": "`+plan.PlanID+`", "confirm": true}`, &change); code != http.StatusOK || change.Status != "applied" {
		t.Fatalf("apply of a change: %d %+v (%.400s)", code, change, got)
	}
	if code, got := manageCall(t, a, http.MethodDelete, base+"?confirm="+url.QueryEscape(group), "", &change); code != http.StatusOK || change.Status != "applied" {
		t.Fatalf("delete: %d %+v (%.400s)", code, change, got)
	}

	// Brokers' configuration: the drift, one broker's, and a preview.
	var drift struct {
		Clusters []struct{ Cluster string } `json:"clusters"`
	}
	if code, got := manageCall(t, a, http.MethodGet, "/api/v1/brokers/config-drift", "", &drift); code != http.StatusOK || len(drift.Clusters) == 0 {
		t.Fatalf("config drift: %d %+v (%.400s)", code, drift, got)
	}
	var bc struct {
		Processes []struct {
			Config []struct{ Key, Value string } `json:"config"`
		} `json:"processes"`
	}
	if code, got := manageCall(t, a, http.MethodGet, "/api/v1/brokers/"+broker+"/config", "", &bc); code != http.StatusOK || len(bc.Processes) == 0 || len(bc.Processes[0].Config) == 0 {
		t.Fatalf("broker config: %d %+v (%.400s)", code, bc, got)
	}
	var bplan struct {
		PlanID string `json:"planId"`
	}
	if code, got := manageCall(t, a, http.MethodPost, "/api/v1/brokers/"+broker+"/config-preview", `{"config": {"maxMessageSize": "4194000"}, "scope": "master"}`, &bplan); code != http.StatusOK || bplan.PlanID == "" {
		t.Fatalf("broker config preview: %d %+v (%.400s)", code, bplan, got)
	}

	// The ACL, read: whatever the cluster's mode, the answer is the document's.
	var aclOut struct{ Mode string }
	if code, got := manageCall(t, a, http.MethodGet, "/api/v1/acl/users", "", &aclOut); code != http.StatusOK {
		t.Fatalf("ACL users: %d %+v (%.400s)", code, aclOut, got)
	}
	if code, got := manageCall(t, a, http.MethodGet, "/api/v1/acl/policies", "", &aclOut); code != http.StatusOK {
		t.Fatalf("ACL policies: %d %+v (%.400s)", code, aclOut, got)
	}
	if code, got := manageCall(t, a, http.MethodGet, "/api/v1/acl/users/nobody-"+group[len(group)-6:], "", nil); code != http.StatusNotFound {
		t.Fatalf("an unknown ACL user: %d, want 404 (%.400s)", code, got)
	}

	// A topic: changed with PUT, and a second create refused with where to change it.
	topic := dev.UniqueName("api-put")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	var tc struct {
		Topic   string `json:"topic"`
		Created bool   `json:"created"`
	}
	if code, got := manageCall(t, a, http.MethodPut, "/api/v1/topics/"+topic, `{"writeQueueNums": 2, "readQueueNums": 2}`, &tc); code != http.StatusOK || tc.Topic != topic || tc.Created {
		t.Fatalf("PUT a topic: %d %+v (%.400s)", code, tc, got)
	}
	var exists struct{ Code, Update string }
	if code, got := manageCall(t, a, http.MethodPost, "/api/v1/topics", `{"topic": "`+topic+`"}`, &exists); code != http.StatusConflict || exists.Code != "topic_exists" {
		t.Fatalf("a second create: %d %+v (%.400s)", code, exists, got)
	}
	t.Cleanup(func() {
		_, _ = manageCall(t, a, http.MethodDelete, "/api/v1/topics/"+topic+"?confirm="+topic, "", nil)
	})
}
