package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"

	"rmqconsole/alerts"
	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
	"rmqconsole/deadletters"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
	"rmqconsole/views"
)

// rocketMQNames are written alike in both languages (RocketMQ's Chinese documentation
// keeps them in Latin letters): they never make a run of English on a Chinese page.
var rocketMQNames = regexp.MustCompile(`\b(NameServer|NameServers|Broker|Brokers|Proxy|Topic|Tag|Key|POP|gRPC|TPS|CommitLog|RocketMQ|` +
	`Remoting|ACL|JSON|CSV|API|URL|UTC|ID|MessageListenerOrderly|MessageListenerConcurrently|CLUSTERING|BROADCASTING|mqadmin|jstack)\b`)

// englishRun is three English words in a row: a sentence left in English. A word has a
// lower-case letter, so a format such as YYYY-MM-DD HH:MM:SS is none.
var englishRun = regexp.MustCompile(`[A-Za-z]*[a-z][A-Za-z'’]*(?:[ ,;:]+[A-Za-z]*[a-z][A-Za-z'’]*){2,}`)

// englishRuns lists the runs of English words a reader of d sees: its text and visible
// attributes, outside code, identifiers and the names in monospace (groups, topics,
// client ids), and outside the values the fixture itself wrote (its data, not the
// console's words).
func englishRuns(d *goquery.Document, fixture ...string) []string {
	d.Find("code, pre, script, style, .mono, [data-testid=\"detail-id\"], textarea, option[value]").Remove()
	clean := func(s string) string {
		for _, f := range fixture {
			s = strings.ReplaceAll(s, f, " ")
		}
		return rocketMQNames.ReplaceAllString(s, "·")
	}
	var out []string
	d.Find("body").Find("*").AddBack().Each(func(_ int, el *goquery.Selection) {
		for _, a := range []string{"title", "placeholder", "aria-label", "alt", "data-confirm", "hx-confirm"} {
			if v, ok := el.Attr(a); ok {
				out = append(out, englishRun.FindAllString(clean(v), -1)...)
			}
		}
		el.Contents().Each(func(_ int, c *goquery.Selection) {
			if goquery.NodeName(c) == "#text" {
				out = append(out, englishRun.FindAllString(clean(c.Text()), -1)...)
			}
		})
	})
	return out
}

// getChinese asks h for target as a Chinese reader would.
func getChinese(t *testing.T, h http.Handler, target string) *goquery.Document {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	h.ServeHTTP(rec, req.WithContext(i18n.With(req.Context(), i18n.Match("zh-CN"))))
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: status %d: %s", target, rec.Code, rec.Body.String())
	}
	return doc(t, rec)
}

// The main pages, with data on them, say no sentence in English to a Chinese reader:
// every run of three English words outside code and names is a sentence left out of
// the catalogues.
func TestMainPagesSayNoEnglishInChinese(t *testing.T) {
	gr := newGroupRouter(t, true)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rules := alerts.NewService(st, alerts.Options{})
	if _, err := rules.Create(t.Context(), alerts.Who{Actor: "olga"}, alerts.RuleInput{Group: "order-*", Threshold: 10,
		WebhookURL: "https://hooks.slack.com/services/T000/B000/X", Format: alerts.FormatSlack}); err != nil {
		t.Fatal(err)
	}
	alertsPage := newEngine()
	alertsPage.GET("/alerts", (&Alerts{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Rules: rules}).Show)
	cf := clustertest.New()
	cf.SetNameServers("ns1:9876", "ns2:9876")
	cf.Down("ns2:9876")
	cf.AddBroker("broker-b", "10.0.0.2:10911")
	cf.AddBroker("broker-a", "10.0.0.1:10911")
	cf.AddSlave("broker-a", "10.0.0.11:10911")
	cf.AddTopic("orders", 4)
	cf.SetRuntime("10.0.0.1:10911", map[string]string{"brokerVersionDesc": "V5_3_3", "putTps": "10.0 12.5 9.0", "commitLogDiskRatio": "0.42"})
	cf.SetRuntime("10.0.0.11:10911", map[string]string{"brokerVersionDesc": "V5_3_3"})
	cf.Down("10.0.0.2:10911")
	homeEnv := &Env{Log: slog.New(slog.DiscardHandler), Cluster: &views.ClusterChrome{Name: "east", Label: "East",
		All: []views.ClusterLink{{Name: "east", Label: "East", URL: "/c/east/", Current: true}, {Name: "west", Label: "West", URL: "/c/west/"}}}}
	home := newEngine()
	home.GET("/", (&Home{Env: homeEnv,
		Overview: func(ctx context.Context) (*brokers.Overview, error) {
			return brokers.New(cf, cluster.New(cf, cluster.Options{})).Overview(ctx)
		},
		Clusters: func(context.Context) []ClusterHealth {
			m := i18n.M("cluster.health.no_namesrv")
			return []ClusterHealth{{Name: "east", Label: "East", URL: "/c/east/"},
				{Name: "west", Label: "West", URL: "/c/west/", Health: brokers.Health{Errors: []string{m.String()}, Problems: []i18n.Message{m}}}}
		}}).Show)
	f := msgFake(6)
	msgs := msgRouter(lookup.New(f, lookup.Options{}))
	pages := []struct {
		name string
		h    http.Handler
		path string
		// fixture are the fake's own English values shown as they are.
		fixture []string
	}{
		{"overview", home, "/", nil},
		{"groups", gr, "/groups", []string{"No offsets are stored for this group yet."}},
		{"group", gr, "/groups/orders", []string{"Leaves out 1 of 2 queues whose lag is unknown.", "Broker broker-b did not answer: connection refused", "connection refused"}},
		{"client", clientRouter(&fakeClients{}), "/groups/orders/clients/10.0.0.5@go", []string{"goroutine 1 [running]:"}},
		{"topics", topicsRouter(sampleTopics()), "/topics", []string{"i/o timeout"}},
		{"topic", topicsRouter(sampleTopics()), "/topics/orders", []string{"i/o timeout"}},
		{"messages", msgs, "/messages", nil},
		{"messages-key", msgs, "/messages?tab=key&topic=T&key=key-1", []string{"hello 1"}},
		{"brokers", brokersRouter(&fakeBrokers{}), "/brokers", nil},
		{"broker", brokersRouter(&fakeBrokers{}), "/brokers/broker-a", nil},
		{"alerts", alertsPage, "/alerts", nil},
		{"messages-range", msgs, "/messages?tab=range&topic=T&begin=" + msgT0.Format("2006-01-02T15:04:05Z") + "&end=" + msgT0.Add(10e9).Format("2006-01-02T15:04:05Z"), nil},
	}
	if runs := englishRuns(doc(t, gr.get(t, "/groups/orders"))); len(runs) == 0 {
		t.Fatal("the English group page has no run of English words: the guard sees nothing")
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			gin.SetMode(gin.TestMode)
			d := getChinese(t, p.h, p.path)
			for _, s := range englishRuns(d, p.fixture...) {
				t.Errorf("%s says %q in English to a Chinese reader", p.path, s)
			}
		})
	}
}

// The message page with its trace says no sentence in English to a Chinese reader.
func TestMessagePageSaysNoEnglishInChinese(t *testing.T) {
	f, m := traceFake()
	d := getChinese(t, msgRouter(lookup.New(f, lookup.Options{})), "/messages/"+m.OffsetMsgID())
	for _, s := range englishRuns(d, "hello 0") {
		t.Errorf("the message page says %q in English to a Chinese reader", s)
	}
}

// The group page's retries and dead letters, and the overview of every dead-letter
// topic, say a broker that could not count them, a refusal and a missing topic in
// Chinese.
func TestGroupDeadLettersSayNoEnglishInChinese(t *testing.T) {
	zh := i18n.Match("zh-CN")
	fail := cluster.BrokerFailure{Broker: "broker-b", Addr: "10.0.0.2:10911", Topic: "%DLQ%billing", Op: "topic stats",
		Err: &rocketmq.ConnError{Addr: "10.0.0.2:10911", Err: errors.New("refused")}}
	vm := groupDeadLettersIn(zh, &deadletters.GroupTopics{
		Retry: deadletters.TopicCount{Topic: "%RETRY%billing"},
		DLQ:   deadletters.TopicCount{Topic: "%DLQ%billing", Exists: true, Stored: 3, Failures: []cluster.BrokerFailure{fail}},
	}, nil, time.Now(), false)
	texts := []string{vm.Note, vm.Error}
	for _, r := range vm.Rows {
		texts = append(texts, r.Kind, r.Note, r.Stored)
		texts = append(texts, r.Failures...)
	}
	refused := groupDeadLettersIn(zh, nil, &rocketmq.AccessError{AccessKey: "rmqc", Denial: rocketmq.DenialBadSignature, Addr: "10.0.0.1:10911"}, time.Now(), true)
	texts = append(texts, refused.Error)
	// The overview of every dead-letter topic: a count not known, none stored, the broker that failed.
	dlqs := []deadletters.GroupDLQ{
		{Group: "billing", TopicCount: deadletters.TopicCount{Topic: "%DLQ%billing", Exists: true, Failures: []cluster.BrokerFailure{fail}}},
		{Group: "drained", TopicCount: deadletters.TopicCount{Topic: "%DLQ%drained", Exists: true, Counted: 1}},
	}
	all := deadLettersVM(zh, dlqs, dlqs, time.Now())
	texts = append(texts, zh.N("dlqs.shown", all.Total, "Shown", zh.Int(2)))
	texts = append(texts, all.Failures...)
	for _, r := range all.Rows {
		texts = append(texts, r.Stored, r.Newest)
	}
	for _, s := range texts {
		if run := englishRun.FindString(rocketMQNames.ReplaceAllString(s, "·")); run != "" {
			t.Errorf("%q says %q in English", s, run)
		}
	}
}

// A connection that failed is said in the reader's words; one wrapped in more words
// keeps them.
func TestSayErrInChinese(t *testing.T) {
	zh := i18n.Match("zh-CN")
	ce := &rocketmq.ConnError{Addr: "10.0.0.1:9876", Err: errors.New("connection refused")}
	if got, want := sayErr(zh, ce), "连接 10.0.0.1:9876 失败：connection refused"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := sayErr(i18n.Match("en"), ce); got != ce.Error() {
		t.Errorf("English %q, want %q", got, ce.Error())
	}
	wrapped := fmt.Errorf("no NameServer answered: %w", ce)
	if got := sayErr(zh, wrapped); got != wrapped.Error() {
		t.Errorf("wrapped %q, want its own words", got)
	}
}
