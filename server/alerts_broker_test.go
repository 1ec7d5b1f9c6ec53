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
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/dev"
)

// A rule on a broker finding, made through the API, fires from a real broker's finding
// and its webhook receives it: the console runs against the shared cluster with the
// disk-full limit lowered below any disk's use, so every broker's disk is "nearly
// full" at the collector's first read. The notification names the broker, every page's
// navigation counts the firing alert, and the alerts page links it to the broker's page.
// A rule on a broker kind that names a group is refused.
func TestBrokerRuleFiresFromARealFindingToItsWebhook(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	var mu sync.Mutex
	var bodies []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	defer hook.Close()

	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", cl.NameServer,
		"--metrics-interval", "1s", "--alert-retry", "100ms"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.diagnosis.DiskRatio = 1e-6
	a, err := New(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	defer func() { stop(); <-served }()
	base := "http://" + ln.Addr().String()

	post := func(rule string) (int, string) {
		res, err := http.Post(base+"/api/v1/alert-rules", "application/json", strings.NewReader(rule))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post(fmt.Sprintf(`{"group":"order-*","metric":"brokerDiskFull","webhookUrl":%q}`, hook.URL)); code != http.StatusBadRequest ||
		!strings.Contains(body, "watches brokers, not consumer groups") {
		t.Errorf("a broker rule with a group pattern: %d %s", code, body)
	}
	broker := cl.Brokers[0].Name
	if code, body := post(fmt.Sprintf(`{"broker":%q,"metric":"brokerDiskFull","webhookUrl":%q}`, broker, hook.URL)); code != http.StatusCreated {
		t.Fatalf("a broker rule: %d %s", code, body)
	}

	var got map[string]any
	dev.Eventually(t, 60*time.Second, "the broker rule's notification at the webhook", func() error {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bodies {
			var m map[string]any
			if json.Unmarshal([]byte(b), &m) == nil && m["event"] == "firing" {
				got = m
				return nil
			}
		}
		return fmt.Errorf("%d bodies, none firing", len(bodies))
	})
	if got["target"] != "broker" || got["broker"] != broker || !strings.Contains(fmt.Sprint(got["summary"]), "broker "+broker+": broker disk nearly full found since") {
		t.Errorf("notification %v, want one about broker %s", got, broker)
	}
	res, err := http.Get(base + "/alerts")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), `data-testid="nav-alerts-firing"`) || !strings.Contains(string(page), `href="/brokers/`+broker+`"`) {
		t.Errorf("the alerts page shows no firing count in the navigation, or no link to broker %s", broker)
	}
}
