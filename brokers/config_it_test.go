package brokers

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

type configIT struct {
	cl    *dev.Cluster
	svc   *Service
	audit *store.AuditLog
	who   Who
}

func newConfigIT(t *testing.T) *configIT {
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
	svc := New(c, nil)
	svc.EnableChanges(ChangeOptions{Changer: c, Audit: st.Audit(), NameServers: cl.NameServer})
	return &configIT{cl: cl, svc: svc, audit: st.Audit(), who: Who{Actor: "ada", Addr: "10.9.8.7"}}
}

// processesOf are the addresses of a broker's master and slaves.
func (e *configIT) processesOf(name string) []string {
	var out []string
	for _, b := range append(slices.Clone(e.cl.Brokers), e.cl.Slaves...) {
		if b.Name == name {
			out = append(out, b.Addr)
		}
	}
	return out
}

func (e *configIT) mqadminConfig(t *testing.T, addr string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cfg, err := e.cl.BrokerConfigByMQAdmin(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A key changed on a broker (master and slaves) is previewed per process with its
// current and new value, applied, read back, audited with before and after, and what
// RocketMQ's own mqadmin then reads from each process.
func TestIntegrationConfigChangeIsPreviewedAppliedAndReadBack(t *testing.T) {
	e := newConfigIT(t)
	ctx := t.Context()
	b := e.cl.Brokers[0]
	// commercialBaseCount only scales the broker's accounting figures: changing it does
	// not disturb the other tests sharing the cluster.
	const key = "commercialBaseCount"
	was := e.mqadminConfig(t, b.Addr)[key]
	n, err := strconv.Atoi(was)
	if err != nil {
		t.Fatalf("%s = %q", key, was)
	}
	next := strconv.Itoa(n + 1)
	t.Cleanup(func() {
		for _, addr := range e.processesOf(b.Name) {
			e.cl.UpdateBrokerConfigByMQAdmin(context.Background(), addr, key, was)
		}
	})
	p, err := e.svc.PlanConfig(ctx, ConfigRequest{Broker: b.Name, Config: map[string]string{key: next}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Processes) != len(e.processesOf(b.Name)) || p.Scope != ScopeBroker {
		t.Fatalf("plan on %d processes, the broker has %d: %+v", len(p.Processes), len(e.processesOf(b.Name)), p)
	}
	for _, pp := range p.Processes {
		if c := pp.Changes[0]; c.Key != key || c.Current != was || c.New != next || c.Same || c.Secret {
			t.Fatalf("preview on %s: %+v", pp.Addr, c)
		}
	}
	entry, _, err := e.svc.ApplyConfig(ctx, ConfigConfirmation{Broker: b.Name, PlanID: p.ID, Confirmed: true, Who: e.who})
	if err != nil {
		t.Fatal(err)
	}
	if entry.Status != store.AuditApplied || entry.Mode != ModeConfigUpdate || len(entry.Result) != len(p.Processes) {
		t.Fatalf("entry: %+v", entry)
	}
	for _, addr := range e.processesOf(b.Name) {
		if got := e.mqadminConfig(t, addr)[key]; got != next {
			t.Errorf("mqadmin getBrokerConfig on %s: %s = %s, want %s", addr, key, got, next)
		}
	}
	var params struct {
		Before, After map[string]map[string]string
	}
	json.Unmarshal(entry.Params, &params)
	if params.Before[b.Name+"/0"][key] != was || params.After[b.Name+"/0"][key] != next {
		t.Errorf("audit before/after: %+v", params)
	}
}

// Keys a broker would ignore silently (unknown, wrong case, a value of another type),
// keys that say what a process is, and the broker's configBlackList are refused with a
// sentence each, before anything is sent; nothing is audited.
func TestIntegrationConfigRefusesWhatABrokerWouldIgnore(t *testing.T) {
	e := newConfigIT(t)
	ctx := t.Context()
	b := e.cl.Brokers[0].Name
	cases := []struct {
		kv     map[string]string
		reason string
	}{
		{map[string]string{"noSuchSetting": "1"}, "brokerconfig.input.unknown"},
		{map[string]string{"maxmessagesize": "1024"}, "brokerconfig.input.unknown"},
		{map[string]string{"commercialBaseCount": "lots"}, "brokerconfig.input.int"},
		{map[string]string{"slaveReadEnable": "yes"}, "brokerconfig.input.bool"},
		{map[string]string{"brokerName": "broker-z"}, "brokerconfig.input.fixed"},
		{map[string]string{"listenPort": "1"}, "brokerconfig.input.fixed"},
		{map[string]string{"configBlackList": "x"}, "brokerconfig.input.blacklist"},
	}
	for _, c := range cases {
		_, err := e.svc.PlanConfig(ctx, ConfigRequest{Broker: b, Config: c.kv})
		fe := fault.As(err)
		if fe == nil || fe.Code != fault.Invalid || fe.Msg.ID != c.reason {
			t.Errorf("%v: %v, want %s", c.kv, err, c.reason)
		}
	}
	_, err := e.svc.PlanConfig(ctx, ConfigRequest{Broker: b, Config: map[string]string{"maxmessagesize": "1024"}})
	if !strings.Contains(fmt.Sprint(err), "maxMessageSize") {
		t.Errorf("no hint of the key's spelling: %v", err)
	}
	entries, _, err := e.audit.List(ctx, store.AuditFilter{})
	if err != nil || len(entries) != 0 {
		t.Errorf("bad input audited: %v %+v", err, entries)
	}
}

// A key changed on one process behind the console's back (mqadmin updateBrokerConfig)
// is shown as drift, masters and slaves side by side; keys that differ by design are
// marked so.
func TestIntegrationDriftShowsAKeyChangedBehindTheConsolesBack(t *testing.T) {
	e := newConfigIT(t)
	if len(e.cl.Brokers)+len(e.cl.Slaves) < 2 {
		t.Skip("needs two broker processes: run on `rmqdev up --second-broker --slaves` with RMQC_TEST_NAMESRV")
	}
	ctx := t.Context()
	all := append(slices.Clone(e.cl.Brokers), e.cl.Slaves...)
	odd := all[len(all)-1]
	const key = "commercialBaseCount"
	was := e.mqadminConfig(t, odd.Addr)[key]
	t.Cleanup(func() { e.cl.UpdateBrokerConfigByMQAdmin(context.Background(), odd.Addr, key, was) })
	if err := e.cl.UpdateBrokerConfigByMQAdmin(ctx, odd.Addr, key, "7"); err != nil {
		t.Fatal(err)
	}
	r, err := e.svc.ConfigDrift(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Clusters) != 1 || len(r.Clusters[0].Processes) != len(all) {
		t.Fatalf("drift report: %+v", r)
	}
	cd := r.Clusters[0]
	i := slices.IndexFunc(cd.Keys, func(k KeyDrift) bool { return k.Key == key })
	if i < 0 || cd.Keys[i].Expected {
		t.Fatalf("%s not shown as drift: %+v", key, cd.Keys)
	}
	for j, p := range cd.Processes {
		want := was
		if p.Addr == odd.Addr {
			want = "7"
		}
		if cd.Keys[i].Values[j] != want {
			t.Errorf("%s on %s: %q, want %q", key, p.Addr, cd.Keys[i].Values[j], want)
		}
	}
	if j := slices.IndexFunc(cd.Keys, func(k KeyDrift) bool { return k.Key == "brokerId" || k.Key == "listenPort" }); j < 0 || !cd.Keys[j].Expected {
		t.Errorf("the keys that differ by design are not marked so: %+v", cd.Keys)
	}
}
