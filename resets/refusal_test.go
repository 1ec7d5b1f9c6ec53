package resets

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/store"
)

// At the end of an actor's window the refusals only counted are written as one entry,
// and the next refusal starts a new window recorded one by one again.
func TestRefusalWindowEndsWithOneCount(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := New(Config{Audit: st.Audit(), Cluster: "ns:9876", RefusalWindow: time.Second})
	vic := Who{Actor: "vic", Addr: "10.0.0.9"}
	ctx := context.Background()
	list := func() []store.AuditEntry {
		es, _, err := st.Audit().List(ctx, store.AuditFilter{Actor: "vic"})
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	for i := range RefusalsPerWindow + 5 {
		group := "g1"
		if i%2 == 1 {
			group = "g2"
		}
		svc.RefuseRole(ctx, vic, group, Asked{Mode: "latest", Reason: strings.Repeat("é", 1000)}, "Your role may not.")
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(list()) < RefusalsPerWindow+1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	es := list()
	if len(es) != RefusalsPerWindow+1 {
		t.Fatalf("%d entries after the window, want %d", len(es), RefusalsPerWindow+1)
	}
	var p struct {
		Refusals int      `json:"refusals"`
		Groups   []string `json:"groups"`
	}
	if err := json.Unmarshal(es[0].Params, &p); err != nil || p.Refusals != 5 || strings.Join(p.Groups, ",") != "g1,g2" ||
		es[0].Group != "" || !strings.Contains(es[0].Error, "and 5 more refusals by vic") || es[0].ActorAddr != "10.0.0.9" {
		t.Fatalf("count entry %+v (params %s, %v)", es[0], es[0].Params, err)
	}
	if r := []rune(es[1].Reason); len(r) != RefusalTextMax || r[len(r)-1] != '…' {
		t.Fatalf("reason kept %d characters, want %d ending in …", len(r), RefusalTextMax)
	}
	svc.RefuseRole(ctx, vic, "g1", Asked{}, "Your role may not.")
	if n := len(list()); n != RefusalsPerWindow+2 {
		t.Fatalf("a refusal in the next window: %d entries, want it recorded", n)
	}
	svc.Close()
}
