package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/lookup"
)

// traceRecords is a send and two consume attempts (the first failed) of the message
// with unique key id, in the layout of rocketmq-client-go (see lookup's captured records).
func traceRecords(id string) (pub, sub string) {
	rec := func(f ...string) string { return strings.Join(f, "\x01") + "\x02" }
	pub = rec("Pub", "1795600800010", "DefaultRegion", "orders-pg", "T", id, "TagA", "key-0", "10.0.0.1:10911", "30", "12", "0", "OFFSET-ID", "true", "")
	sub = rec("SubBefore", "1795600801000", "DefaultRegion", "billing", "REQ1", id, "0", "key-0", "") +
		rec("SubAfter", "REQ1", id, "40", "false", "key-0", "4", "1795600801000", "billing") +
		rec("SubBefore", "1795600811000", "DefaultRegion", "billing", "REQ2", id, "1", "key-0", "") +
		rec("SubAfter", "REQ2", id, "5", "true", "key-0", "0", "1795600811000", "billing")
	return pub, sub
}

func traceFake() (*clustertest.Fake, lookup.Message) {
	f := msgFake(2)
	f.AddTopic(lookup.DefaultTraceTopic, 1, "broker-b")
	res, err := lookup.New(f, lookup.Options{}).ByRange(context.Background(), lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0})
	if err != nil || len(res.Messages) != 1 {
		panic("no message 0")
	}
	m := res.Messages[0]
	pub, sub := traceRecords(m.UniqueKey())
	f.Put(lookup.DefaultTraceTopic, "broker-b", 0, clustertest.NewMessage(pub, "", []string{m.UniqueKey(), "key-0"}, "", msgT0.Add(time.Second)))
	f.Put(lookup.DefaultTraceTopic, "broker-b", 0, clustertest.NewMessage(sub, "", []string{"other-id", m.UniqueKey(), "key-0"}, "", msgT0.Add(2*time.Second)))
	return f, m
}

func TestMessagePageShowsTrace(t *testing.T) {
	f, m := traceFake()
	r := msgRouter(lookup.New(f, lookup.Options{}))
	rec := msgGet(t, r, "/messages/"+m.OffsetMsgID())
	if rec.Code != http.StatusOK {
		t.Fatalf("page %d", rec.Code)
	}
	doc := msgDoc(t, rec)
	pub := doc.Find(`[data-testid="trace-pub"]`)
	if pub.Length() != 1 || pub.Find(`[data-col="group"]`).Text() != "orders-pg" || pub.Find(`[data-col="broker"]`).Text() != "broker-a" ||
		pub.Find(`[data-col="client"]`).Text() != "10.0.0.9" || pub.Find(`[data-col="cost"]`).Text() != "12 ms" {
		t.Errorf("send row: %q", pub.Text())
	}
	g := doc.Find(`[data-testid="trace-group"][data-group="billing"]`)
	if s := g.Find(`[data-testid="trace-group-summary"]`).Text(); s != "consumed on attempt 2 of 2" {
		t.Errorf("group summary %q", s)
	}
	at := g.Find(`[data-testid="trace-attempt"]`)
	if at.Length() != 2 || !strings.Contains(at.Eq(0).Find(`[data-col="status"]`).Text(), "failed") || at.Eq(1).Find(`[data-col="retry"]`).Text() != "1" {
		t.Errorf("attempts: %q", at.Text())
	}
	if doc.Find(`[data-testid="trace-off"]`).Length() != 0 {
		t.Error("a traced message says tracing is off")
	}

	// The trace topic's broker does not answer: said, the rest of the page shown.
	f.FailOn("QueryMessageByKey", "10.0.0.2:10911", errors.New("connection reset"))
	doc = msgDoc(t, msgGet(t, r, "/messages/"+m.OffsetMsgID()))
	if s := doc.Find(`[data-testid="trace-failure"]`).Text(); !strings.Contains(s, "broker-b") {
		t.Errorf("failure %q", s)
	}
	if s := doc.Find(`[data-testid="trace-off"]`).Text(); strings.Contains(s, "not started with tracing") {
		t.Errorf("with its broker down, the trace claims tracing was off: %q", s)
	}
}

func TestTraceAPI(t *testing.T) {
	f, m := traceFake()
	r := msgRouter(lookup.New(f, lookup.Options{}))
	get := func(target string) (int, MessageTraceAnswerJSON, APIError) {
		rec := msgGet(t, r, target)
		var j MessageTraceAnswerJSON
		var e APIError
		_ = json.Unmarshal(rec.Body.Bytes(), &j)
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		return rec.Code, j, e
	}
	code, j, _ := get("/api/v1/messages/" + m.OffsetMsgID() + "/trace")
	if code != http.StatusOK || j.MsgID != m.UniqueKey() || len(j.Trace.Produced) != 1 || j.Trace.Produced[0].BrokerName != "broker-a" ||
		len(j.Trace.Consumed) != 1 || len(j.Trace.Consumed[0].Attempts) != 2 || j.Trace.Consumed[0].Attempts[0].Status != "failed" ||
		j.Trace.Consumed[0].Attempts[0].Returned != "failed" || j.Note != "" {
		t.Errorf("trace %d %+v", code, j)
	}

	// No records: tracing was off, said plainly.
	other := msgFake(2)
	other.AddTopic(lookup.DefaultTraceTopic, 1, "broker-b")
	code, j, _ = get("/api/v1/messages/" + m.OffsetMsgID() + "/trace?traceTopic=none-such")
	if code != http.StatusOK || !j.Trace.TopicMissing || !strings.Contains(j.Note, "The trace topic none-such does not exist") {
		t.Errorf("missing trace topic: %d %+v", code, j)
	}
	r2 := msgRouter(lookup.New(other, lookup.Options{}))
	rec := msgGet(t, r2, "/api/v1/messages/"+m.OffsetMsgID()+"/trace")
	_ = json.Unmarshal(rec.Body.Bytes(), &j)
	if rec.Code != http.StatusOK || !strings.Contains(j.Note, "This message has no trace records in RMQ_SYS_TRACE_TOPIC: the producer was not started with tracing") {
		t.Errorf("untraced: %d %+v", rec.Code, j)
	}

	// A trace topic that is no topic name: 400, and no broker asked for it.
	before := f.Calls()["QueryMessageByKey"]
	code, _, e := get("/api/v1/messages/" + m.OffsetMsgID() + "/trace?traceTopic=bad%20topic!")
	if code != http.StatusBadRequest || e.Code != "bad_trace_topic" || !strings.Contains(e.Error, "trace topic") {
		t.Errorf("bad trace topic: %d %+v", code, e)
	}
	if n := f.Calls()["QueryMessageByKey"]; n != before {
		t.Errorf("a bad trace topic reached the brokers: %d key queries", n-before)
	}
	// The page refuses it next to its field, with 422, and still shows the message.
	rec = msgGet(t, r, "/messages/"+m.OffsetMsgID()+"?traceTopic=bad%20topic!")
	doc := msgDoc(t, rec)
	if rec.Code != http.StatusUnprocessableEntity || doc.Find(`[data-testid="trace-topic-error"]`).Length() != 1 || doc.Find(`[data-testid="fields"]`).Length() != 1 {
		t.Errorf("page with a bad trace topic: %d", rec.Code)
	}
	if v, _ := doc.Find(`#traceTopic`).Attr("value"); v != "bad topic!" {
		t.Errorf("the form lost what was typed: %q", v)
	}
	// In Chinese the whole refusal is Chinese, the name rule included.
	zh := gin.New()
	zh.Use(Localize)
	zh.GET("/messages/:id", (&Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Lookup: lookup.New(f, lookup.Options{})}).Show)
	rec = msgGet(t, zh, "/messages/"+m.OffsetMsgID()+"?traceTopic=bad%20topic!", "Accept-Language", "zh-CN")
	s := msgDoc(t, rec).Find(`[data-testid="trace-topic-error"]`).Text()
	if !strings.Contains(s, "不是合法的") || strings.Contains(s, "is not a valid") {
		t.Errorf("Chinese page with a bad trace topic says %q", s)
	}
}
