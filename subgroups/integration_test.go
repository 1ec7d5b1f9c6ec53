package subgroups

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

func TestMain(m *testing.M) { os.Exit(dev.RunTests(m)) }

type itEnv struct {
	cl    *dev.Cluster
	c     *rocketmq.Client
	audit *store.AuditLog
	svc   *Service
	is5   bool
	who   Who
}

func newIT(t *testing.T) *itEnv {
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
	return &itEnv{cl: cl, c: c, audit: st.Audit(), svc: New(c, Options{Audit: st.Audit(), NameServers: cl.NameServer}),
		is5: v.Is5(), who: Who{Actor: "otto", Addr: "10.1.2.3"}}
}

// mqadminGroup is the group's configuration on the broker at addr as mqadmin exports it,
// nil when the broker does not have it.
func (e *itEnv) mqadminGroup(t *testing.T, addr, group string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	gs, err := e.cl.GroupConfigsByMQAdmin(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	return gs[group]
}

// behindTheBack changes fields of the group on one broker without the console: a
// read, the change, the whole configuration written back.
func (e *itEnv) behindTheBack(t *testing.T, addr, group string, fields map[string]any) {
	t.Helper()
	docs, err := e.c.GroupDocs(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	doc := docs[group].Clone()
	for k, v := range fields {
		b, _ := json.Marshal(v)
		doc[k] = b
	}
	if err := e.c.PutGroupDoc(t.Context(), addr, doc); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

func (e *itEnv) apply(t *testing.T, p *Plan) *store.AuditEntry {
	t.Helper()
	a, err := e.svc.Apply(t.Context(), Confirmation{Group: p.Group, PlanID: p.ID, Confirmed: true, Who: e.who})
	if err != nil {
		t.Fatal(err)
	}
	if a.Entry.Status != store.AuditApplied {
		t.Fatalf("entry %d %s: %s %+v", a.Entry.ID, a.Entry.Status, a.Entry.Error, a.Entry.Result)
	}
	return a.Entry
}

// A group created, updated and deleted through the service is what RocketMQ's own
// mqadmin then exports from every broker; an update changes only the field asked and
// keeps those the form never shows, even ones set behind the console's back; every change
// is one sealed audit entry with each broker's before and after.
func TestIntegrationSettingsCreateUpdateDelete(t *testing.T) {
	e := newIT(t)
	ctx := t.Context()
	group := dev.UniqueName("it-sg")

	p, err := e.svc.Plan(ctx, Request{Group: group, Settings: Settings{RetryMaxTimes: ptr(5), ConsumeEnable: ptr(false)}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Create || len(p.Brokers) != len(e.cl.Brokers) {
		t.Fatalf("create plan: %+v", p)
	}
	entry := e.apply(t, p)
	if entry.Mode != ModeCreate || entry.Group != group || len(entry.Result) != len(e.cl.Brokers) {
		t.Fatalf("entry: %+v", entry)
	}
	for _, b := range e.cl.Brokers {
		g := e.mqadminGroup(t, b.Addr, group)
		if g == nil || g["retryMaxTimes"] != float64(5) || g["consumeEnable"] != false {
			t.Fatalf("mqadmin on %s after create: %v", b.Name, g)
		}
	}

	// Fields no form shows, set without the console.
	hidden := map[string]any{"notifyConsumerIdsChangedEnable": false, "brokerId": 1}
	if e.is5 {
		hidden["consumeTimeoutMinute"] = 33
	}
	for _, b := range e.cl.Brokers {
		e.behindTheBack(t, b.Addr, group, hidden)
	}

	p, err = e.svc.Plan(ctx, Request{Group: group, Settings: Settings{RetryMaxTimes: ptr(7)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range p.Brokers {
		if len(b.Changes) != 1 || b.Changes[0].Field != "retryMaxTimes" || b.Changes[0].Current != "5" || b.Changes[0].New != "7" {
			t.Fatalf("update preview on %s: %+v", b.Name, b.Changes)
		}
	}
	entry = e.apply(t, p)
	for _, b := range e.cl.Brokers {
		g := e.mqadminGroup(t, b.Addr, group)
		want := map[string]any{"retryMaxTimes": float64(7), "consumeEnable": false, "notifyConsumerIdsChangedEnable": false, "brokerId": float64(1)}
		if e.is5 {
			want["consumeTimeoutMinute"] = float64(33)
		}
		for k, v := range want {
			if g[k] != v {
				t.Errorf("mqadmin on %s after the update: %s = %v, want %v (the update must keep what it did not name)", b.Name, k, g[k], v)
			}
		}
	}
	var params struct {
		Before map[string]map[string]json.RawMessage `json:"before"`
		After  map[string]map[string]json.RawMessage `json:"after"`
	}
	if err := json.Unmarshal(entry.Params, &params); err != nil {
		t.Fatal(err)
	}
	for _, b := range e.cl.Brokers {
		if string(params.Before[b.Name]["retryMaxTimes"]) != "5" || string(params.After[b.Name]["retryMaxTimes"]) != "7" {
			t.Errorf("audit before/after of %s: %s → %s", b.Name, params.Before[b.Name], params.After[b.Name])
		}
	}
	if entry.Mode != ModeUpdate || entry.Seq == 0 || entry.Hash == "" || !strings.Contains(entry.Result[0].Note.String(), "read back") {
		t.Errorf("update entry: %+v", entry)
	}

	if !e.is5 {
		// 4.x brokers have no orderly consumption, retry policy or attributes.
		_, err := e.svc.Plan(ctx, Request{Group: group, Settings: Settings{ConsumeMessageOrderly: ptr(true)}})
		if fe := fault.As(err); fe == nil || fe.Code != fault.Invalid || fe.Msg.ID != "subgroups.input.only5" {
			t.Errorf("a 5.x setting on 4.x brokers: %v", err)
		}
	}

	a, err := e.svc.Delete(ctx, e.who, DeleteRequest{Group: group, Confirm: group, RemoveOffsets: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Entry.Status != store.AuditApplied || a.Entry.Mode != ModeDelete {
		t.Fatalf("delete entry: %+v", a.Entry)
	}
	for _, b := range e.cl.Brokers {
		if g := e.mqadminGroup(t, b.Addr, group); g != nil {
			t.Errorf("mqadmin still exports the group from %s: %v", b.Name, g)
		}
	}
}

// A preview whose broker changed in between is not applied: the refusal is recorded,
// the broker keeps what it had, and a fresh preview shows the value now.
func TestIntegrationStalePreviewIsRefusedWithAFreshOne(t *testing.T) {
	e := newIT(t)
	ctx := t.Context()
	group := dev.UniqueName("it-stale")
	p, err := e.svc.Plan(ctx, Request{Group: group, Settings: Settings{RetryMaxTimes: ptr(4)}})
	if err != nil {
		t.Fatal(err)
	}
	e.apply(t, p)
	p, err = e.svc.Plan(ctx, Request{Group: group, Settings: Settings{RetryMaxTimes: ptr(9)}})
	if err != nil {
		t.Fatal(err)
	}
	addr := e.cl.Brokers[0].Addr
	e.behindTheBack(t, addr, group, map[string]any{"retryMaxTimes": 3})

	_, err = e.svc.Apply(ctx, Confirmation{Group: group, PlanID: p.ID, Confirmed: true, Who: e.who})
	var stale *StaleError
	if !fault.Is(err, fault.Conflict) || !errors.As(err, &stale) || stale.Fresh == nil {
		t.Fatalf("apply of a stale preview: %v", err)
	}
	if ch := stale.Fresh.Brokers[0].Changes; len(ch) != 1 || ch[0].Current != "3" || ch[0].New != "9" {
		t.Errorf("fresh preview: %+v", stale.Fresh.Brokers[0])
	}
	if g := e.mqadminGroup(t, addr, group); g["retryMaxTimes"] != float64(3) {
		t.Errorf("the broker was changed by a refused apply: %v", g)
	}
	entries, _, err := e.audit.List(ctx, store.AuditFilter{Group: group})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 || entries[0].Status != store.AuditRefused || !strings.Contains(entries[0].Error.String(), "retryMaxTimes") {
		t.Fatalf("newest entry of %s: %+v", group, entries)
	}
	// The preview is used up: applying it again is refused as unknown.
	if _, err := e.svc.Apply(ctx, Confirmation{Group: group, PlanID: p.ID, Confirmed: true, Who: e.who}); fault.As(err) == nil || fault.As(err).Reason != "preview_unknown" {
		t.Errorf("second apply: %v", err)
	}
	e.svc.Delete(ctx, e.who, DeleteRequest{Group: group, Confirm: group})
}

// With two masters: where they differ is shown, a change can go to one master and
// leaves the other as it is, and a master that lacks the group gets the other's
// settings with the change.
func TestIntegrationDriftBetweenMastersAndOneBrokerChanges(t *testing.T) {
	e := newIT(t)
	if len(e.cl.Brokers) < 2 {
		t.Skip("needs two masters: run on `rmqdev up --second-broker --slaves` with RMQC_TEST_NAMESRV")
	}
	ctx := t.Context()
	a, b := e.cl.Brokers[0], e.cl.Brokers[1]
	group := dev.UniqueName("it-drift")
	p, err := e.svc.Plan(ctx, Request{Group: group, BrokerNames: []string{a.Name}, Settings: Settings{RetryMaxTimes: ptr(6)}})
	if err != nil {
		t.Fatal(err)
	}
	e.apply(t, p)
	cfg, err := e.svc.Config(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cfg.Missing) != "["+b.Name+"]" {
		t.Fatalf("missing %v, want %s", cfg.Missing, b.Name)
	}
	// Adding the other master: it starts from the first one's settings.
	p, err = e.svc.Plan(ctx, Request{Group: group, BrokerNames: []string{a.Name, b.Name}, Settings: Settings{ConsumeBroadcastEnable: ptr(false)}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Brokers[1].Exists || p.Brokers[1].From != a.Name {
		t.Fatalf("plan for the master without the group: %+v", p.Brokers[1])
	}
	e.apply(t, p)
	if g := e.mqadminGroup(t, b.Addr, group); g["retryMaxTimes"] != float64(6) || g["consumeBroadcastEnable"] != false {
		t.Fatalf("mqadmin on %s: %v", b.Name, g)
	}

	// Behind the console's back, with RocketMQ's own tool: mqadmin updateSubGroup writes
	// a whole configuration of its defaults and the flags it is given.
	if _, err := e.cl.MQAdmin(ctx, "updateSubGroup", "-b", b.Addr, "-g", group, "-r", "2"); err != nil {
		t.Fatal(err)
	}
	cfg, err = e.svc.Config(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	drifts := map[string]Drift{}
	for _, d := range cfg.Drift {
		drifts[d.Field] = d
	}
	if d, ok := drifts["retryMaxTimes"]; !ok || d.Values[a.Name] != "6" || d.Values[b.Name] != "2" {
		t.Fatalf("drift %+v", cfg.Drift)
	}
	p, err = e.svc.Plan(ctx, Request{Group: group, BrokerNames: []string{a.Name}, Settings: Settings{RetryMaxTimes: ptr(8)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Brokers) != 1 || len(p.Drift) == 0 {
		t.Fatalf("plan on one master shows %d brokers and drift %v", len(p.Brokers), p.Drift)
	}
	e.apply(t, p)
	if g := e.mqadminGroup(t, a.Addr, group); g["retryMaxTimes"] != float64(8) {
		t.Errorf("mqadmin on %s: %v", a.Name, g)
	}
	if g := e.mqadminGroup(t, b.Addr, group); g["retryMaxTimes"] != float64(2) {
		t.Errorf("mqadmin on %s, which the change did not name: %v", b.Name, g)
	}
	e.svc.Delete(ctx, e.who, DeleteRequest{Group: group, Confirm: group})
}

// A group with a client online is deleted only when forced, and RocketMQ's own groups
// never; both refusals are in the audit log, and nothing was deleted by them.
func TestIntegrationDeleteRefusesOnlineAndSystemGroups(t *testing.T) {
	e := newIT(t)
	ctx := t.Context()
	topic := dev.UniqueName("it-del")
	if err := e.cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	group := dev.UniqueName("it-del-g")
	cons := dev.StartConsumerProcess(t, e.cl.NameServer, group, topic)
	dev.Eventually(t, 60*time.Second, "the consumer is online", func() error {
		im, err := e.svc.Impact(ctx, group)
		if err != nil {
			return err
		}
		if len(im.Clients) == 0 || len(im.Brokers) == 0 {
			return fmt.Errorf("impact %+v", im)
		}
		return nil
	})
	_, err := e.svc.Delete(ctx, e.who, DeleteRequest{Group: group, Confirm: group})
	if fe := fault.As(err); fe == nil || fe.Reason != "clients_online" {
		t.Fatalf("delete with a client online: %v", err)
	}
	if g := e.mqadminGroup(t, e.cl.Brokers[0].Addr, group); g == nil {
		t.Fatal("a refused delete deleted the group")
	}
	if _, err := e.svc.Delete(ctx, e.who, DeleteRequest{Group: "TOOLS_CONSUMER", Confirm: "TOOLS_CONSUMER"}); !fault.Is(err, fault.Refused) {
		t.Fatalf("delete of a system group: %v", err)
	}
	for _, g := range []string{group, "TOOLS_CONSUMER"} {
		entries, _, err := e.audit.List(ctx, store.AuditFilter{Group: g})
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 || entries[0].Status != store.AuditRefused || entries[0].Mode != ModeDelete {
			t.Errorf("refusal of %s not audited: %+v", g, entries)
		}
	}
	cons.Stop()
	a, err := e.svc.Delete(ctx, e.who, DeleteRequest{Group: group, Confirm: group, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Entry.Status == store.AuditFailed {
		t.Fatalf("forced delete: %+v", a.Entry)
	}
}
