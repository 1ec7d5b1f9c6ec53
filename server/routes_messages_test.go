package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/handlers"
	"rmqconsole/rocketmq"
)

// TestMain lets this package's tests use the local RocketMQ (dev.RequireCluster); tests
// that do not ask for it cost nothing. Every API answer is checked against the document.
func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(withAPIContract(func() int { return dev.RunTests(m) }))
}

// newMessagesApp builds the real console on the local RocketMQ.
func newMessagesApp(t *testing.T, ns string) *App {
	t.Helper()
	// No lag collector: its reads in the background would count as broker calls the
	// bad-input checks below assert were never made.
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", ns, "--metrics-interval", "0", "--topic-figures-interval", "0"}, noEnv, io.Discard)
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

// msgBrokerCalls counts the requests the app sent to brokers (NameServer requests apart).
func msgBrokerCalls(a *App) uint64 {
	n := a.def.rmq.TotalCalls()
	for _, ns := range []rocketmq.RequestCode{rocketmq.CodeGetRouteInfoByTopic, rocketmq.CodeGetBrokerClusterInfo, rocketmq.CodeGetAllTopicListFromNameSrv} {
		n -= a.def.rmq.CallCount(ns)
	}
	return n
}

func msgServe(t *testing.T, a *App, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := newRequest(http.MethodGet, target, nil)
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	return rec
}

// The message routes of the real console against the real broker: JSON shapes, the page
// and its links, the exports, and bad input answered without asking a broker.
func TestMessageRoutesOnRealBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topic := dev.UniqueName("http-msg")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	key := dev.UniqueName("order")
	begin := time.Now().Add(-time.Second)
	type sentMsg struct{ uniq, offsetID, body string }
	var sent []sentMsg
	for i := range 5 {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf(`{"order":%d,"note":"=1+1"}`, i)))
		m.WithTag("Paid").WithKeys([]string{key, fmt.Sprintf("n-%d", i)})
		m.WithProperty("region", "eu-west")
		r, err := p.SendSync(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, sentMsg{r.MsgID, r.OffsetMsgID, string(m.Body)})
	}
	end := time.Now().Add(time.Second)
	a := newMessagesApp(t, cl.NameServer)
	q := url.Values{"topic": {topic}, "begin": {begin.UTC().Format(time.RFC3339Nano)}, "end": {fmt.Sprint(end.UnixMilli())}}

	// The range API: the documented shape, every message.
	rec := msgServe(t, a, "/api/v1/messages?"+q.Encode())
	var list handlers.MessagesJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("range API %d: %v\n%s", rec.Code, err, rec.Body.String())
	}
	if len(list.Messages) != 5 || list.Limit != 2000 || list.Truncated || list.Total != 5 || list.TotalIsLowerBound || len(list.Errors) != 0 {
		t.Fatalf("range API: %d messages, limit %d, truncated %v, total %d, errors %v", len(list.Messages), list.Limit, list.Truncated, list.Total, list.Errors)
	}
	var raw map[string]any
	json.Unmarshal(rec.Body.Bytes(), &raw)
	first := raw["messages"].([]any)[0].(map[string]any)
	for _, k := range []string{"msgId", "offsetMsgId", "topic", "tags", "keys", "brokerName", "queueId", "queueOffset", "commitLogOffset",
		"bornTimestamp", "storeTimestamp", "bornHost", "storeHost", "reconsumeTimes", "properties", "bodySize", "body"} {
		if _, ok := first[k]; !ok {
			t.Errorf("a message lacks %q: %v", k, first)
		}
	}
	byUniq := map[string]handlers.MessageJSON{}
	for _, m := range list.Messages {
		byUniq[m.MsgID] = m
	}
	for _, s := range sent {
		m, ok := byUniq[s.uniq]
		if !ok || m.OffsetMsgID != s.offsetID || m.Body != s.body || m.Tags != "Paid" || m.Properties["region"] != "eu-west" || m.BrokerName != cl.Brokers[0].Name {
			t.Errorf("sent %s: got %+v", s.uniq, m)
		}
	}

	// The key API, once the index has them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec = msgServe(t, a, "/api/v1/messages?"+url.Values{"topic": {topic}, "key": {key}}.Encode())
		json.Unmarshal(rec.Body.Bytes(), &list)
		if len(list.Messages) == 5 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if rec.Code != http.StatusOK || len(list.Messages) != 5 || list.Limit != 64 {
		t.Errorf("key API %d: %d messages, limit %d", rec.Code, len(list.Messages), list.Limit)
	}

	// By id, both kinds.
	for _, tc := range []struct{ path, kind string }{
		{"/api/v1/messages/" + sent[2].offsetID, "offsetMsgId"},
		{"/api/v1/messages/" + sent[2].uniq + "?topic=" + topic, "uniqueKey"},
	} {
		rec = msgServe(t, a, tc.path)
		var one handlers.MessageByIDJSON
		if err := json.Unmarshal(rec.Body.Bytes(), &one); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %v", tc.path, rec.Code, err)
		}
		if one.IDKind != tc.kind || one.Message.MsgID != sent[2].uniq || one.Groups == nil {
			t.Errorf("%s: kind %q msgId %q groups %v", tc.path, one.IDKind, one.Message.MsgID, one.Groups)
		}
	}

	// Topics with their queues.
	rec = msgServe(t, a, "/api/v1/topics?q="+topic)
	var topics handlers.TopicsJSON
	json.Unmarshal(rec.Body.Bytes(), &topics)
	found := false
	for _, tp := range topics.Topics {
		if tp.Topic == topic {
			found = tp.ReadQueues == 2*len(cl.Brokers) && !tp.System
		}
		if strings.HasPrefix(tp.Topic, "%RETRY%") {
			t.Errorf("retry topic %s listed without system=true", tp.Topic)
		}
	}
	if !found {
		t.Errorf("topic %s with 2 queues per broker not in /api/v1/topics", topic)
	}

	// The page: rows, summary, export links; a row leads to the detail page.
	pageQ := url.Values{"tab": {"range"}, "topic": {topic}, "begin": {begin.UTC().Format("2006-01-02 15:04:05.000")}, "end": {end.UTC().Format("2006-01-02 15:04:05.000")}}
	rec = msgServe(t, a, "/messages?"+pageQ.Encode())
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if rec.Code != http.StatusOK || doc.Find(`[data-testid="message-row"]`).Length() != 5 {
		t.Fatalf("page %d with %d rows", rec.Code, doc.Find(`[data-testid="message-row"]`).Length())
	}
	if s := doc.Find(`[data-testid="result-summary"]`).Text(); !strings.Contains(s, "5 messages of topic "+topic) {
		t.Errorf("summary %q", s)
	}
	link, _ := doc.Find(`[data-testid="message-link"]`).First().Attr("href")
	detail := msgServe(t, a, link)
	ddoc, _ := goquery.NewDocumentFromReader(bytes.NewReader(detail.Body.Bytes()))
	if detail.Code != http.StatusOK || strings.TrimSpace(ddoc.Find(`[data-field="Topic"]`).Text()) != topic {
		t.Errorf("detail %s: %d", link, detail.Code)
	}
	if !strings.Contains(ddoc.Find(`[data-testid="properties"]`).Text(), "eu-west") {
		t.Errorf("detail lacks the property region=eu-west")
	}

	// CSV export: the same messages and a header (handlers test that formulas are defused).
	csvURL, _ := doc.Find(`[data-testid="export-csv"]`).Attr("href")
	rec = msgServe(t, a, csvURL)
	rows, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	if err != nil || rec.Code != http.StatusOK || len(rows) != 6 || rows[0][1] != "msgId" {
		t.Fatalf("CSV export %d: %v, %d rows", rec.Code, err, len(rows))
	}
	if cd := rec.Header().Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.HasSuffix(cd, `.csv"`) {
		t.Errorf("CSV Content-Disposition %q", cd)
	}
	jsURL, _ := doc.Find(`[data-testid="export-json"]`).Attr("href")
	rec = msgServe(t, a, jsURL)
	var exported handlers.MessagesJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &exported); err != nil || len(exported.Messages) != 5 || exported.Total != 5 {
		t.Errorf("JSON export: %v, %d messages", err, len(exported.Messages))
	}

	// Bad input: 422 on the page with the form kept, 400 in the API, no broker asked.
	for _, bad := range []struct{ name, query, code string }{
		{"missing topic", "tab=range&topic=&begin=2026-01-01+00:00:00&end=2026-01-01+01:00:00", "missing_topic"},
		{"unknown topic", "tab=range&topic=" + dev.UniqueName("nosuch") + "&begin=2026-01-01+00:00:00&end=2026-01-01+01:00:00", "unknown_topic"},
		{"begin after end", "tab=range&topic=" + topic + "&begin=2026-01-02+00:00:00&end=2026-01-01+00:00:00", "bad_range"},
		{"malformed id", "tab=id&id=not+an+id", "bad_id"},
		{"unique key without topic", "tab=id&id=" + sent[0].uniq[:20], "missing_topic"},
	} {
		before := msgBrokerCalls(a)
		rec = msgServe(t, a, "/messages?"+bad.query)
		doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
		if rec.Code != http.StatusUnprocessableEntity || doc.Find(`form.message-search`).Length() != 1 {
			t.Errorf("%s: page %d", bad.name, rec.Code)
		}
		api := msgServe(t, a, "/api/v1/messages?"+bad.query)
		var e handlers.APIError
		if json.Unmarshal(api.Body.Bytes(), &e); api.Code != http.StatusBadRequest || e.Code != bad.code {
			t.Errorf("%s: API %d %s", bad.name, api.Code, api.Body.String())
		}
		if n := msgBrokerCalls(a) - before; n != 0 {
			t.Errorf("%s: %d broker requests for bad input", bad.name, n)
		}
	}
	// An id that names nothing: 404.
	if rec = msgServe(t, a, "/api/v1/messages/"+dev.UniqueName("NOPE")+"?topic="+topic); rec.Code != http.StatusNotFound {
		t.Errorf("unknown unique key: %d %s", rec.Code, rec.Body.String())
	}
}

// 2300 messages in range, sent in batches of 40 (a batch is stored in one millisecond):
// the newest 2000 are shown, and the page's "older" link and the API's olderEnd and
// olderSkip lead to exactly the other 300, though the cut falls inside a millisecond
// whose newer rows were shown already. The pages together hold every message once.
func TestOlderPageOfARangeShowsOnlyTheRowsNotShown(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topic := dev.UniqueName("http-older")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	const n, batch = 2300, 40
	begin := time.Now().Add(-time.Second)
	for i := 0; i < n; i += batch {
		var ms []*primitive.Message
		for j := i; j < min(i+batch, n); j++ {
			ms = append(ms, primitive.NewMessage(topic, fmt.Appendf(nil, "m-%04d", j)))
		}
		if _, err := p.SendSync(ctx, ms...); err != nil {
			t.Fatal(err)
		}
	}
	end := time.Now().Add(time.Second)
	a := newMessagesApp(t, cl.NameServer)
	q := url.Values{"topic": {topic}, "begin": {fmt.Sprint(begin.UnixMilli())}, "end": {fmt.Sprint(end.UnixMilli())}}

	type page struct {
		handlers.MessagesJSON
		OlderSkip *int `json:"olderSkip"`
	}
	get := func(q url.Values) page {
		t.Helper()
		rec := msgServe(t, a, "/api/v1/messages?"+q.Encode())
		var pg page
		if err := json.Unmarshal(rec.Body.Bytes(), &pg); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("range API %d: %v\n%.500s", rec.Code, err, rec.Body.String())
		}
		return pg
	}
	rowKey := func(m handlers.MessageJSON) string {
		return fmt.Sprintf("%s/%d/%d", m.BrokerName, m.QueueID, m.QueueOffset)
	}
	newest := get(q)
	if len(newest.Messages) != 2000 || !newest.Truncated || newest.Total != n || newest.OlderEnd == nil {
		t.Fatalf("first page: %d messages, truncated %v, total %d, olderEnd %v", len(newest.Messages), newest.Truncated, newest.Total, newest.OlderEnd)
	}
	cut := *newest.OlderEnd
	shownAtCut := 0
	for _, m := range newest.Messages {
		if m.StoreTimestamp == cut {
			shownAtCut++
		}
	}
	if newest.OlderSkip == nil || *newest.OlderSkip != shownAtCut {
		t.Errorf("olderSkip %v, want the %d rows of the cut millisecond %d already shown", newest.OlderSkip, shownAtCut, cut)
	}

	// The page links to the same next page.
	doc, err := goquery.NewDocumentFromReader(msgServe(t, a, "/messages?tab=range&"+q.Encode()).Body)
	if err != nil {
		t.Fatal(err)
	}
	href, _ := doc.Find(`[data-testid="older"]`).Attr("href")
	link, err := url.Parse(href)
	if err != nil || link.Query().Get("end") != fmt.Sprint(cut) || link.Query().Get("skip") != fmt.Sprint(shownAtCut) {
		t.Errorf("older link %q, want end=%d and skip=%d", href, cut, shownAtCut)
	}
	olderPage := msgServe(t, a, href)
	if doc, err := goquery.NewDocumentFromReader(olderPage.Body); err != nil || olderPage.Code != http.StatusOK ||
		!strings.Contains(doc.Find(`[data-testid="result-summary"]`).Text(), "300 messages") {
		t.Errorf("the older page (%d) says %q, want 300 messages", olderPage.Code, doc.Find(`[data-testid="result-summary"]`).Text())
	}

	older := get(link.Query())
	if older.Truncated || older.OlderEnd != nil {
		t.Errorf("the older page is truncated %v with olderEnd %v: it holds the rest", older.Truncated, older.OlderEnd)
	}
	seen := map[string]int{}
	for _, pg := range []page{newest, older} {
		for _, m := range pg.Messages {
			seen[rowKey(m)]++
		}
	}
	atCut := 0
	for _, m := range older.Messages {
		if m.StoreTimestamp == cut {
			atCut++
		}
	}
	if atCut == 0 {
		t.Fatalf("the cut at %d does not fall inside a millisecond (%d rows of it shown, none after): the test proves nothing", cut, shownAtCut)
	}
	for k, c := range seen {
		if c > 1 {
			t.Errorf("%s is on both pages", k)
		}
	}
	if len(older.Messages) != n-2000 || len(seen) != n {
		t.Errorf("the older page has %d rows (%d of them of the cut millisecond), the pages %d distinct messages; want %d rows and all %d",
			len(older.Messages), atCut, len(seen), n-2000, n)
	}
}

// Filters through the real console on the real broker: messages with varied
// properties, tags and bodies (JSON and binary), filtered by SQL92 and body conditions
// in the range and key API, the matches counted against what was read; a bad filter
// answered before any broker is asked; a row's whole body opened as the page does.
func TestMessageFiltersOnRealBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	topic := dev.UniqueName("http-filter")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	key := dev.UniqueName("fk")
	begin := time.Now().Add(-time.Second)
	offsetIDs := map[int]string{}
	for i := range 30 {
		body := fmt.Sprintf("{\n  \"order\": %d,\n  \"total\": %d\n}", i, i*10)
		if i%5 == 4 {
			body = fmt.Sprintf("\x00\x01binary-%d", i)
		}
		m := primitive.NewMessage(topic, []byte(body))
		m.WithTag([]string{"Paid", "Open"}[i%2]).WithKeys([]string{key})
		m.WithProperty("region", []string{"eu", "us", "ap"}[i%3])
		r, err := p.SendSync(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		offsetIDs[i] = r.OffsetMsgID
	}
	end := time.Now().Add(time.Second)
	a := newMessagesApp(t, cl.NameServer)
	orders := func(l handlers.MessagesJSON) []int {
		var out []int
		for _, m := range l.Messages {
			var b struct{ Order int }
			if json.Unmarshal([]byte(m.Body), &b) != nil {
				b.Order = -1
			}
			out = append(out, b.Order)
		}
		slices.Sort(out)
		return out
	}
	rangeQ := url.Values{"topic": {topic}, "begin": {fmt.Sprint(begin.UnixMilli())}, "end": {fmt.Sprint(end.UnixMilli())},
		"where": {"region = 'eu' AND TAGS = 'Paid'"}, "json": {"total"}, "jsonOp": {">="}, "jsonValue": {"60"}}
	rec := msgServe(t, a, "/api/v1/messages?"+rangeQ.Encode())
	var list handlers.MessagesJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("range API %d: %v\n%s", rec.Code, err, rec.Body.String())
	}
	// eu and Paid: i%6 == 0; total ≥ 60: i ≥ 6; JSON bodies only (i%5 != 4, so not 24).
	if got := orders(list); !slices.Equal(got, []int{6, 12, 18}) || list.Total != 3 || list.Scanned != 30 {
		t.Errorf("range API kept orders %v (total %d, read %d), want [6 12 18] of 30 read", got, list.Total, list.Scanned)
	}

	keyQ := url.Values{"topic": {topic}, "key": {key}, "bodyContains": {"binary-"}, "where": {"region IN ('us', 'ap')"}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec = msgServe(t, a, "/api/v1/messages?"+keyQ.Encode())
		json.Unmarshal(rec.Body.Bytes(), &list)
		// Binary bodies (i%5 == 4: 4 9 14 19 24 29) not in eu (i%3 != 0): 4 14 19 29.
		if len(list.Messages) == 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if rec.Code != http.StatusOK || len(list.Messages) != 4 {
		t.Errorf("key API %d: %d messages, want the 4 binary ones outside eu", rec.Code, len(list.Messages))
	}
	for _, m := range list.Messages {
		if !strings.HasPrefix(m.Body, "\x00\x01binary-") || m.Properties["region"] == "eu" {
			t.Errorf("key API kept %+v", m)
		}
	}

	before := msgBrokerCalls(a)
	for _, bad := range []struct{ name, param, value, code string }{
		{"SQL92 syntax error", "where", "region = 'eu' AND", "sql92"},
		{"regular expression", "bodyRegex", "order(", "regex"},
	} {
		q := url.Values{"topic": {topic}, "key": {key}, bad.param: {bad.value}}
		api := msgServe(t, a, "/api/v1/messages?"+q.Encode())
		var e handlers.APIError
		if json.Unmarshal(api.Body.Bytes(), &e); api.Code != http.StatusBadRequest || e.Code != bad.code {
			t.Errorf("%s: API %d %s", bad.name, api.Code, api.Body.String())
		}
		q.Set("tab", "key")
		if page := msgServe(t, a, "/messages?"+q.Encode()); page.Code != http.StatusUnprocessableEntity {
			t.Errorf("%s: page %d", bad.name, page.Code)
		}
	}
	if n := msgBrokerCalls(a) - before; n != 0 {
		t.Errorf("%d broker requests for bad filters", n)
	}

	// A row's whole body, as the page opens it: decoded, said how.
	rec = msgServe(t, a, "/messages/"+offsetIDs[3]+"/body?"+url.Values{"topic": {topic}, "part": {"row"}}.Encode())
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if got := doc.Find(`[data-testid="body-full-text"]`).Text(); rec.Code != http.StatusOK || got != "{\n  \"order\": 3,\n  \"total\": 30\n}" ||
		doc.Find(`[data-testid="body-how"]`).Text() != "JSON" {
		t.Errorf("body row %d: %q, read as %q", rec.Code, got, doc.Find(`[data-testid="body-how"]`).Text())
	}
	rec = msgServe(t, a, "/messages/"+offsetIDs[4]+"/body?"+url.Values{"topic": {topic}, "part": {"row"}}.Encode())
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if kind, _ := doc.Find(`[data-testid="body-how"]`).Attr("data-kind"); kind != "hex" || !strings.Contains(doc.Find(`[data-testid="body-full-text"]`).Text(), "binary-4") {
		t.Errorf("binary body row: kind %q, %q", kind, doc.Find(`[data-testid="body-full-text"]`).Text())
	}
}
