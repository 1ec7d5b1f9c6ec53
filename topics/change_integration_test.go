package topics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

type changeEnv struct {
	cl    *dev.Cluster
	c     *rocketmq.Client
	audit *store.AuditLog
	svc   *Service
	is5   bool
	who   Who
}

func newChangeEnv(t *testing.T) *changeEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	v, err := c.BrokerVersion(t.Context(), cl.Brokers[0].Addr)
	if err != nil {
		t.Fatal(err)
	}
	return &changeEnv{cl: cl, c: c, audit: st.Audit(), svc: New(c, Options{Audit: st.Audit(), NameServers: cl.NameServer}),
		is5: v.Is5(), who: Who{Actor: "otto", Addr: "10.1.2.3"}}
}

// routeIs waits until mqadmin topicRoute shows want (the NameServer takes a change a
// moment after the broker).
func (e *changeEnv) routeIs(t *testing.T, topic string, want map[string]dev.RouteQueues) {
	t.Helper()
	start := time.Now()
	defer func() {
		t.Logf("mqadmin topicRoute showed %v after %s", want, time.Since(start).Round(time.Millisecond))
	}()
	dev.Eventually(t, 30*time.Second, "mqadmin topicRoute shows the change", func() error {
		got, err := e.cl.TopicRouteByMQAdmin(t.Context(), topic)
		if err != nil {
			return err
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("route %v, want %v", got, want)
		}
		return nil
	})
}

func ints(n int) *int { return &n }

// A topic created, updated and deleted through the service is what RocketMQ's own
// mqadmin then sees; an update keeps what it did not name, a broker added to the topic
// gets the topic's shape, and every change is one sealed audit entry with each broker's
// configuration before and after and one row per broker.
func TestIntegrationTopicCreateUpdateDelete(t *testing.T) {
	e := newChangeEnv(t)
	ctx := t.Context()
	topic := dev.UniqueName("it-crud")
	first := e.cl.Brokers[0].Name

	saved, err := e.svc.Save(ctx, e.who, SaveRequest{Topic: topic, ReadQueueNums: ints(3), WriteQueueNums: ints(3), BrokerNames: []string{first}})
	if err != nil {
		t.Fatal(err)
	}
	ent := saved.Entry
	if !saved.Created || ent.Status != store.AuditApplied || ent.Mode != ModeCreate || ent.Seq == 0 || len(ent.Result) != 1 ||
		ent.Result[0].BrokerName != first || ent.Actor != "otto" || ent.Cluster != e.cl.NameServer {
		t.Fatalf("create: %+v", ent)
	}
	var p struct {
		Before map[string]*Config `json:"before"`
		After  map[string]Config  `json:"after"`
	}
	if err := json.Unmarshal(ent.Params, &p); err != nil || p.Before[first] != nil || p.After[first].ReadQueueNums != 3 || p.After[first].Perm != 6 {
		t.Fatalf("create params %s", ent.Params)
	}
	e.routeIs(t, topic, map[string]dev.RouteQueues{first: {Read: 3, Write: 3, Perm: 6}})
	status, err := e.cl.TopicStatusByMQAdmin(ctx, topic)
	if err != nil || status[first] != 3 {
		t.Fatalf("mqadmin topicStatus: %v %v, want 3 queues on %s", status, err, first)
	}

	// Update: permission and write queues only, on every broker: read queues stay 3, and
	// a second broker (when there is one) gets the topic as the first has it.
	var all []string
	want := map[string]dev.RouteQueues{}
	for _, b := range e.cl.Brokers {
		all = append(all, b.Name)
		want[b.Name] = dev.RouteQueues{Read: 3, Write: 5, Perm: 4}
	}
	saved, err = e.svc.Save(ctx, e.who, SaveRequest{Update: true, Topic: topic, Perm: ints(4), WriteQueueNums: ints(5), BrokerNames: all})
	if err != nil {
		t.Fatal(err)
	}
	ent = saved.Entry
	if saved.Created || ent.Status != store.AuditApplied || ent.Mode != ModeUpdate || len(ent.Result) != len(all) {
		t.Fatalf("update: %+v", ent)
	}
	p.Before, p.After = nil, nil
	if err := json.Unmarshal(ent.Params, &p); err != nil || p.Before[first] == nil || p.Before[first].Perm != 6 || p.After[first].Perm != 4 ||
		p.After[first].ReadQueueNums != 3 || p.After[first].WriteQueueNums != 5 {
		t.Fatalf("update params %s", ent.Params)
	}
	if !strings.Contains(ent.Result[0].Note.String(), "permission RW → R-") {
		t.Fatalf("update row note %q", ent.Result[0].Note)
	}
	// The notes are stored as catalogue sentences: the entry read back reads in Chinese.
	zh := i18n.Match("zh-CN")
	if note := storedNote(t, e, ent.ID); !strings.Contains(zh.SayText(note), "权限 RW → R-") {
		t.Fatalf("the stored update note reads in Chinese as %q", zh.SayText(note))
	}
	e.routeIs(t, topic, want)

	saved, err = e.svc.Delete(ctx, e.who, DeleteRequest{Topic: topic, Confirm: topic})
	if err != nil {
		t.Fatal(err)
	}
	if ent := saved.Entry; ent.Status != store.AuditApplied || ent.Mode != ModeDelete || len(ent.Result) != len(all) ||
		!strings.Contains(ent.Result[0].Note.String(), "gone from every NameServer") {
		t.Fatalf("delete: %+v", ent)
	}
	if note := storedNote(t, e, saved.Entry.ID); zh.SayText(note) != "已删除；路由已从所有 NameServer 移除" {
		t.Fatalf("the stored delete note reads in Chinese as %q", zh.SayText(note))
	}
	dev.Eventually(t, 30*time.Second, "mqadmin topicRoute finds no route", func() error {
		got, err := e.cl.TopicRouteByMQAdmin(ctx, topic)
		if errors.Is(err, dev.ErrNoRoute) {
			return nil
		}
		return fmt.Errorf("route %v (%v)", got, err)
	})
	for _, b := range e.cl.Brokers {
		tt, err := e.c.TopicConfigs(ctx, b.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tt.Topics[topic]; ok {
			t.Errorf("broker %s still has the deleted topic", b.Name)
		}
	}
	rep, err := e.audit.Verify(ctx)
	if err != nil || !rep.Intact || rep.Sealed != 3 || rep.Pending != 0 {
		t.Fatalf("audit chain %+v %v, want intact with 3 entries", rep, err)
	}
}

// On 5.x a topic is created with its message type (the "+message.type" attribute) and
// an update that does not name it keeps it; 4.x keeps no message type, and asking for
// one is refused before any broker is asked.
func TestIntegrationTopicMessageType(t *testing.T) {
	e := newChangeEnv(t)
	ctx := t.Context()
	topic := dev.UniqueName("it-fifo")
	_, err := e.svc.Save(ctx, e.who, SaveRequest{Topic: topic, MessageType: TypeFIFO, ReadQueueNums: ints(2), WriteQueueNums: ints(2)})
	if !e.is5 {
		if ie := fault.As(err); ie == nil || ie.Code != fault.Invalid || ie.Field != "messageType" || !strings.Contains(ie.Error(), "4.x keeps no message type") {
			t.Fatalf("a message type on 4.x: %v", err)
		}
		if _, err := e.c.TopicRoute(ctx, topic); !errors.Is(err, rocketmq.ErrTopicNotFound) {
			t.Fatalf("the refused topic exists: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.svc.Delete(context.WithoutCancel(ctx), e.who, DeleteRequest{Topic: topic, Confirm: topic})
	})
	typeOn := func() string {
		tt, err := e.c.TopicConfigs(ctx, e.cl.Brokers[0].Addr)
		if err != nil {
			t.Fatal(err)
		}
		return tt.Topics[topic].MessageType()
	}
	if got := typeOn(); got != "FIFO" {
		t.Fatalf("message type %q, want FIFO", got)
	}
	if _, err := e.svc.Save(ctx, e.who, SaveRequest{Update: true, Topic: topic, Perm: ints(6), ReadQueueNums: ints(4), WriteQueueNums: ints(4)}); err != nil {
		t.Fatal(err)
	}
	if got := typeOn(); got != "FIFO" {
		t.Fatalf("after an update that did not name it, the message type is %q", got)
	}
}

// Bad input is refused with a sentence naming the field, before any broker is asked:
// nothing is created or deleted, and no audit entry is written (none left pending).
func TestIntegrationTopicChangeRefusesBadInput(t *testing.T) {
	e := newChangeEnv(t)
	ctx := t.Context()
	existing := dev.UniqueName("it-keep")
	if err := e.cl.CreateTopic(ctx, existing, 2); err != nil {
		t.Fatal(err)
	}
	fresh := dev.UniqueName("it-bad")
	saves := []struct {
		name  string
		r     SaveRequest
		field string
	}{
		{"no queues", SaveRequest{Topic: fresh, ReadQueueNums: ints(0)}, "readQueueNums"},
		{"ten thousand queues", SaveRequest{Topic: fresh, WriteQueueNums: ints(10000)}, "writeQueueNums"},
		{"permission 5", SaveRequest{Topic: fresh, Perm: ints(5)}, "perm"},
		{"unknown broker", SaveRequest{Topic: fresh, BrokerNames: []string{"no-such-broker"}}, "brokerNames"},
		{"unknown cluster", SaveRequest{Topic: fresh, ClusterName: "NoSuchCluster"}, "clusterName"},
		{"brokers and cluster", SaveRequest{Topic: fresh, ClusterName: e.cl.ClusterName, BrokerNames: []string{e.cl.Brokers[0].Name}}, "brokerNames"},
		{"bad characters", SaveRequest{Topic: "orders v2"}, "topic"},
		{"too long", SaveRequest{Topic: strings.Repeat("t", MaxTopicLen+1)}, "topic"},
		{"unknown type", SaveRequest{Topic: fresh, MessageType: "urgent"}, "messageType"},
		{"system topic", SaveRequest{Topic: "TBW102", Perm: ints(4)}, "topic"},
		{"retry topic", SaveRequest{Topic: "%RETRY%billing", ReadQueueNums: ints(4)}, "topic"},
		{"dead-letter topic", SaveRequest{Topic: "%DLQ%billing"}, "topic"},
		{"cluster-named topic", SaveRequest{Topic: e.cl.ClusterName}, "topic"},
		{"existing, ten thousand queues", SaveRequest{Topic: existing, ReadQueueNums: ints(10000)}, "readQueueNums"},
	}
	for _, c := range saves {
		_, err := e.svc.Save(ctx, e.who, c.r)
		if ie := fault.As(err); ie == nil || ie.Code != fault.Invalid || ie.Field != c.field || len(ie.Error()) < 20 {
			t.Errorf("%s: %v, want an input error on %s", c.name, err, c.field)
		}
	}
	deletes := []struct {
		name  string
		r     DeleteRequest
		field string
	}{
		{"no confirm", DeleteRequest{Topic: existing}, "confirm"},
		{"confirm mismatch", DeleteRequest{Topic: existing, Confirm: existing + "x"}, "confirm"},
		{"system topic", DeleteRequest{Topic: "TBW102", Confirm: "TBW102"}, "topic"},
		{"retry topic", DeleteRequest{Topic: "%RETRY%billing", Confirm: "%RETRY%billing"}, "topic"},
		{"dead-letter topic", DeleteRequest{Topic: "%DLQ%billing", Confirm: "%DLQ%billing"}, "topic"},
	}
	for _, c := range deletes {
		_, err := e.svc.Delete(ctx, e.who, c.r)
		if ie := fault.As(err); ie == nil || ie.Code != fault.Invalid || ie.Field != c.field {
			t.Errorf("%s: %v, want an input error on %s", c.name, err, c.field)
		}
	}
	if _, err := e.svc.Delete(ctx, e.who, DeleteRequest{Topic: fresh, Confirm: fresh}); !fault.Is(err, fault.NotFound) {
		t.Errorf("delete of an unknown topic: %v", err)
	}
	if _, err := e.c.TopicRoute(ctx, fresh); !errors.Is(err, rocketmq.ErrTopicNotFound) {
		t.Errorf("a refused topic exists: %v", err)
	}
	route, err := e.c.TopicRoute(ctx, existing)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range route.QueueDatas {
		if q.ReadQueueNums != 2 || q.WriteQueueNums != 2 || q.Perm != 6 {
			t.Errorf("the refusals changed %s on %s: %+v", existing, q.BrokerName, q)
		}
	}
	rep, err := e.audit.Verify(ctx)
	if err != nil || rep.Sealed != 0 || rep.Pending != 0 {
		t.Fatalf("audit after refusals: %+v %v, want no entry at all", rep, err)
	}
}

// failingChanger is the real client, except that one broker address refuses every change:
// a broker that fails while the others do not.
type failingChanger struct {
	Changer
	addr string
}

var errInjected = errors.New("injected: the broker refused the change")

func (f failingChanger) CreateTopic(ctx context.Context, addr string, tc rocketmq.TopicConfig) error {
	if addr == f.addr {
		return errInjected
	}
	return f.Changer.CreateTopic(ctx, addr, tc)
}

func (f failingChanger) DeleteTopicInBroker(ctx context.Context, addr, topic string) error {
	if addr == f.addr {
		return errInjected
	}
	return f.Changer.DeleteTopicInBroker(ctx, addr, topic)
}

// A broker that fails a change is named in its row with its error and the entry is
// partial (failed when it was the only broker); a delete that a broker failed leaves the
// NameServers' route, so the topic stays visible where it still is.
func TestIntegrationTopicChangeWithAFailingBroker(t *testing.T) {
	e := newChangeEnv(t)
	ctx := t.Context()
	last := e.cl.Brokers[len(e.cl.Brokers)-1]
	svc := New(e.c, Options{Audit: e.audit, NameServers: e.cl.NameServer, Changer: failingChanger{Changer: e.c, addr: last.Addr}})
	topic := dev.UniqueName("it-fail")
	want := store.AuditPartial
	if len(e.cl.Brokers) == 1 {
		want = store.AuditFailed
	}
	saved, err := svc.Save(ctx, e.who, SaveRequest{Topic: topic, ReadQueueNums: ints(2), WriteQueueNums: ints(2)})
	if err != nil {
		t.Fatal(err)
	}
	ent := saved.Entry
	failed := ent.Result[len(ent.Result)-1]
	if ent.Status != want || ent.Seq == 0 || failed.BrokerName != last.Name || !strings.Contains(failed.Error.String(), "injected") {
		t.Fatalf("create with %s failing: %s, rows %+v", last.Name, ent.Status, ent.Result)
	}
	for _, r := range ent.Result[:len(ent.Result)-1] {
		if len(r.Error) > 0 {
			t.Errorf("broker %s failed too: %s", r.BrokerName, r.Error)
		}
	}
	if len(e.cl.Brokers) == 1 {
		return // nothing was created, so there is nothing to delete
	}
	t.Cleanup(func() {
		_, _ = e.svc.Delete(context.WithoutCancel(ctx), e.who, DeleteRequest{Topic: topic, Confirm: topic})
	})
	e.routeIs(t, topic, map[string]dev.RouteQueues{e.cl.Brokers[0].Name: {Read: 2, Write: 2, Perm: 6}})
	// Add the failing broker to the route for real, then delete with it failing.
	both := map[string]dev.RouteQueues{}
	for _, b := range e.cl.Brokers {
		both[b.Name] = dev.RouteQueues{Read: 2, Write: 2, Perm: 6}
	}
	// Only the broker it lacks is named: the topic exists, so it is an update, and the
	// broker gets the topic's shape.
	added, err := e.svc.Save(ctx, e.who, SaveRequest{Update: true, Topic: topic, BrokerNames: []string{last.Name}})
	if err != nil {
		t.Fatal(err)
	}
	if added.Created || added.Entry.Mode != ModeUpdate {
		t.Errorf("adding %s to an existing topic was %s", last.Name, added.Entry.Mode)
	}
	e.routeIs(t, topic, both)
	saved, err = svc.Delete(ctx, e.who, DeleteRequest{Topic: topic, Confirm: topic})
	if err != nil {
		t.Fatal(err)
	}
	if ent := saved.Entry; ent.Status != store.AuditPartial || !strings.Contains(ent.Error.String(), "NameServers keep") {
		t.Fatalf("delete with %s failing: %s %q", last.Name, ent.Status, ent.Error)
	}
	if _, err := e.c.TopicRoute(ctx, topic); err != nil {
		t.Fatalf("the route went although %s still has the topic: %v", last.Name, err)
	}
}

// A create names a topic that exists with other queue counts: it is refused, and the
// topic keeps its 8 write queues (the create used to change it to 4). Only an update
// changes it; an update of a topic that does not exist is refused and creates nothing.
// Neither refusal reaches the audit log, since nothing was attempted.
func TestIntegrationTopicCreateNeverChangesAnExistingTopic(t *testing.T) {
	e := newChangeEnv(t)
	ctx := t.Context()
	existing := dev.UniqueName("it-exists")
	if err := e.cl.CreateTopic(ctx, existing, 8); err != nil {
		t.Fatal(err)
	}
	eight := map[string]dev.RouteQueues{}
	for _, b := range e.cl.Brokers {
		eight[b.Name] = dev.RouteQueues{Read: 8, Write: 8, Perm: 6}
	}
	e.routeIs(t, existing, eight)

	_, err := e.svc.Save(ctx, e.who, SaveRequest{Topic: existing, WriteQueueNums: ints(4)})
	if ex := fault.As(err); ex == nil || ex.Code != fault.Conflict || ex.APICode() != ReasonExists || !strings.Contains(err.Error(), existing+" exists already") {
		t.Errorf("create of the existing %s: %v, want it refused as existing", existing, err)
	}
	fresh := dev.UniqueName("it-absent")
	if _, err := e.svc.Save(ctx, e.who, SaveRequest{Update: true, Topic: fresh, WriteQueueNums: ints(4)}); !fault.Is(err, fault.NotFound) {
		t.Errorf("update of the absent %s: %v, want it refused as not found", fresh, err)
	}
	if _, err := e.c.TopicRoute(ctx, fresh); !errors.Is(err, rocketmq.ErrTopicNotFound) {
		t.Errorf("the refused update created %s: %v", fresh, err)
	}
	for _, b := range e.cl.Brokers {
		tt, err := e.c.TopicConfigs(ctx, b.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if tc := tt.Topics[existing]; tc.WriteQueueNums != 8 || tc.ReadQueueNums != 8 {
			t.Errorf("after the refused create %s has %d read / %d write queues on %s, want 8 / 8", existing, tc.ReadQueueNums, tc.WriteQueueNums, b.Name)
		}
	}
	if rep, err := e.audit.Verify(ctx); err != nil || rep.Sealed != 0 || rep.Pending != 0 {
		t.Errorf("audit after the refusals: %+v %v, want no entry", rep, err)
	}

	saved, err := e.svc.Save(ctx, e.who, SaveRequest{Update: true, Topic: existing, WriteQueueNums: ints(4)})
	if err != nil {
		t.Fatal(err)
	}
	if saved.Created || saved.Entry.Mode != ModeUpdate || saved.Entry.Status != store.AuditApplied {
		t.Fatalf("update: created %v, %s %s", saved.Created, saved.Entry.Mode, saved.Entry.Status)
	}
	four := map[string]dev.RouteQueues{}
	for _, b := range e.cl.Brokers {
		four[b.Name] = dev.RouteQueues{Read: 8, Write: 4, Perm: 6}
	}
	e.routeIs(t, existing, four)
}

// storedNote is the first row's note of entry id as the audit log reads it back.
func storedNote(t *testing.T, e *changeEnv, id int64) i18n.Text {
	t.Helper()
	stored, err := e.audit.Get(context.Background(), id)
	if err != nil || len(stored.Result) == 0 {
		t.Fatalf("audit entry %d: %v", id, err)
	}
	return stored.Result[0].Note
}
