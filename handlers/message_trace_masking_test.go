package handlers

import (
	"testing"

	"rmqconsole/auth"
	"rmqconsole/lookup"
	"rmqconsole/masking"
	"rmqconsole/rocketmq"
)

// The trace records a send's keys and tags as they were sent: a reader who sees the
// message's keys and tags masked sees them masked in its trace too, by the rules of the
// traced message (a dead letter's by the topic it was sent to).
func TestATracesKeysAndTagsAreMaskedAsTheMessagesAre(t *testing.T) {
	p, err := masking.New(masking.Config{Rules: []masking.RuleConfig{{Topic: "orders", Properties: []string{"KEYS", "TAGS"}}}})
	if err != nil {
		t.Fatal(err)
	}
	trace := &lookup.MessageTrace{Published: []lookup.TracePublish{{Keys: "order-42", Tags: "vip"}}}
	msg := func(topic string, props map[string]string) lookup.Message {
		return lookup.Message{Message: &rocketmq.Message{Topic: topic, Properties: props}}
	}
	viewer := p.For(auth.Viewer, "c")
	for _, m := range []lookup.Message{msg("orders", nil), msg("%DLQ%billing", map[string]string{"RETRY_TOPIC": "orders"})} {
		got := traceMasked(viewer, m, trace).Published[0]
		if got.Keys != masking.Marker || got.Tags != masking.Marker {
			t.Errorf("%s: a viewer's trace shows keys %q, tags %q", m.Topic, got.Keys, got.Tags)
		}
	}
	if trace.Published[0].Keys != "order-42" {
		t.Error("the trace read was changed")
	}
	for _, c := range []struct {
		mk *masking.Masker
		m  lookup.Message
	}{{viewer, msg("payments", nil)}, {p.For(auth.Operator, "c"), msg("orders", nil)}} {
		if got := traceMasked(c.mk, c.m, trace).Published[0]; got.Keys != "order-42" || got.Tags != "vip" {
			t.Errorf("%s: keys %q, tags %q masked where no rule covers the reader", c.m.Topic, got.Keys, got.Tags)
		}
	}
}
