package rocketmq

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A message sent with SendMessage is stored as sent: the broker answers its offsetMsgId
// and queue offset, our decoder reads back the body, keys, tag, user properties and
// unique key, and RocketMQ's own mqadmin (the Java decoder) finds it by its unique key
// with the same key, tag and property.
func TestIntegrationSendMessage(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	topic := e.createTopic(t, "send", 2)
	ctx := ctxT(t)
	route, err := e.c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	qs := route.WriteQueues()
	if len(qs) == 0 {
		t.Fatalf("no writable queue in the route %+v", route)
	}
	mq := qs[len(qs)-1]
	addr, _ := route.MasterAddr(mq.BrokerName)
	uniq := NewUniqueKey()
	out := OutgoingMessage{Topic: topic, Body: []byte(`{"order":42}`), Flag: 7, Properties: map[string]string{
		PropertyKeys: "order-42 customer-7", PropertyTags: "paid", PropertyUniqueKey: uniq, "color": "blue",
	}}
	res, err := e.c.SendMessage(ctx, addr, mq, "rmqc_send_test", out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != SendOK || res.MsgID != uniq || res.OffsetMsgID == "" || res.Queue != mq || res.QueueOffset != 0 {
		t.Fatalf("send result %+v, want SEND_OK at offset 0 of %v with msgId %s", res, mq, uniq)
	}
	m, err := e.c.ViewMessage(ctx, res.OffsetMsgID, topic)
	if err != nil {
		t.Fatal(err)
	}
	if m.Topic != topic || string(m.Body) != `{"order":42}` || m.Flag != 7 || m.QueueID != mq.QueueID || m.QueueOffset != 0 ||
		m.UniqueKey() != uniq || strings.Join(m.Keys(), " ") != "order-42 customer-7" || m.Tags() != "paid" || m.Properties["color"] != "blue" || m.ReconsumeTimes != 0 {
		t.Fatalf("stored message %+v (properties %v), want what was sent", m, m.Properties)
	}
	if captureOn() {
		v, err := e.c.ViewMessageAt(ctx, addr, m.CommitLogOffset, topic)
		if err != nil || v.UniqueKey() != uniq {
			t.Fatalf("view again: %v %v", v, err)
		}
		resp, err := e.c.call(ctx, addr, CodeViewMessageByID, map[string]string{"offset": itoa64(m.CommitLogOffset), "topic": topic}, nil)
		if err != nil {
			t.Fatal(err)
		}
		writeSendCapture(t, e.version, "send_stored.bin", resp.Body)
		ans, _ := json.MarshalIndent(map[string]any{"code": 0, "extFields": map[string]string{
			"msgId": res.OffsetMsgID, "queueId": itoa64(int64(res.Queue.QueueID)), "queueOffset": itoa64(res.QueueOffset)}, "sent": out.Properties}, "", "  ")
		writeSendCapture(t, e.version, "send_answer.json", ans)
	}

	mctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	var txt string
	for attempt := 0; ; attempt++ { // the unique-key index is asynchronous
		txt, err = e.cluster.MQAdmin(mctx, "queryMsgByUniqueKey", "-i", uniq, "-t", topic)
		if err == nil && strings.Contains(txt, "order-42") || attempt == 4 {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"order-42 customer-7", "paid", "color=blue", uniq} {
		if !strings.Contains(txt, want) {
			t.Errorf("mqadmin queryMsgByUniqueKey lacks %q:\n%s", want, txt)
		}
	}
}

// A queue the topic does not have is refused with the broker's answer, naming it.
func TestIntegrationSendMessageToAQueueTheTopicLacks(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	topic := e.createTopic(t, "sendbad", 1)
	_, err := e.c.SendMessage(ctxT(t), e.addr, MessageQueue{Topic: topic, BrokerName: e.broker, QueueID: 1000},
		"rmqc_send_test", OutgoingMessage{Topic: topic, Body: []byte("x"), Properties: map[string]string{PropertyUniqueKey: NewUniqueKey()}})
	var be *BrokerError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), e.addr) {
		t.Fatalf("send to queue 1000 of a one-queue topic: %v, want the broker's refusal naming %s", err, e.addr)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func writeSendCapture(t *testing.T, v BrokerVersion, name string, b []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "send", v.String())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
