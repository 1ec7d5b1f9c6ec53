package brokers

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/fault"
	"rmqconsole/previews"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// configBrokers is a cluster whose processes hold configurations and take changes.
type configBrokers struct {
	*clustertest.Fake
	mu  sync.Mutex
	cfg map[string]map[string]string
}

func (f *configBrokers) BrokerRuntimeInfo(context.Context, string) (*rocketmq.BrokerRuntimeInfo, error) {
	return &rocketmq.BrokerRuntimeInfo{Table: map[string]string{}}, nil
}

func (f *configBrokers) BrokerConfig(_ context.Context, addr string) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.cfg[addr]), nil
}

func (f *configBrokers) UpdateBrokerConfig(_ context.Context, addr string, kv map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	maps.Copy(f.cfg[addr], kv)
	return nil
}

// A key holding a secret is changed without its value ever being shown, kept or
// audited: the preview (kept in the shared database) says "changed", applying takes the
// value again, and the audit entry has neither the old nor the new value.
func TestASecretIsNeverShownKeptOrAudited(t *testing.T) {
	const oldSecret, newSecret = "old-s3cret-value", "new-s3cret-value"
	f := &configBrokers{Fake: clustertest.New(), cfg: map[string]map[string]string{
		"10.0.0.1:10911": {"brokerName": "broker-a", "innerSecretKey": oldSecret, "commercialBaseCount": "1", "configBlackList": "configBlackList"},
	}}
	f.AddBroker("broker-a", "10.0.0.1:10911")
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := New(f, nil)
	svc.EnableChanges(ChangeOptions{Changer: f, Audit: st.Audit(), Previews: previews.New(st, 0, nil)})
	ctx := context.Background()
	plan := func() *ConfigPlan {
		p, err := svc.PlanConfig(ctx, ConfigRequest{Broker: "broker-a", Scope: ScopeMaster, Config: map[string]string{"innerSecretKey": newSecret, "commercialBaseCount": "2"}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan()
	shown, _ := json.Marshal(p)
	kept, err := st.PeekPreview(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for what, b := range map[string][]byte{"the preview": shown, "the kept preview": kept} {
		if s := string(b); strings.Contains(s, oldSecret) || strings.Contains(s, newSecret) {
			t.Fatalf("%s holds a secret: %s", what, s)
		}
	}
	if len(p.Secrets) != 1 || p.Secrets[0] != "innerSecretKey" || p.Processes[0].Changes[1].Key != "innerSecretKey" || p.Processes[0].Changes[1].New != "changed" {
		t.Fatalf("plan: %+v", p)
	}
	_, _, err = svc.ApplyConfig(ctx, ConfigConfirmation{Broker: "broker-a", PlanID: p.ID, Confirmed: true})
	if e := fault.As(err); e == nil || e.Field != "secrets" {
		t.Fatalf("apply without the secret again: %v", err)
	}
	if f.cfg["10.0.0.1:10911"]["innerSecretKey"] != oldSecret {
		t.Fatal("the secret changed without being sent again")
	}
	p = plan()
	e, _, err := svc.ApplyConfig(ctx, ConfigConfirmation{Broker: "broker-a", PlanID: p.ID, Confirmed: true, Secrets: map[string]string{"innerSecretKey": newSecret}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != store.AuditApplied || f.cfg["10.0.0.1:10911"]["innerSecretKey"] != newSecret || f.cfg["10.0.0.1:10911"]["commercialBaseCount"] != "2" {
		t.Fatalf("entry %+v, config %v", e, f.cfg)
	}
	got, err := st.Audit().Get(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	audited, _ := json.Marshal(got)
	if s := string(audited); strings.Contains(s, oldSecret) || strings.Contains(s, newSecret) || !strings.Contains(s, "changed") {
		t.Fatalf("the audit entry: %s", s)
	}
}
