package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// Broker failures on the lists and on /metrics, on the private two-broker cluster. A
// broker killed with SIGKILL leaves the NameServer's cluster info at once: every list,
// page and API answer must name it, and a group or topic that lived only on it shows as
// unknown instead of vanishing. A broker frozen with SIGSTOP stays listed and answers
// nothing: /metrics must show it down and count its queues as unknown. Both come back
// without restarting the console.

// newFailureApp is the real console on ns with a short broker-call timeout, reading every
// group's lag for /metrics each second.
func newFailureApp(t *testing.T, ns string) *App {
	t.Helper()
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", ns,
		"--timeout", partialTimeout.String(), "--metrics-interval", "1s"}, noEnv, io.Discard)
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

type failureJSON struct {
	Broker string `json:"broker"`
	Error  string `json:"error"`
}

type groupListJSON struct {
	Groups []struct {
		Group    string        `json:"group"`
		TotalLag *int64        `json:"totalLag"`
		Topics   []string      `json:"topics"`
		Failures []failureJSON `json:"failures"`
	} `json:"groups"`
	Failures []failureJSON `json:"failures"`
}

type topicListJSON struct {
	Topics []struct {
		Topic     string   `json:"topic"`
		Brokers   []string `json:"brokers"`
		UnknownOn []string `json:"unknownOn"`
	} `json:"topics"`
	Errors []failureJSON `json:"errors"`
}

type brokerRowJSON struct {
	Name  string `json:"brokerName"`
	Addr  string `json:"addr"`
	Gone  bool   `json:"gone"`
	Error string `json:"error"`
}

// getJSON serves target and decodes its 200 answer into v.
func getJSON(t *testing.T, a *App, target string, v any) error {
	t.Helper()
	rec := grpServe(t, a, target)
	if rec.Code != 200 {
		return fmt.Errorf("%s: %d %s", target, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		return fmt.Errorf("%s: %v: %s", target, err, rec.Body)
	}
	return nil
}

// names reports whether some failure names broker with words containing want.
func names(fs []failureJSON, broker, want string) bool {
	return slices.ContainsFunc(fs, func(f failureJSON) bool { return f.Broker == broker && strings.Contains(f.Error, want) })
}

// metricValue is the value of the sample of name whose labels include every one of
// labels (`broker="broker-b"`), and whether there is one.
func metricValue(body, name string, labels ...string) (float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name+"{")
		if !ok {
			continue
		}
		set, value, ok := strings.Cut(rest, "} ")
		if !ok || slices.ContainsFunc(labels, func(l string) bool { return !strings.Contains(","+set+",", ","+l+",") }) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		return v, err == nil
	}
	return 0, false
}

// wantMetric checks one sample of /metrics: its value, or (absent) that there is none.
func wantMetric(body, name string, want float64, absent bool, labels ...string) error {
	v, ok := metricValue(body, name, labels...)
	switch {
	case absent && ok:
		return fmt.Errorf("%s%v = %v, want no sample", name, labels, v)
	case absent:
		return nil
	case !ok:
		return fmt.Errorf("%s%v: no sample", name, labels)
	case v != want:
		return fmt.Errorf("%s%v = %v, want %v", name, labels, v, want)
	}
	return nil
}

const goneWords = "missing from the NameServer's cluster info"

// A killed broker (SIGKILL, master without slave: the NameServer drops it at once) is
// named by the broker list, the overview, the topic list and the group list, as pages
// and API answers, and on /metrics as not registered and not up; a topic and a group
// that lived only on it still show, their figures unknown. Restarted, it is back on
// every list without a restart of the console.
func TestKilledBrokerIsNamedByEveryList(t *testing.T) {
	cl := dev.RequirePrivateCluster(t)
	killed := cl.Brokers[1]
	sharedTopic, _ := offlineGroupWithLag(t, cl, 2, 4)
	onlyTopic, onlyGroup := offlineGroupOn(t, cl, &killed, 2, 3)
	a := newFailureApp(t, cl.NameServer)

	// The console reads the lists while the broker is up, as it would before a crash.
	dev.Eventually(t, time.Minute, "the lists show the group and the topic on "+killed.Name, func() error {
		var gl groupListJSON
		if err := getJSON(t, a, "/api/v1/groups?refresh=1&q="+onlyGroup, &gl); err != nil {
			return err
		}
		if len(gl.Groups) != 1 || gl.Groups[0].TotalLag == nil || *gl.Groups[0].TotalLag != 3 {
			return fmt.Errorf("group list: %+v", gl)
		}
		var tl topicListJSON
		if err := getJSON(t, a, "/api/v1/topics?refresh=1&q="+onlyTopic, &tl); err != nil {
			return err
		}
		if len(tl.Topics) != 1 {
			return fmt.Errorf("topic list: %+v", tl)
		}
		return nil
	})

	if err := cl.KillBroker(killed.Name); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			if err := cl.RestartBroker(context.Background(), killed.Name); err != nil {
				t.Errorf("restart %s: %v", killed.Name, err)
			}
		}
	})
	c, err := rocketmq.New(rocketmq.Config{NameServer: cl.NameServer})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dev.Eventually(t, time.Minute, "the NameServer drops "+killed.Name, func() error {
		ci, err := c.ClusterInfo(t.Context())
		if err != nil {
			return err
		}
		if _, ok := ci.Brokers[killed.Name]; ok {
			return errors.New("still listed")
		}
		return nil
	})

	// Each list reads the cluster info afresh: the first answer after the NameServer
	// dropped the broker names it, within about one broker-call timeout.
	rec := timedServe(t, a, "/api/v1/brokers", 2*partialTimeout)
	var bl struct {
		Brokers []brokerRowJSON `json:"brokers"`
		Errors  []failureJSON   `json:"errors"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &bl); err != nil || rec.Code != 200 {
		t.Fatalf("/api/v1/brokers: %d %v %s", rec.Code, err, rec.Body)
	}
	if !slices.ContainsFunc(bl.Brokers, func(r brokerRowJSON) bool {
		return r.Name == killed.Name && r.Addr == killed.Addr && r.Gone && strings.Contains(r.Error, goneWords)
	}) || !names(bl.Errors, killed.Name, goneWords) {
		t.Errorf("/api/v1/brokers does not name %s as gone: %s", killed.Name, rec.Body)
	}

	if rec := grpServe(t, a, "/api/v1/brokers/"+killed.Name); rec.Code != 404 || !strings.Contains(rec.Body.String(), goneWords) {
		t.Errorf("/api/v1/brokers/%s: %d %s, want 404 saying it is gone", killed.Name, rec.Code, rec.Body)
	}

	var ov struct {
		Brokers []brokerRowJSON `json:"brokers"`
		Errors  []string        `json:"errors"`
	}
	rec = timedServe(t, a, "/api/v1/cluster", 2*partialTimeout)
	if err := json.Unmarshal(rec.Body.Bytes(), &ov); err != nil || rec.Code != 200 {
		t.Fatalf("/api/v1/cluster: %d %v %s", rec.Code, err, rec.Body)
	}
	if !slices.ContainsFunc(ov.Brokers, func(r brokerRowJSON) bool { return r.Name == killed.Name && r.Gone }) ||
		!slices.ContainsFunc(ov.Errors, func(e string) bool { return strings.Contains(e, killed.Name) && strings.Contains(e, goneWords) }) {
		t.Errorf("/api/v1/cluster does not name %s as gone: %+v", killed.Name, ov)
	}

	rec = timedServe(t, a, "/api/v1/topics?refresh=1", 2*partialTimeout)
	var tl topicListJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &tl); err != nil || rec.Code != 200 {
		t.Fatalf("/api/v1/topics: %d %v %s", rec.Code, err, rec.Body)
	}
	if !names(tl.Errors, killed.Name, goneWords) {
		t.Errorf("topic list does not name %s: %+v", killed.Name, tl.Errors)
	}
	for _, want := range []string{onlyTopic, sharedTopic} {
		i := slices.IndexFunc(tl.Topics, func(x struct {
			Topic     string   `json:"topic"`
			Brokers   []string `json:"brokers"`
			UnknownOn []string `json:"unknownOn"`
		}) bool {
			return x.Topic == want
		})
		if i < 0 {
			t.Errorf("topic %s vanished from the topic list with %s killed", want, killed.Name)
			continue
		}
		if got := tl.Topics[i]; !slices.Equal(got.UnknownOn, []string{killed.Name}) || !slices.Contains(got.Brokers, killed.Name) {
			t.Errorf("topic %s: brokers %v, unknown on %v; want %s among both", want, got.Brokers, got.UnknownOn, killed.Name)
		}
	}

	rec = timedServe(t, a, "/api/v1/groups?refresh=1&q="+onlyGroup, 2*partialTimeout)
	var gl groupListJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &gl); err != nil || rec.Code != 200 {
		t.Fatalf("/api/v1/groups: %d %v %s", rec.Code, err, rec.Body)
	}
	if !names(gl.Failures, killed.Name, goneWords) {
		t.Errorf("group list does not name %s: %+v", killed.Name, gl.Failures)
	}
	if len(gl.Groups) != 1 || gl.Groups[0].TotalLag != nil || !names(gl.Groups[0].Failures, killed.Name, goneWords) ||
		!slices.Contains(gl.Groups[0].Topics, onlyTopic) {
		t.Errorf("group %s, which lived only on %s: %s; want it listed with its lag unknown and %s named", onlyGroup, killed.Name, rec.Body, killed.Name)
	}

	// The pages say the same, in the reader's language.
	for _, p := range []struct{ path, sel, lang, want string }{
		{"/brokers", `tr[data-broker="` + killed.Name + `"] [data-testid=broker-gone]`, "en", goneWords},
		{"/", `[data-testid=overview-error]`, "en", killed.Name},
		{"/", `tr[data-broker="` + killed.Name + `"] [data-testid=broker-gone]`, "zh-CN", "已不在 NameServer 的集群信息中"},
		{"/topics?refresh=1", `tr[data-topic="` + onlyTopic + `"] [data-testid=topic-broker-unknown]`, "en", "unknown"},
		{"/topics", `[data-testid=topics-failure]`, "zh-CN", "已不在 NameServer 的集群信息中"},
		{"/groups?refresh=1", `[data-testid=groups-failure]`, "en", goneWords},
		{"/groups", `tr[data-group="` + onlyGroup + `"] [data-testid=group-lag]`, "en", ""},
	} {
		rec := grpServeLang(a, p.path, p.lang)
		doc, err := goquery.NewDocumentFromReader(rec.Body)
		if err != nil || rec.Code != 200 {
			t.Errorf("%s: %d %v", p.path, rec.Code, err)
			continue
		}
		sel := doc.Find(p.sel)
		if sel.Length() == 0 || !strings.Contains(sel.Text(), p.want) {
			t.Errorf("%s (%s): %s says %q, want %q", p.path, p.lang, p.sel, sel.Text(), p.want)
		}
	}

	// The metrics come from the lag collector's own refresh (every second here), which may
	// have begun before the kill: wait for one that began after it.
	b := `broker="` + killed.Name + `"`
	dev.Eventually(t, time.Minute, "/metrics with "+killed.Name+" killed", func() error {
		body := grpServe(t, a, "/metrics").Body.String()
		return errors.Join(
			wantMetric(body, "rmqconsole_broker_registered", 0, false, b),
			wantMetric(body, "rmqconsole_broker_up", 0, false, b),
			wantMetric(body, "rmqconsole_broker_registered", 1, false, `broker="`+cl.Brokers[0].Name+`"`),
			wantMetric(body, "rmqconsole_consumer_group_unknown_lag_queues", 2, false, `group="`+onlyGroup+`"`),
			wantMetric(body, "rmqconsole_consumer_group_lag", 0, true, `group="`+onlyGroup+`"`),
		)
	})

	// Restarted on its store: back on every list, nothing named, without a restart of the
	// console.
	if err := cl.RestartBroker(t.Context(), killed.Name); err != nil {
		t.Fatal(err)
	}
	restarted = true
	dev.Eventually(t, time.Minute, killed.Name+" back on every list", func() error {
		var bl struct {
			Brokers []brokerRowJSON `json:"brokers"`
			Errors  []failureJSON   `json:"errors"`
		}
		if err := getJSON(t, a, "/api/v1/brokers", &bl); err != nil {
			return err
		}
		if len(bl.Errors) > 0 || slices.ContainsFunc(bl.Brokers, func(r brokerRowJSON) bool { return r.Gone || r.Error != "" }) {
			return fmt.Errorf("brokers: %+v", bl)
		}
		var gl groupListJSON
		if err := getJSON(t, a, "/api/v1/groups?refresh=1&q="+onlyGroup, &gl); err != nil {
			return err
		}
		// (Its lag is not compared: a broker flushes committed offsets every 5 s, so a
		// SIGKILL may lose the offsets committed just before.)
		if len(gl.Failures) > 0 || len(gl.Groups) != 1 || len(gl.Groups[0].Failures) > 0 {
			return fmt.Errorf("groups: %+v", gl)
		}
		var tl topicListJSON
		if err := getJSON(t, a, "/api/v1/topics?refresh=1&q="+onlyTopic, &tl); err != nil {
			return err
		}
		if len(tl.Errors) > 0 || len(tl.Topics) != 1 || len(tl.Topics[0].UnknownOn) > 0 {
			return fmt.Errorf("topics: %+v", tl)
		}
		body := grpServe(t, a, "/metrics").Body.String()
		for _, err := range []error{
			wantMetric(body, "rmqconsole_broker_registered", 1, false, b),
			wantMetric(body, "rmqconsole_broker_up", 1, false, b),
			wantMetric(body, "rmqconsole_consumer_group_unknown_lag_queues", 0, false, `group="`+onlyGroup+`"`),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// A frozen broker (SIGSTOP: listed by the NameServer, answering nothing) on /metrics:
// it is down, its failures are counted, a group's queues on it are counted unknown and
// its lag series is the known part only, and a group that lived only on it stays, all
// its queues unknown and no lag claimed. The group list answers within about one
// broker-call timeout and keeps that group. Thawed, every figure is back.
func TestFrozenBrokerOnMetrics(t *testing.T) {
	cl := dev.RequirePrivateCluster(t)
	frozen := cl.Brokers[1]
	_, shared := offlineGroupWithLag(t, cl, 2, 4)
	_, only := offlineGroupOn(t, cl, &frozen, 3, 3)
	a := newFailureApp(t, cl.NameServer)
	b := `broker="` + frozen.Name + `"`
	g := func(group string) string { return `group="` + group + `"` }

	var sharedLag float64
	dev.Eventually(t, time.Minute, "/metrics shows both groups and "+frozen.Name+" up", func() error {
		body := grpServe(t, a, "/metrics").Body.String()
		var ok bool
		if sharedLag, ok = metricValue(body, "rmqconsole_consumer_group_lag", g(shared)); !ok || sharedLag != 4 {
			return fmt.Errorf("lag of %s: %v %v", shared, sharedLag, ok)
		}
		for _, err := range []error{
			wantMetric(body, "rmqconsole_broker_up", 1, false, b),
			wantMetric(body, "rmqconsole_broker_failures_total", 0, false, b),
			wantMetric(body, "rmqconsole_consumer_group_lag", 3, false, g(only)),
			wantMetric(body, "rmqconsole_consumer_group_unknown_lag_queues", 0, false, g(only)),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
	// What the healthy broker holds of the shared group: its part of the lag.
	var onHealthy float64
	body := grpServe(t, a, "/metrics").Body.String()
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "rmqconsole_consumer_queue_lag{") && strings.Contains(line, g(shared)) && strings.Contains(line, `broker="`+cl.Brokers[0].Name+`"`) {
			v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			onHealthy += v
		}
	}

	if err := cl.Freeze(frozen.Name); err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			if err := cl.Thaw(frozen.Name); err != nil {
				t.Error(err)
			}
		}
	}()
	frozenAt := time.Now()
	dev.Eventually(t, 30*time.Second, "/metrics shows "+frozen.Name+" down and its queues unknown", func() error {
		body := grpServe(t, a, "/metrics").Body.String()
		if v, ok := metricValue(body, "rmqconsole_broker_failures_total", b); !ok || v < 1 {
			return fmt.Errorf("failures of %s: %v %v", frozen.Name, v, ok)
		}
		for _, err := range []error{
			wantMetric(body, "rmqconsole_broker_up", 0, false, b),
			wantMetric(body, "rmqconsole_broker_registered", 1, false, b),
			wantMetric(body, "rmqconsole_broker_up", 1, false, `broker="`+cl.Brokers[0].Name+`"`),
			wantMetric(body, "rmqconsole_consumer_group_unknown_lag_queues", 3, false, g(only)),
			wantMetric(body, "rmqconsole_consumer_group_lag", 0, true, g(only)),
			wantMetric(body, "rmqconsole_consumer_group_unknown_lag_queues", 2, false, g(shared)),
			wantMetric(body, "rmqconsole_consumer_group_lag", onHealthy, false, g(shared)),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
	t.Logf("/metrics showed %s down %s after it was frozen (collector every 1 s, broker-call timeout %s)",
		frozen.Name, time.Since(frozenAt).Round(time.Millisecond), partialTimeout)

	rec := timedServe(t, a, "/api/v1/groups?refresh=1&q="+only, 2*partialTimeout)
	var gl groupListJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &gl); err != nil || rec.Code != 200 {
		t.Fatalf("/api/v1/groups: %d %v %s", rec.Code, err, rec.Body)
	}
	if len(gl.Groups) != 1 || gl.Groups[0].TotalLag != nil || !slices.ContainsFunc(gl.Groups[0].Failures, func(f failureJSON) bool { return f.Broker == frozen.Name }) {
		t.Errorf("group %s, which lives only on the frozen %s: %s; want it listed with its lag unknown and %s named", only, frozen.Name, rec.Body, frozen.Name)
	}

	if err := cl.Thaw(frozen.Name); err != nil {
		t.Fatal(err)
	}
	thawed = true
	dev.Eventually(t, time.Minute, frozen.Name+" back on /metrics", func() error {
		body := grpServe(t, a, "/metrics").Body.String()
		for _, err := range []error{
			wantMetric(body, "rmqconsole_broker_up", 1, false, b),
			wantMetric(body, "rmqconsole_consumer_group_unknown_lag_queues", 0, false, g(only)),
			wantMetric(body, "rmqconsole_consumer_group_lag", 3, false, g(only)),
			wantMetric(body, "rmqconsole_consumer_group_unknown_lag_queues", 0, false, g(shared)),
			wantMetric(body, "rmqconsole_consumer_group_lag", 4, false, g(shared)),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// grpServeLang serves target to a browser that prefers lang.
func grpServeLang(a *App, target, lang string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := newRequest(http.MethodGet, target, nil)
	req.Header.Set("Accept-Language", lang)
	a.Handler().ServeHTTP(rec, req)
	return rec
}
