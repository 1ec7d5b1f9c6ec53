package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"rmqconsole/dev"
	"rmqconsole/handlers"
)

// newRequest is httptest.NewRequest as a page of the console sends it from a browser on
// this machine: to the console's loopback address (httptest names example.com, a host a
// console without users does not serve), saying it comes from the same origin (as every
// browser does on a write; a signed-in write without it is refused). Tests of what
// scripts and other sites send set or delete these headers themselves.
func newRequest(method, target string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, target, body)
	if !strings.Contains(target, "://") {
		req.Host = "127.0.0.1"
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return req
}

// hostCall sends method path to the console at srv naming host in Host, and Origin as
// a page of that host sends it.
func hostCall(t *testing.T, srv *httptest.Server, host, method, path, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if method != http.MethodGet {
		req.Header.Set("Origin", "http://"+host)
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// wsDial opens a websocket to path at srv naming host in Host and Origin, as the page of
// a site under that name does; it answers the handshake's status.
func wsDial(t *testing.T, srv *httptest.Server, host, path string) int {
	t.Helper()
	ws, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+path,
		http.Header{"Host": {host}, "Origin": {"http://" + host}})
	if err == nil {
		ws.Close()
	} else if !errors.Is(err, websocket.ErrBadHandshake) {
		t.Fatalf("websocket %s as %s: %v", path, host, err)
	}
	return res.StatusCode
}

// The names and addresses a console answers: loopback always, the listen address (every
// address when it listens on all), and RMQC_ALLOWED_HOSTS; any other name is refused.
func TestHostRuleServesLoopbackListenAddressAndAllowedNames(t *testing.T) {
	for _, tc := range []struct {
		listen  string
		allowed []string
		host    string
		serves  bool
	}{
		{"127.0.0.1:8090", nil, "127.0.0.1:8090", true},
		{"127.0.0.1:8090", nil, "127.45.6.7", true},
		{"127.0.0.1:8090", nil, "localhost:8090", true},
		{"127.0.0.1:8090", nil, "LOCALHOST.:8090", true},
		{"127.0.0.1:8090", nil, "console.localhost:8090", false},
		{"127.0.0.1:8090", nil, "[::1]:8090", true},
		{"127.0.0.1:8090", nil, "", true},
		{"127.0.0.1:8090", nil, "rebind.evil.example:8090", false},
		{"127.0.0.1:8090", nil, "localhost.evil.example", false},
		{"127.0.0.1:8090", nil, "10.0.0.5:8090", false},
		{"10.0.0.5:8090", nil, "10.0.0.5:8090", true},
		{"10.0.0.5:8090", nil, "10.0.0.6:8090", false},
		{"0.0.0.0:8090", nil, "10.0.0.6:8090", true},
		{"[::]:8090", nil, "[2001:db8::1]:8090", true},
		{":8090", nil, "192.168.1.9", true},
		{"0.0.0.0:8090", nil, "rmq.example.com", false},
		{"rmq-host:8090", nil, "RMQ-HOST:8090", true},
		{"0.0.0.0:8090", []string{"rmq.example.com"}, "rmq.example.com:443", true},
		{"0.0.0.0:8090", []string{"rmq.example.com"}, "rmq.example.com.", true},
		{"0.0.0.0:8090", []string{"rmq.example.com"}, "evil.rmq.example.com", false},
		{"127.0.0.1:8090", []string{"10.0.0.5"}, "10.0.0.5:8090", true},
	} {
		if got := newHostRule(tc.listen, tc.allowed).serves(tc.host); got != tc.serves {
			t.Errorf("listening on %s, allowed %v: serves(%q) = %v, want %v", tc.listen, tc.allowed, tc.host, got, tc.serves)
		}
	}
}

// RMQC_ALLOWED_HOSTS takes names, addresses and URLs, separated by commas; anything
// else stops start-up naming the setting.
func TestAllowedHostsSetting(t *testing.T) {
	cfg, err := ParseConfig([]string{"--allowed-hosts", "RMQ.example.com, https://console.corp.example:8443/ ,10.0.0.5:8090,[2001:DB8::1]"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"rmq.example.com", "console.corp.example", "10.0.0.5", "2001:db8::1"}; !slices.Equal(cfg.AllowedHosts, want) {
		t.Errorf("allowed hosts %q, want %q", cfg.AllowedHosts, want)
	}
	cfg, err = ParseConfig(nil, env(map[string]string{"RMQC_ALLOWED_HOSTS": "rmq.example.com"}), io.Discard)
	if err != nil || !slices.Equal(cfg.AllowedHosts, []string{"rmq.example.com"}) {
		t.Errorf("from the variable: %v %v", cfg, err)
	}
	for _, bad := range []string{"rmq example.com", "*.example.com", "https://", "a/b"} {
		_, err := ParseConfig([]string{"--allowed-hosts", bad}, noEnv, io.Discard)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Setting != "allowed-hosts" || !strings.Contains(err.Error(), "is not a host name") {
			t.Errorf("--allowed-hosts %q: %v, want an error naming the setting", bad, err)
		}
	}
}

// A console without users answers no other name than its own: a page of another site
// whose name was rebound to the console's address (Host and Origin both naming it) gets
// a 421 with a sentence on pages, the API and the websocket. Loopback names and
// addresses are served as ever.
func TestRebindingRefusedWithoutUsers(t *testing.T) {
	a := newAuthApp(t)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	evil := "rebind.evil.example:" + port

	res, body := hostCall(t, srv, evil, http.MethodGet, "/", "")
	if res.StatusCode != http.StatusMisdirectedRequest || !strings.Contains(body, "does not answer to the host name rebind.evil.example") {
		t.Errorf("page: %d %.300s, want 421 with the sentence", res.StatusCode, body)
	}
	for _, call := range []struct{ method, path, body string }{
		{http.MethodGet, "/api/v1/audit", ""},
		{http.MethodPost, "/api/v1/alert-rules", `{"name":"x","group":"g","metric":"lag","threshold":1,"webhookUrl":"https://hooks.example/x"}`},
	} {
		res, body := hostCall(t, srv, evil, call.method, call.path, call.body)
		var e handlers.APIError
		if res.StatusCode != http.StatusMisdirectedRequest || json.Unmarshal([]byte(body), &e) != nil || e.Code != "unknown_host" ||
			!strings.Contains(e.Error, "RMQC_ALLOWED_HOSTS") {
			t.Errorf("%s %s: %d %.300s, want 421 JSON naming RMQC_ALLOWED_HOSTS", call.method, call.path, res.StatusCode, body)
		}
	}
	if rules, _ := a.def.store.AlertRules(t.Context()); len(rules) != 0 {
		t.Errorf("a rebound page created %d alert rules", len(rules))
	}
	if code := wsDial(t, srv, evil, "/ws/brokers/broker-a"); code != http.StatusMisdirectedRequest {
		t.Errorf("websocket: %d, want 421", code)
	}
	// The console's own names: served.
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "127.8.9.10:" + port} {
		if res, body := hostCall(t, srv, host, http.MethodGet, "/api/v1/audit", ""); res.StatusCode != http.StatusOK {
			t.Errorf("Host %s: %d %.200s", host, res.StatusCode, body)
		}
	}
	// Chinese, for a reader who asked for it.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/audit", nil)
	req.Host, req.Header["Accept-Language"] = evil, []string{"zh-CN"}
	zh, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zh.Body)
	zh.Body.Close()
	if !strings.Contains(string(b), "本控制台不响应主机名") {
		t.Errorf("in Chinese: %s", b)
	}
}

// On every address (0.0.0.0) with --no-auth, the console answers its addresses, never a
// name it was not given.
func TestNoAuthOnEveryAddressServesAddressesNotNames(t *testing.T) {
	a := newAuthApp(t, "--listen", "0.0.0.0:0", "--no-auth", "true")
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	if res, body := hostCall(t, srv, "192.0.2.10:8090", http.MethodGet, "/api/v1/audit", ""); res.StatusCode != http.StatusOK {
		t.Errorf("an address of the machine: %d %.200s", res.StatusCode, body)
	}
	if res, _ := hostCall(t, srv, "rebind.evil.example:8090", http.MethodGet, "/api/v1/audit", ""); res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a name: %d, want 421", res.StatusCode)
	}
}

// With users, a rebound page holds none of the console's credentials, so by default
// every host is answered as before (deployments behind proxies keep working); once
// RMQC_ALLOWED_HOSTS names the hosts, others are refused with users too.
func TestHostCheckWithUsersFollowsAllowedHosts(t *testing.T) {
	for _, tc := range []struct {
		flags                []string
		evil, listed, signIn int
	}{
		{nil, http.StatusUnauthorized, http.StatusUnauthorized, http.StatusOK},
		{[]string{"--allowed-hosts", "rmq.example.com"}, http.StatusMisdirectedRequest, http.StatusUnauthorized, http.StatusOK},
	} {
		a := newAuthApp(t, tc.flags...)
		addUsers(t, a, roleUsers)
		srv := httptest.NewServer(a.Handler())
		if res, _ := hostCall(t, srv, "rebind.evil.example", http.MethodGet, "/api/v1/audit", ""); res.StatusCode != tc.evil {
			t.Errorf("%v: another name: %d, want %d", tc.flags, res.StatusCode, tc.evil)
		}
		if res, _ := hostCall(t, srv, "rmq.example.com", http.MethodGet, "/api/v1/audit", ""); res.StatusCode != tc.listed {
			t.Errorf("%v: the listed name: %d, want %d", tc.flags, res.StatusCode, tc.listed)
		}
		if res, _ := hostCall(t, srv, "127.0.0.1", http.MethodGet, "/login", ""); res.StatusCode != tc.signIn {
			t.Errorf("%v: sign-in page on loopback: %d, want %d", tc.flags, res.StatusCode, tc.signIn)
		}
		srv.Close()
	}
}

// On the real broker: a page rebound to a console without users neither creates a topic
// nor opens a live view; the same calls under the console's own address do both.
func TestRebindingCannotCreateATopicOrOpenALiveView(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	a := newMessagesApp(t, cl.NameServer)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	own := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := strings.Cut(own, ":")
	evil := "rebind.evil.example:" + port
	topic := dev.UniqueName("rebind")
	create := `{"topic":"` + topic + `","readQueueNums":2,"writeQueueNums":2,"clusterName":"` + cl.ClusterName + `"}`

	if res, body := hostCall(t, srv, evil, http.MethodPost, "/api/v1/topics", create); res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("rebound topic create: %d %.300s, want 421", res.StatusCode, body)
	}
	if res, body := hostCall(t, srv, own, http.MethodGet, "/api/v1/topics/"+topic, ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("after a rebound create the topic reads %d %.200s, want 404", res.StatusCode, body)
	}
	broker := "/ws/brokers/" + cl.Brokers[0].Name
	if code := wsDial(t, srv, evil, broker); code != http.StatusMisdirectedRequest {
		t.Errorf("rebound websocket: %d, want 421", code)
	}
	// The console's own address: the same calls work, so the refusals above are the
	// host's doing.
	if res, body := hostCall(t, srv, own, http.MethodPost, "/api/v1/topics", create); res.StatusCode != http.StatusCreated {
		t.Errorf("topic create on the console's address: %d %.300s", res.StatusCode, body)
	}
	if code := wsDial(t, srv, own, broker); code != http.StatusSwitchingProtocols {
		t.Errorf("websocket on the console's address: %d, want 101", code)
	}
}
