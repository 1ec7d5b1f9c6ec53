package server

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/store"
)

func TestRebalanceRetentionSetting(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
		bad  bool
	}{
		{want: 30 * 24 * time.Hour},
		{args: []string{"--rebalance-retention", "0"}},
		{args: []string{"--rebalance-retention", "48h"}, want: 48 * time.Hour},
		{args: []string{"--rebalance-retention", "5m"}, bad: true},
		{args: []string{"--rebalance-retention", "-1h"}, bad: true},
		{args: []string{"--rebalance-retention", "a month"}, bad: true},
	} {
		cfg, err := ParseConfig(append([]string{"--data-dir", t.TempDir()}, c.args...), noEnv, io.Discard)
		if c.bad {
			if err == nil || !strings.Contains(err.Error(), "rebalance-retention") {
				t.Errorf("%v: error %v, want one naming --rebalance-retention", c.args, err)
			}
			continue
		}
		if err != nil || cfg.RebalanceRetention != c.want {
			t.Errorf("%v: %v, retention %s, want %s", c.args, err, cfg.RebalanceRetention, c.want)
		}
	}
}

// A console started on a database with rebalance events older than the retention
// deletes them and keeps the recent ones, which (written before clusters had names) are
// the default cluster's.
func TestStartPrunesOldRebalanceEvents(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "rmqconsole.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	err = st.AddRebalanceEvents(ctx, []store.RebalanceEvent{
		{Group: "G", At: now.Add(-50 * time.Hour), Kind: "joined", ClientID: "old"},
		{Group: "G", At: now.Add(-time.Hour), Kind: "joined", ClientID: "recent"},
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := ParseConfig([]string{"--data-dir", dir, "--rebalance-retention", "48h"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var got []store.RebalanceEvent
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, err = a.def.store.RebalanceEvents(ctx, "G", 10, time.Time{}); err == nil && len(got) == 1 {
			break
		}
	}
	if len(got) != 1 || got[0].ClientID != "recent" {
		t.Errorf("events after start: %+v, want only the recent one", got)
	}
}
