package deadletters

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/cluster"
	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/fault"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

// One local RocketMQ serves every integration test of this package (or the one named by
// RMQC_TEST_NAMESRV).
func TestMain(m *testing.M) {
	os.Exit(dev.RunTests(m))
}

type itEnv struct {
	cl      *dev.Cluster
	c       *rocketmq.Client
	look    *lookup.Service
	audit   *store.AuditLog
	svc     *Service
	topic   string
	group   string
	keys    []string
	sentID  map[string]string // key -> msgId (unique key) of the original
	sentOff map[string]string // key -> offsetMsgId of the original
}

func newITEnv(t *testing.T) *itEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	var creds rocketmq.Credentials
	if a, ok := dev.AccountFor(cl.NameServer); ok {
		creds = rocketmq.Credentials{AccessKey: a.AccessKey, SecretKey: a.SecretKey}
	}
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: creds})
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	shared := cluster.New(c, cluster.Options{})
	e := &itEnv{cl: cl, c: c, audit: st.Audit(), look: lookup.New(c, lookup.Options{Cluster: shared})}
	e.svc = New(Config{Admin: c, Cluster: shared, Finder: e.look, Audit: e.audit, NameServers: cl.NameServer})
	return e
}

func (e *itEnv) ctx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// deadLetters sends n messages to a new topic and has a real consumer of a new group fail
// each of them until the broker moves them to the group's dead-letter topic: one
// redelivery through the retry topic (max reconsume times 1, a one-second delay), then
// the DLQ. It returns when the DLQ holds all n.
func (e *itEnv) deadLetters(t *testing.T, n int) {
	t.Helper()
	e.topic, e.group = dev.UniqueName("dlqt"), dev.UniqueName("dlqg")
	if err := e.cl.CreateTopic(e.ctx(t, 90*time.Second), e.topic, 2); err != nil {
		t.Fatal(err)
	}
	tc, err := e.svc.Topics(e.ctx(t, 15*time.Second), e.group)
	if err != nil {
		t.Fatal(err)
	}
	if tc.DLQ.Exists || tc.Retry.Exists {
		t.Fatalf("a new group's topics: %+v, want neither to exist yet", tc)
	}
	p := rmqclient.StartProducer(t, e.cl.NameServer, dev.UniqueName("dlqp"))
	e.sentID, e.sentOff = map[string]string{}, map[string]string{}
	for i := range n {
		key := fmt.Sprintf("order-%d-%s", i, e.topic)
		m := primitive.NewMessage(e.topic, []byte(fmt.Sprintf(`{"order":%d}`, i))).WithKeys([]string{key}).WithTag("paid")
		m.WithProperty("color", "blue")
		r, err := p.SendSync(e.ctx(t, 15*time.Second), m)
		if err != nil {
			t.Fatal(err)
		}
		e.keys = append(e.keys, key)
		e.sentID[key], e.sentOff[key] = r.MsgID, r.OffsetMsgID
	}
	// The retry topic, made now rather than by the first failure: the client looks up
	// its route only every 30 s, which would be most of the test's time.
	if err := e.cl.CreateTopic(e.ctx(t, 90*time.Second), rocketmq.RetryTopic(e.group), 1); err != nil {
		t.Fatal(err)
	}
	failing := dev.StartConsumerProcessWith(t, e.cl.NameServer, e.group,
		dev.ConsumerOptions{Fail: true, MaxReconsumeTimes: 1, RetryDelayLevel: 1, Print: true}, e.topic)
	dev.Eventually(t, 120*time.Second, "the dead letters in the DLQ", func() error {
		tc, err = e.svc.Topics(e.ctx(t, 15*time.Second), e.group)
		if err == nil && tc.DLQ.Exists && tc.DLQ.Stored >= int64(n) {
			return nil
		}
		return fmt.Errorf("group topics %+v %v; the consumer received %v", tc, err, failing.Received())
	})
	if !tc.Retry.Exists || tc.Retry.Stored < int64(n) || tc.DLQ.Stored != int64(n) {
		t.Fatalf("group topics %+v, want the retry topic with >= %d messages and the DLQ with %d", tc, n, n)
	}
	// The consumer commits its offsets every 5 s and when it stops; a loaded 4.9.7 broker
	// was seen to keep none of them when it stopped at once, and the group, consuming
	// again, received the originals too. Stop it once the brokers hold its offsets past
	// all n messages.
	dev.Eventually(t, 60*time.Second, "the group's offsets committed past the failed messages", func() error {
		var stored, lag int64
		for _, b := range e.cl.Brokers {
			s, err := e.c.ConsumeStats(e.ctx(t, 15*time.Second), b.Addr, e.group, e.topic)
			if err != nil {
				continue // no offset of the group on this broker yet
			}
			for _, o := range s.Offsets {
				stored += o.BrokerOffset
			}
			lag += s.TotalLag()
		}
		if stored != int64(n) || lag != 0 {
			return fmt.Errorf("the brokers that know the group's offsets hold %d of the %d messages, %d of them not committed", stored, n, lag)
		}
		return nil
	})
	failing.Stop()
}

// The real dead-letter path end to end: a consumer fails every message until the broker
// moves them to %DLQ%<group>; each dead letter tells its original topic, message id and
// reconsume count; a resend puts each back on its original topic with its keys, tag and
// user property (a key search finds it, with a new msgId), audits one row per message,
// and the same group, consuming again without failing, receives exactly the resent ones.
func TestIntegrationResendDeadLetters(t *testing.T) {
	e := newITEnv(t)
	const n = 3
	e.deadLetters(t, n)

	dlq := rocketmq.DLQTopic(e.group)
	found, err := e.look.ByRange(e.ctx(t, 30*time.Second), lookup.RangeQuery{Topic: dlq, Begin: time.Now().Add(-time.Hour), End: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Messages) != n {
		t.Fatalf("a search of %s found %d messages, want %d", dlq, len(found.Messages), n)
	}
	// The overview lists the group's dead-letter topic among the cluster's, with its
	// count and the store time of its newest dead letter (the newest message found).
	all, err := e.svc.Overview(e.ctx(t, 60*time.Second), true)
	if err != nil {
		t.Fatal(err)
	}
	var newest time.Time
	for _, m := range found.Messages {
		if at := time.UnixMilli(m.StoreTimestamp); at.After(newest) {
			newest = at
		}
	}
	if i := slices.IndexFunc(all, func(g GroupDLQ) bool { return g.Topic == dlq }); i < 0 {
		t.Errorf("the overview's %d topics leave out %s", len(all), dlq)
	} else if g := all[i]; g.Group != e.group || g.Stored != n || !g.Newest.Equal(newest) {
		t.Errorf("the overview's %s: %+v, want group %s, %d stored, the newest at %s", dlq, g, e.group, n, newest)
	}
	for _, g := range all {
		if !rocketmq.IsDLQTopic(g.Topic) {
			t.Errorf("the overview lists %s, no dead-letter topic", g.Topic)
		}
	}
	var ids []string
	for _, m := range found.Messages {
		o, ok := OriginOf(m.Message)
		key := strings.Join(m.Keys(), " ")
		// The broker names the original by its offsetMsgId; the dead letter keeps its
		// unique key.
		if !ok || !o.DeadLetter || o.Group != e.group || o.Topic != e.topic || o.MsgID != e.sentOff[key] || m.UniqueKey() != e.sentID[key] || m.ReconsumeTimes < 1 {
			t.Fatalf("dead letter %s: origin %+v ok %v, reconsume times %d, properties %v; want topic %s, original %s, unique key %s",
				m.MsgID(), o, ok, m.ReconsumeTimes, m.Properties, e.topic, e.sentOff[key], e.sentID[key])
		}
		t.Logf("dead letter properties: %v", m.Properties)
		ids = append(ids, m.OffsetMsgID())
	}

	// Refused, and nothing sent: an original (not a dead letter), too many ids, a
	// non-DLQ topic for unique keys.
	orig, err := e.look.ByKey(e.ctx(t, 15*time.Second), lookup.KeyQuery{Topic: e.topic, Key: e.keys[0]})
	if err != nil || len(orig.Messages) != 1 {
		t.Fatalf("the original by key: %+v %v", orig, err)
	}
	for _, req := range []ResendRequest{
		{IDs: []string{orig.Messages[0].OffsetMsgID()}},
		{IDs: append([]string{ids[0]}, orig.Messages[0].OffsetMsgID())},
		{},
		{IDs: manyIDs(MaxResend + 1)},
		{IDs: []string{e.sentID[e.keys[0]]}, Topic: e.topic},
	} {
		_, err := e.svc.Resend(e.ctx(t, 30*time.Second), req)
		if ie := fault.As(err); ie == nil || ie.Code != fault.Invalid || !strings.Contains(ie.Error(), "Nothing was sent") {
			t.Fatalf("resend %v: %v, want a refusal saying nothing was sent", req.IDs[:min(2, len(req.IDs))], err)
		}
	}
	if entries, _, _ := e.audit.List(t.Context(), store.AuditFilter{}); len(entries) != 0 {
		t.Fatalf("refused resends wrote %d audit entries", len(entries))
	}
	if got := e.stored(t, e.topic); got != n {
		t.Fatalf("after the refusals topic %s stores %d messages, want the %d originals", e.topic, got, n)
	}

	res, err := e.svc.Resend(e.ctx(t, 60*time.Second), ResendRequest{IDs: ids, Actor: "alice", Reason: "bug fixed"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != store.AuditApplied || len(res.Messages) != n || res.Group != e.group {
		t.Fatalf("resend %+v", res)
	}
	newIDs := map[string]bool{}
	for _, r := range res.Messages {
		if r.Failed() || r.Topic != e.topic || r.MsgID == "" || r.OffsetMsgID == "" || r.BrokerName == "" {
			t.Fatalf("resent %+v", r)
		}
		newIDs[r.MsgID] = true
	}
	entry, err := e.audit.Get(t.Context(), res.AuditID)
	if err != nil {
		t.Fatal(err)
	}
	if entry.Mode != AuditMode || entry.Group != e.group || entry.Status != store.AuditApplied || len(entry.Result) != n ||
		!slices.Contains(entry.Topics, e.topic) || !slices.Contains(entry.Topics, dlq) || entry.Actor != "alice" {
		t.Fatalf("audit entry %+v", entry)
	}

	// The key index finds the resent message beside the original, with what was kept.
	for _, key := range e.keys {
		var got *lookup.Result
		dev.Eventually(t, 30*time.Second, "key "+key+": the original and the resent message", func() error {
			got, err = e.look.ByKey(e.ctx(t, 15*time.Second), lookup.KeyQuery{Topic: e.topic, Key: key})
			if err == nil && len(got.Messages) == 2 {
				return nil
			}
			return fmt.Errorf("%+v %v", got, err)
		})
		var resent *lookup.Message
		for i, m := range got.Messages {
			if newIDs[m.MsgID()] {
				resent = &got.Messages[i]
			}
		}
		if resent == nil {
			t.Fatalf("key %s: no message with a resent msgId among %v", key, got.Messages)
		}
		p := resent.Properties
		if resent.Tags() != "paid" || p["color"] != "blue" || p[rocketmq.PropertyRetryTopic] != "" || p[rocketmq.PropertyOriginMessageID] != "" ||
			p["DELAY"] != "" || p[rocketmq.PropertyRealTopic] != "" || p["WAIT"] == "false" || resent.ReconsumeTimes != 0 || !strings.HasPrefix(string(resent.Body), `{"order":`) {
			t.Fatalf("resent message of key %s: properties %v reconsume %d body %q", key, p, resent.ReconsumeTimes, resent.Body)
		}
	}

	// The group consumes them: a consumer that no longer fails receives the resent
	// messages, and only them (the originals' offsets were committed when they failed).
	again := dev.StartConsumerProcessWith(t, e.cl.NameServer, e.group, dev.ConsumerOptions{Print: true}, e.topic)
	dev.Eventually(t, 90*time.Second, "the group consumes the resent messages", func() error {
		var keys []string
		for _, line := range again.Received() {
			if f := strings.Fields(line); len(f) == 6 && f[0] == e.topic { // topic broker queue offset keys offsetMsgId
				keys = append(keys, f[4])
			}
		}
		slices.Sort(keys)
		if slices.Equal(keys, e.keys) {
			return nil
		}
		return fmt.Errorf("consumed %v from %s, want the %d resent messages %v", again.Received(), e.topic, n, e.keys)
	})
}

func (e *itEnv) stored(t *testing.T, topic string) int64 {
	t.Helper()
	tc, err := e.svc.count(e.ctx(t, 15*time.Second), topic)
	if err != nil || len(tc.Failures) > 0 {
		t.Fatalf("count %s: %+v %v", topic, tc, err)
	}
	return tc.Stored
}

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("7F000001000051AF%016X", i)
	}
	return out
}
