package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/masking"
)

// A real producer sends an order whose customer's e-mail and user id a masking rule
// covers. A viewer finds the message but never the values: not on the results page, the
// message page, the body row, the API's JSON, the CSV export, nor through a filter that
// matches on the value (it returns no row, where an operator's same filter returns the
// message). An operator sees it whole, and may copy it; a viewer may not.
func TestAViewerNeverSeesAMaskedValueWhereAnOperatorDoes(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName("masked")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	const email, userID, orderKey = "zoe.secret@example.com", "user-77-hidden", "order-key-secret-42"
	conf := filepath.Join(t.TempDir(), "console.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`[[clusters]]
name = "default"
namesrv = [%q]

[[masking.rules]]
topic = "masked-*"
json_paths = ["customer.email"]
properties = ["userId", "KEYS"]
`, cl.NameServer)), 0o600); err != nil {
		t.Fatal(err)
	}
	begin := time.Now().Add(-time.Minute).UnixMilli()
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	m := primitive.NewMessage(topic, []byte(`{"order":42,"customer":{"name":"Zoë","email":"`+email+`"}}`))
	m.WithProperty("userId", userID)
	m.WithKeys([]string{orderKey})
	sent, err := p.SendSync(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--config", conf, "--metrics-interval", "0"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	addUsers(t, a, roleUsers)
	viewer, operator := sessionCookie(t, a, "vera"), sessionCookie(t, a, "otto")
	get := func(who *http.Cookie, target string) *httptest.ResponseRecorder {
		t.Helper()
		req := newRequest(http.MethodGet, target, nil)
		req.AddCookie(who)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec
	}
	search := func(extra url.Values) url.Values {
		v := url.Values{"topic": {topic}, "begin": {strconv.FormatInt(begin, 10)},
			"end": {strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10)}}
		for k, vs := range extra {
			v[k] = vs
		}
		return v
	}
	listed := func(who *http.Cookie, extra url.Values) []map[string]any {
		t.Helper()
		rec := get(who, "/api/v1/messages?"+search(extra).Encode())
		if rec.Code != http.StatusOK {
			t.Fatalf("API %d: %s", rec.Code, rec.Body)
		}
		var out struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out.Messages
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(listed(operator, nil)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the message sent never showed in its range")
		}
		time.Sleep(200 * time.Millisecond)
	}
	leaks := func(what, s string) {
		t.Helper()
		if strings.Contains(s, email) || strings.Contains(s, userID) || strings.Contains(s, orderKey) {
			t.Errorf("%s shows a masked value to a viewer:\n%s", what, s)
		}
		if !strings.Contains(s, masking.Marker) {
			t.Errorf("%s shows no marker where the masked values were:\n%s", what, s)
		}
	}

	// The API's JSON: the document keeps its shape, with the marker in the field.
	ms := listed(viewer, nil)
	if len(ms) != 1 {
		t.Fatalf("viewer's API answer: %v", ms)
	}
	if ms[0]["masked"] != true {
		t.Errorf("the API does not say the message is masked: %v", ms[0])
	}
	raw, _ := json.Marshal(ms[0])
	leaks("the API", string(raw))
	var doc struct {
		Customer struct{ Name, Email string }
	}
	if err := json.Unmarshal([]byte(ms[0]["body"].(string)), &doc); err != nil || doc.Customer.Name != "Zoë" || doc.Customer.Email != masking.Marker {
		t.Errorf("the masked body lost its shape: %v %+v", err, doc)
	}
	one := get(viewer, "/api/v1/messages/"+sent.OffsetMsgID+"?topic="+url.QueryEscape(topic))
	leaks("the API's message", one.Body.String())

	// The results page, the message page and the row that opens under a result.
	page := get(viewer, "/messages?"+search(url.Values{"tab": {"range"}}).Encode())
	rows, _ := goquery.NewDocumentFromReader(page.Body)
	leaks("the results page", rows.Find(`[data-testid="body-preview"]`).Text())
	if rows.Find(`[data-testid="row-masked"]`).Length() != 1 {
		t.Error("the result row does not say it is masked")
	}
	detail := get(viewer, "/messages/"+sent.OffsetMsgID+"?topic="+url.QueryEscape(topic))
	dd, _ := goquery.NewDocumentFromReader(strings.NewReader(detail.Body.String()))
	leaks("the message page", detail.Body.String())
	if !strings.Contains(dd.Find(`[data-testid="body-masked"]`).Text(), "viewer") {
		t.Errorf("the message page does not say the body is masked for the viewer's role")
	}
	leaks("the body row", get(viewer, "/messages/"+sent.OffsetMsgID+"/body?"+url.Values{"topic": {topic}, "part": {"row"}}.Encode()).Body.String())
	if s := get(viewer, "/messages/"+sent.OffsetMsgID+"/body?topic="+url.QueryEscape(topic)).Body.String(); strings.Contains(s, email) {
		t.Errorf("the body download shows the masked e-mail: %s", s)
	}

	// The exports.
	csv := get(viewer, "/messages/export?"+search(url.Values{"tab": {"range"}, "format": {"csv"}}).Encode())
	if csv.Code != http.StatusOK {
		t.Fatalf("CSV export %d: %s", csv.Code, csv.Body)
	}
	leaks("the CSV export", csv.Body.String())
	leaks("the JSON export", get(viewer, "/messages/export?"+search(url.Values{"tab": {"range"}, "format": {"json"}}).Encode()).Body.String())

	// Filters on the masked values: none matches for the viewer, each for the operator.
	for _, f := range []url.Values{
		{"json": {"customer.email"}, "jsonValue": {email}},
		{"bodyContains": {"zoe.secret"}},
		{"bodyRegex": {`secret@example\.com`}},
		{"where": {"userId = '" + userID + "'"}},
	} {
		if got := listed(viewer, f); len(got) != 0 {
			t.Errorf("filter %v matched %d rows for a viewer: the value leaks through the match", f, len(got))
		}
		if got := listed(operator, f); len(got) != 1 {
			t.Errorf("filter %v matched %d rows for an operator, want 1", f, len(got))
		}
		if rec := get(viewer, "/api/v1/messages?"+search(f).Encode()+"&scan=deep"); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), sent.OffsetMsgID) {
			t.Errorf("deep scan with filter %v for a viewer: %d, want 200 without the message:\n%s", f, rec.Code, rec.Body)
		}
		if rec := get(operator, "/api/v1/messages?"+search(f).Encode()+"&scan=deep"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), sent.OffsetMsgID) {
			t.Errorf("deep scan with filter %v for an operator: %d, want 200 with the message:\n%s", f, rec.Code, rec.Body)
		}
	}

	// A search by a masked key would tell the key by what it finds: refused to a viewer.
	byKey := "/api/v1/messages?" + url.Values{"topic": {topic}, "key": {orderKey}}.Encode()
	if rec := get(viewer, byKey); rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), sent.OffsetMsgID) {
		t.Errorf("a viewer's search by a masked key: %d %s", rec.Code, rec.Body)
	}
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(get(operator, byKey).Body.String(), sent.OffsetMsgID) {
		if time.Now().After(deadline) {
			t.Fatal("an operator's search by key never found the message")
		}
		time.Sleep(300 * time.Millisecond)
	}

	// The operator reads it whole; only the operator may copy it.
	if s := get(operator, "/messages/"+sent.OffsetMsgID+"?topic="+url.QueryEscape(topic)).Body.String(); !strings.Contains(s, email) || strings.Contains(s, `data-testid="body-masked"`) {
		t.Error("an operator does not see the body whole")
	}
	copyURL := "/messages/" + sent.OffsetMsgID + "/copy?" + url.Values{"topic": {topic}, "to": {topic}}.Encode()
	if rec := get(operator, copyURL); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), email) {
		t.Errorf("an operator's copy form: %d", rec.Code)
	}
	if rec := get(viewer, copyURL); rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), email) {
		t.Errorf("a viewer's copy of a masked message: %d", rec.Code)
	}
}

// A rule masks a topic's keys and tags. A viewer learns neither through the message's
// trace, nor by searching the range by tag (its further rows, the deep scan), nor by a key
// search of a dead letter topic, whose messages are masked by the topic they were sent
// to; and the message's page still shows the true state of a group that subscribes by
// that tag, judged by the stored tag.
func TestAViewerLearnsNoMaskedKeyOrTagFromTracesSearchesOrGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topic := dev.UniqueName("masked")
	if err := cl.CreateTopic(ctx, topic, 1); err != nil {
		t.Fatal(err)
	}
	const key, tag = "trace-key-secret-9", "tagsecret"
	conf := filepath.Join(t.TempDir(), "console.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`[[clusters]]
name = "default"
namesrv = [%q]

[[masking.rules]]
topic = "masked-*"
properties = ["KEYS", "TAGS"]
`, cl.NameServer)), 0o600); err != nil {
		t.Fatal(err)
	}
	begin := time.Now().Add(-time.Minute).UnixMilli()
	sent := dev.Produce(t, cl.NameServer, topic, dev.ProduceOptions{Key: key, Tag: tag, Trace: true})[0]
	group := dev.UniqueName("gtag")
	c, err := rmq.NewPushConsumer(consumer.WithNameServer([]string{cl.NameServer}), consumer.WithGroupName(group),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset), consumer.WithConsumerModel(consumer.Clustering))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: tag},
		func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Shutdown() })

	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--config", conf, "--metrics-interval", "0"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	addUsers(t, a, roleUsers)
	viewer, operator := sessionCookie(t, a, "vera"), sessionCookie(t, a, "otto")
	get := func(who *http.Cookie, target string) *httptest.ResponseRecorder {
		t.Helper()
		req := newRequest(http.MethodGet, target, nil)
		req.AddCookie(who)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec
	}
	msgURL := "/messages/" + sent.OffsetMsgID + "?topic=" + url.QueryEscape(topic)
	hidden := func(what, s string) {
		t.Helper()
		if strings.Contains(s, key) || strings.Contains(s, tag) {
			t.Errorf("%s shows a masked key or tag to a viewer:\n%s", what, s)
		}
	}

	// The trace: read whole by the operator once the producer's record is in.
	traceURL := "/api/v1/messages/" + sent.OffsetMsgID + "/trace?topic=" + url.QueryEscape(topic)
	dev.Eventually(t, 60*time.Second, "the send's trace", func() error {
		if s := get(operator, traceURL).Body.String(); !strings.Contains(s, key) || !strings.Contains(s, tag) {
			return fmt.Errorf("the operator's trace has no key or tag yet: %s", s)
		}
		return nil
	})
	tr := get(viewer, traceURL)
	if tr.Code != http.StatusOK || !strings.Contains(tr.Body.String(), masking.Marker) {
		t.Errorf("a viewer's trace: %d %s", tr.Code, tr.Body)
	}
	hidden("the trace API", tr.Body.String())

	// The group subscribes by the tag and has consumed the message: so it says, to both.
	groupState := func(who *http.Cookie) (state string) {
		var out struct {
			Groups []struct{ Group, State string }
		}
		if err := json.Unmarshal(get(who, "/api/v1/messages/"+sent.OffsetMsgID+"?topic="+url.QueryEscape(topic)).Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		for _, g := range out.Groups {
			if g.Group == group {
				return g.State
			}
		}
		return ""
	}
	dev.Eventually(t, 60*time.Second, "the tag group consumed the message", func() error {
		if s := groupState(operator); s != "consumed" {
			return fmt.Errorf("operator sees the group %q", s)
		}
		return nil
	})
	if s := groupState(viewer); s != "consumed" {
		t.Errorf("a viewer sees the group that subscribes by the masked tag as %q, want consumed", s)
	}
	page, err := goquery.NewDocumentFromReader(get(viewer, msgURL).Body)
	if err != nil {
		t.Fatal(err)
	}
	// The group's own subscription names the tag, as the group's page does: it is the
	// group's, not the message's.
	for _, part := range []string{"fields", "properties", "trace"} {
		h, _ := page.Find(`[data-testid="` + part + `"]`).Html()
		hidden("the message page's "+part, h)
	}
	if s := page.Find(`tr[data-group="` + group + `"] [data-testid="group-state"]`).Text(); s != "consumed" {
		t.Errorf("the viewer's message page shows the tag's group as %q, want consumed", s)
	}

	// A search by the tag, on every path the range search takes.
	search := url.Values{"tab": {"range"}, "topic": {topic}, "tag": {tag}, "begin": {strconv.FormatInt(begin, 10)},
		"end": {strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10)}}
	for _, target := range []string{"/messages?" + search.Encode() + "&part=rows", "/api/v1/messages?" + search.Encode() + "&scan=deep",
		"/messages/export?" + search.Encode() + "&format=csv"} {
		rec := get(viewer, target)
		if rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), sent.OffsetMsgID) {
			t.Errorf("%s: a viewer's search by a masked tag answered %d:\n%s", target, rec.Code, rec.Body)
		}
	}
	if rec := get(operator, "/api/v1/messages?"+search.Encode()+"&scan=deep"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), sent.OffsetMsgID) {
		t.Errorf("an operator's deep scan by the tag: %d %s", rec.Code, rec.Body)
	}

	// A dead letter topic holds messages of any topic its group consumes.
	dlq := "/api/v1/messages?" + url.Values{"topic": {"%DLQ%" + group}, "key": {key}}.Encode()
	if rec := get(viewer, dlq); rec.Code != http.StatusForbidden {
		t.Errorf("a viewer's key search of a dead letter topic: %d %s", rec.Code, rec.Body)
	}
	if rec := get(operator, dlq); rec.Code == http.StatusForbidden {
		t.Errorf("an operator's key search of a dead letter topic was refused: %s", rec.Body)
	}
}
