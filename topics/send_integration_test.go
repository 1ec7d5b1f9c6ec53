package topics

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// A message sent through the service is what a real push consumer of the topic
// receives, with its body, tag, keys, unique key and the user's properties, on the
// queue asked; the send is one sealed audit entry.
func TestIntegrationSentMessageReachesARealConsumer(t *testing.T) {
	e := newChangeEnv(t)
	ctx := t.Context()
	topic := dev.UniqueName("it-send")
	if _, err := e.svc.Save(ctx, e.who, SaveRequest{Topic: topic, ReadQueueNums: ints(4), WriteQueueNums: ints(4)}); err != nil {
		t.Fatal(err)
	}
	cons := dev.StartConsumerProcessWith(t, e.cl.NameServer, dev.UniqueName("it-send-g"),
		dev.ConsumerOptions{Print: true, PrintProperties: true}, topic)

	var sent *Sent
	// The NameServer routes a new topic a moment after the broker has it.
	dev.Eventually(t, 30*time.Second, "the new topic takes a message", func() error {
		var err error
		sent, err = e.svc.Send(ctx, e.who, SendRequest{Topic: topic, Body: "order 4711 paid twice", Tags: "paid",
			Keys: []string{"order-4711", "customer-7"}, Properties: map[string]string{"region": "eu", "amount": "12.50"},
			// A topic on several masters has a queue 2 on each: the broker is named.
			QueueID: ints(2), BrokerName: e.cl.Brokers[0].Name, Reason: "replay order 4711"})
		return err
	})
	if sent.QueueID != 2 || sent.BrokerName != e.cl.Brokers[0].Name || sent.OffsetMsgID == "" || sent.MsgID == "" || sent.Status != "SEND_OK" {
		t.Fatalf("sent %+v", sent)
	}
	var got url.Values
	dev.Eventually(t, 60*time.Second, "the consumer receives the message", func() error {
		for _, line := range cons.Received() {
			f := strings.Fields(line)
			if len(f) == 7 && f[5] == sent.OffsetMsgID {
				if f[2] != "2" {
					t.Fatalf("received on queue %s, sent to 2: %s", f[2], line)
				}
				got, _ = url.ParseQuery(f[6])
				return nil
			}
		}
		return errors.New("not yet received")
	})
	for k, want := range map[string]string{"body": "order 4711 paid twice", "TAGS": "paid", "KEYS": "order-4711 customer-7",
		"UNIQ_KEY": sent.MsgID, "region": "eu", "amount": "12.50"} {
		if got.Get(k) != want {
			t.Errorf("received %s = %q, want %q (all: %v)", k, got.Get(k), want, got)
		}
	}
	a, err := e.audit.Get(ctx, sent.AuditID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Mode != ModeSend || a.Status != store.AuditApplied || a.Actor != "otto" || a.Reason != "replay order 4711" ||
		len(a.Queues()) != 1 || a.Queues()[0].Target != sent.QueueOffset || !strings.Contains(a.Queues()[0].Note.String(), sent.MsgID) {
		t.Errorf("audit entry %+v", a)
	}
	// The row's note is a catalogue sentence: the audit page reads it in Chinese too.
	if zh := i18n.Match("zh-CN").SayText(a.Queues()[0].Note); !strings.Contains(zh, "已存储于队列位点") || !strings.Contains(zh, sent.MsgID) {
		t.Errorf("audit note in Chinese: %q", zh)
	}
	t.Logf("sent %s; consumer saw %v", sent, got)

	// What the brokers would refuse is refused first: nothing is sent, nothing audited.
	t.Run("refusals", func(t *testing.T) {
		readOnly := dev.UniqueName("it-send-ro")
		if _, err := e.svc.Save(ctx, e.who, SaveRequest{Topic: readOnly, Perm: ints(4)}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name   string
			r      SendRequest
			code   fault.Code
			reason string
			field  string
		}{
			{"a topic that does not exist", SendRequest{Topic: dev.UniqueName("it-send-none"), Body: "x"}, fault.NotFound, ReasonNotFound, ""},
			{"a system topic", SendRequest{Topic: "SCHEDULE_TOPIC_XXXX", Body: "x"}, fault.Invalid, "bad_topic", "topic"},
			{"a dead-letter topic", SendRequest{Topic: "%DLQ%some-group", Body: "x"}, fault.Invalid, "bad_topic", "topic"},
			{"a read-only topic", SendRequest{Topic: readOnly, Body: "x"}, fault.Conflict, "topic_not_writable", ""},
			{"a body over maxMessageSize", SendRequest{Topic: topic, Body: strings.Repeat("x", DefaultMaxMessageSize+1)}, fault.Invalid, "bad_body", "body"},
			{"an empty body", SendRequest{Topic: topic}, fault.Invalid, "bad_body", "body"},
			{"a property RocketMQ sets", SendRequest{Topic: topic, Body: "x", Properties: map[string]string{"KEYS": "k"}}, fault.Invalid, "bad_properties", "properties"},
			{"a delay and a delivery time", SendRequest{Topic: topic, Body: "x", DelayLevel: 3, DeliverAt: time.Now().Add(time.Hour).UnixMilli()}, fault.Invalid, "bad_deliverAt", "deliverAt"},
			{"a queue the topic does not have", SendRequest{Topic: topic, Body: "x", QueueID: ints(4), BrokerName: e.cl.Brokers[0].Name}, fault.Invalid, "bad_queueId", "queueId"},
		}
		if e.is5 {
			fifo := dev.UniqueName("it-send-fifo")
			if _, err := e.svc.Save(ctx, e.who, SaveRequest{Topic: fifo, MessageType: TypeFIFO}); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, struct {
				name   string
				r      SendRequest
				code   fault.Code
				reason string
				field  string
			}{"a FIFO topic without a message group", SendRequest{Topic: fifo, Body: "x"}, fault.Invalid, "bad_messageGroup", "messageGroup"})
		}
		before := auditCount(t, e, topic)
		for _, c := range cases {
			var err error
			// A topic just created is routed a moment later; until then it is not found.
			dev.Eventually(t, 30*time.Second, c.name+" is refused as such", func() error {
				_, err = e.svc.Send(ctx, e.who, c.r)
				if fe := fault.As(err); fe != nil && fe.Reason == ReasonNotFound && c.reason != ReasonNotFound {
					return err
				}
				return nil
			})
			fe := fault.As(err)
			if fe == nil || fe.Code != c.code || fe.APICode() != c.reason || fe.Field != c.field {
				t.Errorf("%s: got %#v (%v), want %s/%s on %q", c.name, fe, err, c.code, c.reason, c.field)
				continue
			}
			t.Logf("%s: %s", c.name, fe.Msg)
		}
		if after := auditCount(t, e, topic); after != before {
			t.Errorf("refused sends wrote %d audit entries", after-before)
		}
	})
}

func auditCount(t *testing.T, e *changeEnv, topic string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	l, _, err := e.audit.List(ctx, store.AuditFilter{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	return len(l)
}
