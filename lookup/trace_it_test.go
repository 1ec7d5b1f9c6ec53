package lookup

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
)

// A message sent by a producer with tracing on and consumed by a consumer with tracing
// on has its whole trace read back, as mqadmin queryMsgTraceById tells it; a message
// sent without tracing has none; a trace topic of the clients' own is read when named;
// and a trace topic that does not exist is said to be missing.
func TestIntegrationTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	e := newIT(t)
	topic := e.topic(t, "trace", 2)
	ownTrace := e.topic(t, "own-trace", 1)
	group := dev.UniqueName("trace-cg")
	pgroup := dev.UniqueName("trace-pg")

	traced := dev.Produce(t, e.cl.NameServer, topic, dev.ProduceOptions{Key: "traced", Tag: "TagT", Group: pgroup, Trace: true})[0]
	plain := dev.Produce(t, e.cl.NameServer, topic, dev.ProduceOptions{Key: "plain"})[0]
	own := dev.Produce(t, e.cl.NameServer, topic, dev.ProduceOptions{Key: "own", Trace: true, TraceTopic: ownTrace})[0]
	dev.StartConsumerProcessWith(t, e.cl.NameServer, group, dev.ConsumerOptions{Trace: true}, topic)

	find := func(s dev.Sent) Message {
		t.Helper()
		r, err := e.svc.ByID(ctxT(t), IDQuery{ID: s.OffsetMsgID})
		if err != nil {
			t.Fatal(err)
		}
		return r.Message
	}
	m := find(traced)
	var tr *MessageTrace
	dev.Eventually(t, 60*time.Second, "the traced message's send and consumption in the trace", func() error {
		var err error
		if tr, err = e.svc.Trace(ctxT(t), m, TraceQuery{}); err != nil {
			return err
		}
		if len(tr.Published) != 1 || len(tr.Groups) != 1 || !tr.Groups[0].Attempts[0].Finished {
			return fmt.Errorf("published %+v, groups %+v", tr.Published, tr.Groups)
		}
		return nil
	})
	if tr.Topic != DefaultTraceTopic || tr.TopicFrom != TraceTopicBroker || tr.TraceTopicEnable != "true" || len(tr.Failures) > 0 {
		t.Errorf("trace topic %s (from %s, traceTopicEnable %q), failures %v", tr.Topic, tr.TopicFrom, tr.TraceTopicEnable, tr.Failures)
	}
	p := tr.Published[0]
	if p.Group != pgroup || !p.Success || p.Keys != "traced" || p.Tags != "TagT" || p.Topic != topic ||
		!strings.EqualFold(p.OffsetMsgID, traced.OffsetMsgID) || p.StoreBroker != m.BrokerName || p.StoreHost != m.StoreHost.String() {
		t.Errorf("published %+v; message on %s at %s, offsetMsgId %s", p, m.BrokerName, m.StoreHost, traced.OffsetMsgID)
	}
	g := tr.Groups[0]
	if a := g.Attempts[0]; g.Group != group || len(g.Attempts) != 1 || !a.Success || a.RetryTimes != 0 || a.ClientHost == "" || a.Time.IsZero() {
		t.Errorf("consumed %+v", g)
	}
	if p.ClientHost == "" || p.Time.Before(m.BornTime().Add(-time.Minute)) {
		t.Errorf("published by %q at %s; the message was born at %s", p.ClientHost, p.Time, m.BornTime())
	}
	crossCheckMQAdmin(t, e, traced.MsgID, "", tr)

	// Sent without tracing, consumed with it: only the consumer's records.
	mp := find(plain)
	dev.Eventually(t, 60*time.Second, "the plain message's consumption in the trace", func() error {
		pt, err := e.svc.Trace(ctxT(t), mp, TraceQuery{})
		if err != nil {
			return err
		}
		if len(pt.Published) != 0 || len(pt.Groups) != 1 {
			return fmt.Errorf("published %+v, groups %+v", pt.Published, pt.Groups)
		}
		return nil
	})

	// Traced to the clients' own topic: found there, nothing of its send in the default one.
	mo := find(own)
	dev.Eventually(t, 60*time.Second, "the send traced to "+ownTrace, func() error {
		ot, err := e.svc.Trace(ctxT(t), mo, TraceQuery{Topic: ownTrace})
		if err != nil {
			return err
		}
		if len(ot.Published) != 1 || ot.TopicFrom != TraceTopicAsked || ot.Topic != ownTrace {
			return fmt.Errorf("trace topic %s (%s): published %+v", ot.Topic, ot.TopicFrom, ot.Published)
		}
		return nil
	})
	if dt, err := e.svc.Trace(ctxT(t), mo, TraceQuery{}); err != nil || len(dt.Published) != 0 {
		t.Errorf("the send traced to %s is in %s too: %+v, %v", ownTrace, DefaultTraceTopic, dt, err)
	}

	missing := dev.UniqueName("no-trace")
	if mt, err := e.svc.Trace(ctxT(t), m, TraceQuery{Topic: missing}); err != nil || !mt.TopicMissing || !mt.Empty() {
		t.Errorf("trace topic %s that does not exist: %+v, %v", missing, mt, err)
	}
	if _, err := e.svc.Trace(ctxT(t), m, TraceQuery{Topic: "bad topic!"}); err == nil {
		t.Error("a trace topic that is no topic name was read")
	}
}

// mqadminTraceRow is one line of mqadmin queryMsgTraceById: "Pub|Sub group host
// yyyy-MM-dd HH:mm:ss costms status".
var mqadminTraceRow = regexp.MustCompile(`(?m)^(Pub|Sub)\s+(\S+)\s+(\S+)\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s+(\d+)ms\s+(\S+)`)

// crossCheckMQAdmin compares the trace with what RocketMQ's own tool decodes from the
// same records. mqadmin's client host is the trace message's born host (SentFrom), not
// the address the record names: on a machine with another interface the client names
// that one while it reaches the broker over loopback.
func crossCheckMQAdmin(t *testing.T, e *itEnv, msgID, traceTopic string, tr *MessageTrace) {
	t.Helper()
	args := []string{"queryMsgTraceById", "-i", msgID}
	if traceTopic != "" {
		args = append(args, "-t", traceTopic)
	}
	out, err := e.cl.MQAdmin(ctxT(t), args...)
	if err != nil {
		t.Fatalf("mqadmin queryMsgTraceById: %v", err)
	}
	var pubs, subs []string
	for _, r := range mqadminTraceRow.FindAllStringSubmatch(out, -1) {
		row := strings.Join([]string{r[2], r[3], r[5] + "ms", r[6]}, " ")
		if r[1] == "Pub" {
			pubs = append(pubs, row)
		} else {
			subs = append(subs, row)
		}
	}
	var ourPubs, ourSubs []string
	for _, p := range tr.Published {
		ourPubs = append(ourPubs, fmt.Sprintf("%s %s %dms %s", p.Group, p.SentFrom, p.CostMs, successWord(p.Success)))
	}
	for _, g := range tr.Groups {
		for _, a := range g.Attempts {
			ourSubs = append(ourSubs, fmt.Sprintf("%s %s %dms %s", g.Group, a.SentFrom, a.CostMs, successWord(a.Success)))
		}
	}
	if strings.Join(pubs, "\n") != strings.Join(ourPubs, "\n") || strings.Join(subs, "\n") != strings.Join(ourSubs, "\n") {
		t.Errorf("mqadmin queryMsgTraceById decodes\n%s\nthe console\npub %q\nsub %q", out, ourPubs, ourSubs)
	}
	t.Logf("mqadmin queryMsgTraceById agrees: pub %q, sub %q", pubs, subs)
}

func successWord(ok bool) string {
	if ok {
		return "success"
	}
	return "failed"
}
