package handlers

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gin-gonic/gin"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
)

var msgT0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// msgFake is two brokers holding n messages of topic T, one every 100 ms from msgT0.
func msgFake(n int) *clustertest.Fake {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddTopic("T", 2, "broker-a", "broker-b")
	f.AddTopic("%RETRY%g", 1, "broker-a")
	for i := range n {
		b := []string{"broker-a", "broker-b"}[i%2]
		m := clustertest.NewMessage(fmt.Sprintf(`{"n":%d,"text":"hello %d"}`, i, i), "TagA", []string{fmt.Sprintf("key-%d", i)},
			fmt.Sprintf("7F000001%024X", i), msgT0.Add(time.Duration(i)*100*time.Millisecond))
		m.Properties["color"] = "blue"
		f.Put("T", b, (i/2)%2, m)
	}
	return f
}

// msgRouter serves the message routes over svc, as server/routes_messages.go does.
func msgRouter(svc *lookup.Service) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Lookup: svc, Now: func() time.Time { return msgT0.Add(time.Hour) }}
	r.GET("/messages", h.Search)
	r.GET("/messages/export", h.Export)
	r.GET("/messages/:id", h.Show)
	r.GET("/messages/:id/body", h.Body)
	r.GET("/api/v1/messages", h.API)
	r.GET("/api/v1/messages/:id", h.ShowAPI)
	r.GET("/api/v1/messages/:id/trace", h.TraceAPI)
	return r
}

func msgGet(t testing.TB, h http.Handler, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func msgDoc(t testing.TB, rec *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func rangeURL(path string, extra ...string) string {
	v := url.Values{"tab": {"range"}, "topic": {"T"}, "begin": {"2026-11-29 10:00:00"}, "end": {"2026-11-29 10:00:09.999"}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return path + "?" + v.Encode()
}

// A broker that times out: the page and the API show what the other answered, and name
// the broker and its error; neither fails.
func TestMessagesPartialResultNamesFailingBroker(t *testing.T) {
	f := msgFake(100)
	f.Fail = func(op, broker string) error {
		if broker == "broker-b" && op == "Pull" {
			return &rocketmq.TimeoutError{Addr: "10.0.0.2:10911", Code: rocketmq.CodePullMessage, Elapsed: 5 * time.Second}
		}
		return nil
	}
	r := msgRouter(lookup.New(f, lookup.Options{}))

	rec := msgGet(t, r, rangeURL("/messages"))
	if rec.Code != http.StatusOK {
		t.Fatalf("page status %d", rec.Code)
	}
	doc := msgDoc(t, rec)
	banner := doc.Find(`[data-testid="broker-failure"]`).Text()
	if !strings.Contains(banner, "broker-b") || !strings.Contains(banner, "no answer within 5s") {
		t.Errorf("failure banner %q does not name broker-b and its timeout", banner)
	}
	rows := doc.Find(`[data-testid="message-row"]`)
	if rows.Length() != 50 {
		t.Errorf("%d rows, want broker-a's 50", rows.Length())
	}
	rows.Each(func(_ int, s *goquery.Selection) {
		if !strings.Contains(s.Text(), "broker-a") {
			t.Errorf("row from another broker: %s", s.Text())
		}
	})

	rec = msgGet(t, r, rangeURL("/api/v1/messages"))
	var j MessagesJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("API: %d %v", rec.Code, err)
	}
	if len(j.Messages) != 50 || len(j.Errors) != 1 || j.Errors[0].Broker != "broker-b" || !strings.Contains(j.Errors[0].Error, "no answer") {
		t.Errorf("API: %d messages, errors %+v", len(j.Messages), j.Errors)
	}
	// The failure in the API's one shape for a broker that failed.
	var fj struct {
		Failures []struct{ Broker, Addr, Error string } `json:"failures"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &fj); err != nil || len(fj.Failures) != 1 || fj.Failures[0].Broker != "broker-b" ||
		fj.Failures[0].Addr != "10.0.0.2:10911" || !strings.Contains(fj.Failures[0].Error, "no answer") {
		t.Errorf("API failures: %+v", fj.Failures)
	}
}

// Bad input: 422 with the form kept and the sentence next to the field on the page, 400
// with a code in the API, and no broker asked.
func TestMessagesBadInput(t *testing.T) {
	f := msgFake(10)
	r := msgRouter(lookup.New(f, lookup.Options{}))
	for _, tc := range []struct {
		name, query, field, code, keep string
	}{
		{"missing topic", "tab=range&topic=&begin=2026-11-29+10:00:00&end=2026-11-29+11:00:00", "topic", "missing_topic", ""},
		{"unknown topic", "tab=range&topic=NoSuchTopic&begin=2026-11-29+10:00:00&end=2026-11-29+11:00:00", "topic", "unknown_topic", "NoSuchTopic"},
		{"begin after end", "tab=range&topic=T&begin=2026-11-29+12:00:00&end=2026-11-29+11:00:00", "begin", "bad_range", "T"},
		{"unreadable time", "tab=range&topic=T&begin=yesterday&end=2026-11-29+11:00:00", "begin", "bad_time", "T"},
		{"epoch seconds", "tab=range&topic=T&begin=1764410400&end=2026-11-29+11:00:00", "begin", "bad_time", "T"},
		{"key missing", "tab=key&topic=T&key=", "key", "missing_key", "T"},
		{"key unknown topic", "tab=key&topic=Nope&key=k", "topic", "unknown_topic", "Nope"},
		{"malformed id", "tab=id&id=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "id", "bad_id", ""},
		{"unique key without topic", "tab=id&id=ABCDEF0123456789", "topic", "missing_topic", ""},
		{"SQL92 syntax error", "tab=range&topic=T&begin=2026-11-29+10:00:00&end=2026-11-29+11:00:00&where=region+%3D+%27eu%27+AND", "where", "sql92", "T"},
		{"SQL92 on the key tab", "tab=key&topic=T&key=k&where=amount+%3E%3E+1", "where", "sql92", "T"},
		{"a property named in the wrong case", "tab=range&topic=T&begin=2026-11-29+10:00:00&end=2026-11-29+11:00:00&where=tags+%3D+%27Paid%27", "where", "unknown_property", "T"},
		{"regular expression that does not compile", "tab=range&topic=T&begin=2026-11-29+10:00:00&end=2026-11-29+11:00:00&bodyRegex=order(%5B0-9", "bodyRegex", "regex", "T"},
		{"JSON comparison without a value", "tab=key&topic=T&key=k&json=order.total&jsonOp=%3E", "jsonValue", "", "T"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.BrokerCalls()
			rec := msgGet(t, r, "/messages?"+tc.query)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("page status %d, want 422", rec.Code)
			}
			doc := msgDoc(t, rec)
			msg := doc.Find(`[data-testid="err-` + tc.field + `"]`).Text()
			if !strings.HasSuffix(strings.TrimSpace(msg), ".") {
				t.Errorf("no sentence next to field %s: %q", tc.field, msg)
			}
			if tc.keep != "" {
				if v, _ := doc.Find(`input[name="topic"]`).Attr("value"); v != tc.keep {
					t.Errorf("the form lost the topic: %q, want %q", v, tc.keep)
				}
			}
			if inv, _ := doc.Find(`[data-testid="f-` + tc.field + `"]`).Attr("aria-invalid"); inv != "true" {
				t.Errorf("field %s not marked invalid", tc.field)
			}
			if doc.Find(`[data-testid="message-row"]`).Length() != 0 {
				t.Errorf("rows shown for bad input")
			}
			if tc.code == "bad_id" && strings.Contains(rec.Body.String(), "<script>alert(1)") {
				t.Errorf("the malformed id came back unescaped")
			}

			api := msgGet(t, r, "/api/v1/messages?"+tc.query)
			var e APIError
			if err := json.Unmarshal(api.Body.Bytes(), &e); err != nil || api.Code != http.StatusBadRequest || (tc.code != "" && e.Code != tc.code) || e.Error == "" {
				t.Errorf("API: %d %s, want 400 %s", api.Code, api.Body.String(), tc.code)
			}
			if n := f.BrokerCalls() - before; n != 0 {
				t.Errorf("%d broker calls for bad input: %v", n, f.Calls())
			}
		})
	}
}

// htmx gets the result section and the form (with its error lines), nothing else; a history
// restore gets the whole page.
func TestMessagesHTMXFragment(t *testing.T) {
	r := msgRouter(lookup.New(msgFake(20), lookup.Options{}))
	rec := msgGet(t, r, rangeURL("/messages"), "HX-Request", "true")
	body := rec.Body.String()
	if rec.Code != http.StatusOK || strings.Contains(body, "<html") || !strings.Contains(body, `id="messages-result"`) {
		t.Fatalf("htmx answer %d is not the result fragment:\n%.300s", rec.Code, body)
	}
	doc := msgDoc(t, rec)
	if n := doc.Find(`[data-testid="message-row"]`).Length(); n != 20 {
		t.Errorf("fragment has %d rows, want 20", n)
	}
	if doc.Find(`form[hx-swap-oob="true"] #err-topic`).Length() != 1 {
		t.Errorf("fragment does not refresh the form and its topic error line")
	}
	bad := msgGet(t, r, "/messages?tab=range&topic=&begin=x", "HX-Request", "true")
	if bad.Code != http.StatusUnprocessableEntity || !strings.Contains(msgDoc(t, bad).Find(`#err-topic`).Text(), "Choose a topic") {
		t.Errorf("htmx bad input: %d %.300s", bad.Code, bad.Body.String())
	}
	full := msgGet(t, r, rangeURL("/messages"), "HX-Request", "true", "HX-History-Restore-Request", "true")
	if !strings.Contains(full.Body.String(), "<html") {
		t.Errorf("a history restore got a fragment")
	}
}

// The page with only a topic (a link from elsewhere) searches the last hour and shows
// the range it used; without anything it asks nothing.
func TestMessagesDefaultsAndEmptyForm(t *testing.T) {
	f := msgFake(10)
	r := msgRouter(lookup.New(f, lookup.Options{}))
	rec := msgGet(t, r, "/messages")
	if rec.Code != http.StatusOK || f.BrokerCalls() != 0 {
		t.Fatalf("bare page: %d, %d broker calls", rec.Code, f.BrokerCalls())
	}
	if msgDoc(t, rec).Find(`[data-testid="result-summary"]`).Length() != 0 {
		t.Errorf("a bare page shows a result")
	}
	// A tab link keeps the topic but waits for the key or id.
	for _, tab := range []string{"key", "id"} {
		rec = msgGet(t, r, "/messages?tab="+tab+"&topic=T")
		d := msgDoc(t, rec)
		if rec.Code != http.StatusOK || d.Find(`[data-testid="form-error"]`).Length() != 0 || f.BrokerCalls() != 0 {
			t.Errorf("tab %s with a topic: %d, form error %q, %d broker calls", tab, rec.Code, d.Find(`[data-testid="form-error"]`).Text(), f.BrokerCalls())
		}
		if v, _ := d.Find(`input[name="topic"]`).Attr("value"); v != "T" {
			t.Errorf("tab %s lost the topic", tab)
		}
	}
	rec = msgGet(t, r, "/messages?tab=range&topic=T")
	doc := msgDoc(t, rec)
	if b, _ := doc.Find(`input[name="begin"]`).Attr("value"); b != "2026-11-29 10:00:00" {
		t.Errorf("default begin %q, want an hour before now (2026-11-29 10:00:00)", b)
	}
	if e, _ := doc.Find(`input[name="end"]`).Attr("value"); e != "2026-11-29 11:00:00" {
		t.Errorf("default end %q, want now", e)
	}
	if n := doc.Find(`[data-testid="message-row"]`).Length(); n != 10 {
		t.Errorf("%d rows, want 10", n)
	}
	// Suggestions hide retry topics unless asked.
	if doc.Find(`#topic-suggestions option[value="%RETRY%g"]`).Length() != 0 || doc.Find(`#topic-suggestions option[value="T"]`).Length() != 1 {
		t.Errorf("suggestions: %s", doc.Find("#topic-suggestions").Text())
	}
	withSys := msgDoc(t, msgGet(t, r, "/messages?tab=range&sys=1"))
	if withSys.Find(`#topic-suggestions option[value="%RETRY%g"]`).Length() != 1 {
		t.Errorf("sys=1 does not suggest the retry topic")
	}
}

// Without a cluster every message page says so and the API answers 503.
func TestMessagesWithoutCluster(t *testing.T) {
	r := msgRouter(nil)
	for _, p := range []string{"/messages", "/messages?tab=key&topic=T&key=k", "/messages/ABC"} {
		rec := msgGet(t, r, p)
		if rec.Code != http.StatusOK || msgDoc(t, rec).Find(`[data-testid="no-cluster"]`).Length() != 1 {
			t.Errorf("%s: %d without the no-cluster notice", p, rec.Code)
		}
	}
	for _, p := range []string{"/api/v1/messages?topic=T", "/api/v1/messages/ABC"} {
		rec := msgGet(t, r, p)
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "no_cluster") {
			t.Errorf("%s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
}

// The detail page shows the id kind, fields, properties, the body views and the groups.
func TestMessageDetail(t *testing.T) {
	f := msgFake(4)
	mq := rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}
	f.AddGroup(&clustertest.Group{Name: "g-done", Topics: []string{"T"}, Online: true, Offsets: map[rocketmq.MessageQueue]int64{mq: 1}})
	f.AddGroup(&clustertest.Group{Name: "g-off", Topics: []string{"T"}})
	r := msgRouter(lookup.New(f, lookup.Options{}))
	res, err := lookup.New(f, lookup.Options{}).ByRange(context.Background(), lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0})
	if err != nil || len(res.Messages) != 1 {
		t.Fatal(err, len(res.Messages))
	}
	m := res.Messages[0]

	rec := msgGet(t, r, "/messages/"+m.OffsetMsgID()+"?topic=T")
	if rec.Code != http.StatusOK {
		t.Fatalf("detail %d", rec.Code)
	}
	doc := msgDoc(t, rec)
	if k, _ := doc.Find(`[data-testid="id-kind"]`).Attr("data-kind"); k != "offsetMsgId" {
		t.Errorf("id kind %q", k)
	}
	if v := doc.Find(`[data-field="Topic"]`).Text(); strings.TrimSpace(v) != "T" {
		t.Errorf("topic field %q", v)
	}
	if v := doc.Find(`[data-testid="body-content"]`).Text(); !strings.Contains(v, "\"text\": \"hello 0\"") {
		t.Errorf("body not shown as pretty JSON: %q", v)
	}
	if v, _ := doc.Find(`[data-testid="body-content"]`).Attr("data-view"); v != "json" {
		t.Errorf("default view %q, want json", v)
	}
	if !strings.Contains(doc.Find(`[data-testid="offset-id"]`).Text(), "10.0.0.1:10911") {
		t.Errorf("offsetMsgId not decoded to its store host")
	}
	if !strings.Contains(doc.Find(`[data-testid="uniq-key"]`).Text(), "127.0.0.1") {
		t.Errorf("unique key not decoded to its producer IP: %s", doc.Find(`[data-testid="uniq-key"]`).Text())
	}
	states := map[string]string{}
	doc.Find(`[data-testid="consumer-groups"] tbody tr`).Each(func(_ int, s *goquery.Selection) {
		g, _ := s.Attr("data-group")
		states[g] = strings.TrimSpace(s.Find(`[data-testid="group-state"]`).Text())
	})
	if states["g-done"] != "consumed" || states["g-off"] != "group offline" {
		t.Errorf("group states %v", states)
	}
	hexRec := msgGet(t, r, "/messages/"+m.OffsetMsgID()+"?topic=T&view=hex")
	if v := msgDoc(t, hexRec).Find(`[data-testid="body-content"]`).Text(); !strings.HasPrefix(v, "00000000  7b 22 6e 22") {
		t.Errorf("hex view %q", v)
	}
	body := msgGet(t, r, "/messages/"+m.OffsetMsgID()+"/body")
	if body.Body.String() != string(m.Body) || !strings.Contains(body.Header().Get("Content-Disposition"), "attachment") {
		t.Errorf("body download %q %v", body.Body.String(), body.Header())
	}
	api := msgGet(t, r, "/api/v1/messages/"+m.UniqueKey()+"?topic=T")
	var j MessageByIDJSON
	if err := json.Unmarshal(api.Body.Bytes(), &j); err != nil || api.Code != http.StatusOK {
		t.Fatalf("API %d %v", api.Code, err)
	}
	if j.IDKind != "uniqueKey" || j.Message.OffsetMsgID != m.OffsetMsgID() || len(j.Groups) != 2 || j.Message.Properties["color"] != "blue" {
		t.Errorf("API answer %+v", j)
	}
	if nf := msgGet(t, r, "/messages/NOPE?topic=T"); nf.Code != http.StatusNotFound {
		t.Errorf("unknown id: %d, want 404", nf.Code)
	}
	nf := msgGet(t, r, "/messages?tab=id&id=NOPE&topic=T")
	if txt := msgDoc(t, nf).Find(`[data-testid="search-error"]`).Text(); nf.Code != http.StatusNotFound || !strings.Contains(txt, "No message of topic T has the unique key NOPE") {
		t.Errorf("id tab, unknown id: %d %q", nf.Code, txt)
	}
	if api := msgGet(t, r, "/api/v1/messages?id=NOPE&topic=T"); api.Code != http.StatusNotFound || !strings.Contains(api.Body.String(), "message_not_found") {
		t.Errorf("API, unknown id: %d %s", api.Code, api.Body.String())
	}
}

// A large binary body is cut for display and offered whole.
func TestMessageDetailCutsLargeBody(t *testing.T) {
	f := msgFake(0)
	big := bytes.Repeat([]byte{0xff, 0x00, 0x10}, 100_000)
	m := f.Put("T", "broker-a", 0, &rocketmq.Message{Body: big, StoreTimestamp: msgT0.UnixMilli(), Properties: map[string]string{}})
	r := msgRouter(lookup.New(f, lookup.Options{}))
	doc := msgDoc(t, msgGet(t, r, "/messages/"+m.OffsetMsgID()))
	if enc := doc.Find(`[data-testid="body-encoding"]`).Text(); enc != "binary" {
		t.Errorf("encoding %q", enc)
	}
	if doc.Find(`[data-testid="body-cut"]`).Length() != 1 || len(doc.Find(`[data-testid="body-content"]`).Text()) > 100_000 {
		t.Errorf("a 300 kB body is not cut on the page")
	}
	if got := msgGet(t, r, "/messages/"+m.OffsetMsgID()+"/body").Body.Len(); got != len(big) {
		t.Errorf("download has %d bytes, want %d", got, len(big))
	}
}

// The CSV export keeps a spreadsheet from running a message's body or tag as a formula.
func TestMessagesCSVExportDefusesFormulas(t *testing.T) {
	f := msgFake(0)
	f.Put("T", "broker-a", 0, clustertest.NewMessage("=HYPERLINK(\"http://x\")", "+cmd", nil, "U1", msgT0))
	r := msgRouter(lookup.New(f, lookup.Options{}))
	rec := msgGet(t, r, rangeURL("/messages/export", "format", "csv"))
	rows, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	if err != nil || rec.Code != http.StatusOK || len(rows) != 2 {
		t.Fatalf("CSV export %d: %v, %d rows", rec.Code, err, len(rows))
	}
	col := map[string]string{}
	for i, name := range rows[0] {
		col[name] = rows[1][i]
	}
	if col["body"] != `'=HYPERLINK("http://x")` || col["tags"] != "'+cmd" {
		t.Errorf("body %q, tags %q: want each behind an apostrophe", col["body"], col["tags"])
	}
}

// An id search with exactly one hit opens the message, and each row links by its unique
// key as well as by its offsetMsgId.
func TestIDSearchWithOneHitOpensIt(t *testing.T) {
	f := msgFake(4)
	r := msgRouter(lookup.New(f, lookup.Options{}))
	res, err := lookup.New(f, lookup.Options{}).ByRange(context.Background(), lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0})
	if err != nil || len(res.Messages) != 1 {
		t.Fatal(err, len(res.Messages))
	}
	m := res.Messages[0]
	for _, id := range []string{m.OffsetMsgID(), m.UniqueKey()} {
		want := "/messages/" + id + "?topic=T"
		rec := msgGet(t, r, "/messages?tab=id&topic=T&id="+id)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Errorf("id %s: %d to %q, want 303 to %s", id, rec.Code, rec.Header().Get("Location"), want)
		}
		hx := msgGet(t, r, "/messages?tab=id&topic=T&id="+id, "HX-Request", "true")
		if hx.Header().Get("HX-Redirect") != want {
			t.Errorf("id %s from htmx: HX-Redirect %q, want %s", id, hx.Header().Get("HX-Redirect"), want)
		}
	}
	doc := msgDoc(t, msgGet(t, r, rangeURL("/messages")))
	href, _ := doc.Find(`[data-testid="uniq-link"]`).First().Attr("href")
	if !strings.HasPrefix(href, "/messages/") || !strings.HasSuffix(href, "?topic=T") {
		t.Errorf("the unique key column links to %q, want the message", href)
	}
}

// A unique key found while a broker did not answer is not opened: the search page shows
// the one hit and names the broker, instead of a message page that waits for it again.
func TestIDSearchWithOneHitAndAFailedBrokerStays(t *testing.T) {
	f := msgFake(4)
	svc := lookup.New(f, lookup.Options{})
	res, err := svc.ByRange(context.Background(), lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].BrokerName != "broker-a" {
		t.Fatal(err, res)
	}
	f.Down("10.0.0.2:10911")
	rec := msgGet(t, msgRouter(svc), "/messages?tab=id&topic=T&id="+res.Messages[0].UniqueKey())
	if rec.Code != http.StatusOK || rec.Header().Get("Location") != "" {
		t.Fatalf("answered %d to %q, want the search page", rec.Code, rec.Header().Get("Location"))
	}
	if body := rec.Body.String(); !strings.Contains(body, "broker-b") {
		t.Errorf("the search page does not name broker-b, which did not answer:\n%s", body)
	}
}

// A truncated range search links to the messages older than the oldest shown, keeping the
// query, and the API answers the same cursor; following it reaches the older messages
// without the oldest shown again (its millisecond is the new end, and is skipped).
func TestRangeSearchGoesOlderThanTheOldestShown(t *testing.T) {
	r := msgRouter(lookup.New(msgFake(20), lookup.Options{}))
	api := msgGet(t, r, rangeURL("/api/v1/messages", "limit", "5"))
	var page struct {
		Messages []struct {
			StoreTimestamp int64 `json:"storeTimestamp"`
		} `json:"messages"`
		Truncated bool   `json:"truncated"`
		OlderEnd  *int64 `json:"olderEnd"`
		OlderSkip *int   `json:"olderSkip"`
	}
	if err := json.Unmarshal(api.Body.Bytes(), &page); err != nil || !page.Truncated || page.OlderEnd == nil {
		t.Fatalf("truncated API answer has no olderEnd (%v): %s", err, api.Body.String())
	}
	oldest := page.Messages[len(page.Messages)-1].StoreTimestamp
	if *page.OlderEnd != oldest || page.OlderSkip == nil || *page.OlderSkip != 1 {
		t.Fatalf("olderEnd %d, olderSkip %v; want the oldest shown %d and its one row", *page.OlderEnd, page.OlderSkip, oldest)
	}
	skip := strconv.Itoa(*page.OlderSkip)
	next := msgGet(t, r, rangeURL("/api/v1/messages", "limit", "5", "end", strconv.FormatInt(*page.OlderEnd, 10), "skip", skip))
	if err := json.Unmarshal(next.Body.Bytes(), &page); err != nil || len(page.Messages) != 5 || page.Messages[0].StoreTimestamp >= oldest {
		t.Errorf("following olderEnd and olderSkip: %v %s", err, next.Body.String())
	}

	doc := msgDoc(t, msgGet(t, r, rangeURL("/messages")+"&limit=5"))
	href, ok := doc.Find(`[data-testid="older"]`).Attr("href")
	u, _ := url.Parse(href)
	if !ok || u.Query().Get("topic") != "T" || u.Query().Get("begin") != "2026-11-29 10:00:00" || u.Query().Get("end") != strconv.FormatInt(oldest, 10) ||
		u.Query().Get("skip") != "1" {
		t.Errorf("older link %q does not keep the query, or does not skip the oldest shown", href)
	}
	older := msgDoc(t, msgGet(t, r, href))
	if c := older.Find(`[data-testid="continued"]`).Text(); !strings.Contains(c, "after the 1 row of that time it showed") {
		t.Errorf("the older page says %q, want that it leaves out the row shown before", c)
	}
}

// /messages/{uniqueKey} without its topic leads to the id search with the id filled in,
// which asks for the topic beside it, instead of an error page.
func TestMessageByUniqueKeyWithoutTopicAsksForIt(t *testing.T) {
	r := msgRouter(lookup.New(msgFake(2), lookup.Options{}))
	rec := msgGet(t, r, "/messages/ABCDEF0123456789")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/messages?id=ABCDEF0123456789&tab=id" {
		t.Fatalf("%d to %q, want 303 to the id search", rec.Code, rec.Header().Get("Location"))
	}
	doc := msgDoc(t, msgGet(t, r, rec.Header().Get("Location")))
	if v, _ := doc.Find(`#f-id`).Attr("value"); v != "ABCDEF0123456789" {
		t.Errorf("the id search has id %q, want the one asked for", v)
	}
	if !strings.Contains(doc.Find(`#err-topic`).Text(), "give the topic") {
		t.Errorf("the id search does not ask for the topic: %q", doc.Find(`#err-topic`).Text())
	}
}

// With every heavy-query slot taken, a time-range search on the page, in the API and as an
// export is answered 503 with Retry-After at once, while key and id searches still run.
func TestHeavyQueriesPastTheCapAreRefusedAtOnce(t *testing.T) {
	svc := lookup.New(msgFake(4), lookup.Options{})
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Lookup: svc, Heavy: NewHeavyGate(1),
		Now: func() time.Time { return msgT0.Add(time.Hour) }}
	r.GET("/messages", h.Search)
	r.GET("/messages/export", h.Export)
	r.GET("/api/v1/messages", h.API)
	if rec := msgGet(t, r, rangeURL("/api/v1/messages")); rec.Code != http.StatusOK {
		t.Fatalf("a range search with a free slot answered %d: %s", rec.Code, rec.Body.String())
	}
	leave, ok := h.Heavy.enter()
	if !ok {
		t.Fatal("the only slot is still taken after the first search ended")
	}
	defer leave()
	for _, target := range []string{rangeURL("/messages"), rangeURL("/api/v1/messages"), rangeURL("/messages/export", "format", "csv")} {
		rec := msgGet(t, r, target)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s with the cap reached: %d, Retry-After %q; want 503 with Retry-After", target, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	if rec := msgGet(t, r, "/api/v1/messages?topic=T&key=key-1"); rec.Code != http.StatusOK {
		t.Errorf("a key search with the cap reached answered %d, want it to run", rec.Code)
	}
	// /metrics counts the three refusals, not the key search.
	if st := h.Heavy.Stats(); st != (HeavyStats{Limit: 1, Running: 1, Rejected: 3}) {
		t.Errorf("gate stats %+v, want limit 1, 1 running, 3 refused", st)
	}
}

// A master that does not answer, with a slave that does: the page and the API show every
// message and say which broker's rows came from its slave, naming both addresses; the
// message page says it too. Nothing is called a failure.
func TestMessagesSayWhichRowsCameFromASlave(t *testing.T) {
	f := msgFake(100)
	f.AddSlave("broker-b", "10.0.0.12:10911")
	f.Silent("broker-b")
	f.CallTimeout = 50 * time.Millisecond
	r := msgRouter(lookup.New(f, lookup.Options{}))

	rec := msgGet(t, r, rangeURL("/messages"))
	doc := msgDoc(t, rec)
	more := doc.Find(`[data-testid="more-rows-link"]`).Text()
	if n := doc.Find(`[data-testid="message-row"]`).Length(); rec.Code != http.StatusOK || n != msgFirstRows || !strings.Contains(more, "of 100") {
		t.Fatalf("page: status %d, %d rows and %q, want the first %d of all 100", rec.Code, n, more, msgFirstRows)
	}
	if fails := doc.Find(`[data-testid="broker-failure"]`); fails.Length() != 0 {
		t.Errorf("failure banner with the slave answering: %s", fails.Text())
	}
	note := doc.Find(`[data-testid="from-slave"]`).Text()
	for _, want := range []string{"Broker broker-b's master 10.0.0.2:10911 did not answer", "its rows come from its slave 10.0.0.12:10911"} {
		if !strings.Contains(note, want) {
			t.Errorf("slave note %q does not say %q", note, want)
		}
	}

	rec = msgGet(t, r, rangeURL("/api/v1/messages"))
	var j struct {
		Messages   []MessageJSON     `json:"messages"`
		Errors     []BrokerErrorJSON `json:"errors"`
		FromSlaves []struct{ Broker, Master, Slave, Reason string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("API: %d %v", rec.Code, err)
	}
	if len(j.Messages) != 100 || len(j.Errors) != 0 || len(j.FromSlaves) != 1 || j.FromSlaves[0].Broker != "broker-b" ||
		j.FromSlaves[0].Master != "10.0.0.2:10911" || j.FromSlaves[0].Slave != "10.0.0.12:10911" || j.FromSlaves[0].Reason == "" {
		t.Errorf("API: %d messages, errors %+v, fromSlaves %+v", len(j.Messages), j.Errors, j.FromSlaves)
	}

	rec = msgGet(t, r, "/messages/"+fmt.Sprintf("7F000001%024X", 1)+"?topic=T")
	doc = msgDoc(t, rec)
	if note := doc.Find(`[data-testid="from-slave"]`).Text(); rec.Code != http.StatusOK || !strings.Contains(note, "come from its slave 10.0.0.12:10911") {
		t.Errorf("message page: status %d, slave note %q", rec.Code, note)
	}
}

// A 2000-row result: the page holds its first rows and a link to the next ones, which
// (as pages, without JavaScript) or as pieces htmx appends lead to every row of the
// result exactly once and in order, even where a piece ends inside a millisecond many
// messages share; the export still holds all 2000.
func TestRangeResultComesInPiecesThatReachEveryRow(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddTopic("T", 2, "broker-a", "broker-b")
	for i := range 2300 { // seven messages per millisecond
		m := clustertest.NewMessage(fmt.Sprintf("m%d", i), "TagA", nil, fmt.Sprintf("7F000001%024X", i), msgT0.Add(time.Duration(i/7)*time.Millisecond))
		f.Put("T", []string{"broker-a", "broker-b"}[i%2], i%3%2, m)
	}
	r := msgRouter(lookup.New(f, lookup.Options{}))
	search := rangeURL("/messages", "end", "2026-11-29 10:00:01")

	rows := func(doc *goquery.Document) []string {
		var ids []string
		doc.Find(`[data-testid="message-row"] [data-testid="message-link"]`).Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.Text()) })
		return ids
	}
	var want []string
	for _, row := range msgCSV(t, msgGet(t, r, rangeURL("/messages/export", "end", "2026-11-29 10:00:01", "format", "csv"))) {
		want = append(want, row[2]) // offsetMsgId
	}
	first := msgDoc(t, msgGet(t, r, search))
	if got := len(rows(first)); got != msgFirstRows {
		t.Fatalf("the page shows %d rows at first, want %d", got, msgFirstRows)
	}
	if href, _ := first.Find(`[data-testid="export-csv"]`).Attr("href"); len(msgCSV(t, msgGet(t, r, href))) != 2000 || len(want) != 2000 {
		t.Fatalf("the export does not hold the 2000 rows (%d exported from the search)", len(want))
	}
	for _, way := range []struct{ name, attr string }{{"pages", "href"}, {"pieces", "hx-get"}} {
		doc, got := first, rows(first)
		for range 20 {
			next, ok := doc.Find(`[data-testid="more-rows-link"]`).Attr(way.attr)
			if !ok {
				break
			}
			rec := msgGet(t, r, next, "HX-Request", "true")
			if body := rec.Body.String(); way.name == "pieces" && (strings.Contains(body, "<html") || strings.Contains(body, "messages-result")) {
				t.Fatalf("a piece is more than rows:\n%.300s", body)
			}
			if way.name == "pieces" { // rows parse as rows only inside a table
				rec.Body = bytes.NewBufferString("<table><tbody>" + rec.Body.String() + "</tbody></table>")
			}
			doc = msgDoc(t, rec)
			got = append(got, rows(doc)...)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("following the %s: %d rows, not the result's 2000 in order", way.name, len(got))
		}
	}
}

func msgCSV(t *testing.T, rec *httptest.ResponseRecorder) [][]string {
	t.Helper()
	all, err := csv.NewReader(strings.NewReader(rec.Body.String())).ReadAll()
	if err != nil || rec.Code != http.StatusOK || len(all) == 0 {
		t.Fatalf("export: %d %v %.200s", rec.Code, err, rec.Body.String())
	}
	return all[1:]
}

// A unique key searched without its topic is answered once, beside the topic field, in
// one short sentence; the banner above the result only points at the field.
func TestUniqueKeyWithoutTopicIsSaidOnceAndShort(t *testing.T) {
	r := msgRouter(lookup.New(msgFake(2), lookup.Options{}))
	rec := msgGet(t, r, "/messages?tab=id&id=ABCDEF0123456789")
	body := rec.Body.String()
	if n := strings.Count(body, "is not an offsetMsgId"); n != 1 {
		t.Errorf("the page says why %d times, want once", n)
	}
	doc := msgDoc(t, rec)
	said := strings.TrimSpace(doc.Find(`#err-topic`).Text())
	if words := len(strings.Fields(said)); words > 25 || strings.Count(said, ". ") > 0 {
		t.Errorf("%d words, want one short sentence: %q", words, said)
	}
	if banner := doc.Find(`[data-testid="form-error"]`).Text(); !strings.Contains(banner, "the marked field says why") {
		t.Errorf("banner %q, want it to point at the field", banner)
	}
}

// A filter on the range tab keeps only what matches, on the page, in the API and in
// both exports, and the page says how many matched of how many were read; an SQL92
// syntax error names its place, in the reader's language, before any broker is asked.
func TestMessagesFilterOnPageAPIAndExports(t *testing.T) {
	f := msgFake(100)
	r := msgRouter(lookup.New(f, lookup.Options{}))
	filtered := rangeURL("/api/v1/messages", "json", "n", "jsonOp", "<", "jsonValue", "5", "where", "color = 'blue'")
	var j MessagesJSON
	rec := msgGet(t, r, filtered)
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("API: %d %v", rec.Code, err)
	}
	if len(j.Messages) != 5 || j.Total != 5 || j.Truncated || j.Scanned != 100 {
		t.Errorf("API: %d messages, total %d, truncated %v, scanned %d; want 5 of 100 read", len(j.Messages), j.Total, j.Truncated, j.Scanned)
	}
	for _, m := range j.Messages {
		var b struct{ N int }
		if json.Unmarshal([]byte(m.Body), &b) != nil || b.N >= 5 {
			t.Errorf("API kept %s", m.Body)
		}
	}
	page := msgGet(t, r, strings.Replace(filtered, "/api/v1/messages", "/messages", 1))
	doc := msgDoc(t, page)
	if n := doc.Find(`[data-testid="message-row"]`).Length(); n != 5 {
		t.Errorf("page: %d rows, want 5", n)
	}
	if s := doc.Find(`[data-testid="result-summary"]`).Text(); !strings.Contains(s, "matching the filter") || !strings.Contains(s, "5 matched of 100 read.") {
		t.Errorf("page summary %q", s)
	}
	if v, _ := doc.Find(`input[name="where"]`).Attr("value"); v != "color = 'blue'" {
		t.Errorf("the form lost the filter: %q", v)
	}
	csvURL, _ := doc.Find(`[data-testid="export-csv"]`).Attr("href")
	if rows := msgCSV(t, msgGet(t, r, csvURL)); len(rows) != 5 {
		t.Errorf("CSV export of %s: %d rows, want 5", csvURL, len(rows))
	}
	jsonURL, _ := doc.Find(`[data-testid="export-json"]`).Attr("href")
	var ej MessagesJSON
	if err := json.Unmarshal(msgGet(t, r, jsonURL).Body.Bytes(), &ej); err != nil || len(ej.Messages) != 5 {
		t.Errorf("JSON export of %s: %v, %d messages", jsonURL, err, len(ej.Messages))
	}

	before := f.BrokerCalls()
	bad := rangeURL("/api/v1/messages", "where", "region = 'eu' AND")
	var e APIError
	rec = msgGet(t, r, bad)
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != http.StatusBadRequest || !strings.Contains(e.Error, "column 18") {
		t.Errorf("API on an SQL92 syntax error: %d %s, want 400 naming column 18", rec.Code, rec.Body)
	}
	zh := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.ServeHTTP(w, req.WithContext(i18n.With(req.Context(), i18n.Match("zh-CN"))))
	})
	rec = msgGet(t, zh, strings.Replace(bad, "/api/v1/messages", "/messages", 1))
	if msg := msgDoc(t, rec).Find(`[data-testid="err-where"]`).Text(); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, "第 18 列") {
		t.Errorf("page on an SQL92 syntax error, in Chinese: %d %q", rec.Code, msg)
	}
	if n := f.BrokerCalls() - before; n != 0 {
		t.Errorf("%d broker calls for a bad filter", n)
	}
}
