package diagnosis

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// A group whose clients joined and left more than ChurnClients times in the last hour,
// as stored in the console's database (SQLite and PostgreSQL), is a warning with the
// counts that links to the group's timeline; a group with one deploy's worth is not, and
// the finding goes once the events are older than the hour.
func TestAGroupThatKeepsRebalancingIsFoundFromTheStoredEvents(t *testing.T) {
	dbs := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "console.db") },
		"postgres": func(t *testing.T) string { return dev.RequirePostgres(t).NewDatabase(t) },
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			st, err := store.Open(context.Background(), dbs[name](t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
			q := 0
			var in []store.RebalanceEvent
			// flapping: a client restarting every five minutes for the last hour.
			for i := range 12 {
				at := now.Add(-time.Duration(i)*5*time.Minute - time.Second)
				in = append(in,
					store.RebalanceEvent{Group: "flapping", At: at, Kind: "left", ClientID: "a"},
					store.RebalanceEvent{Group: "flapping", At: at, Kind: "joined", ClientID: "a"},
					store.RebalanceEvent{Group: "flapping", At: at, Kind: "moved", Topic: "T", BrokerName: "b", QueueID: &q, From: "a", To: "b"})
			}
			// deployed: a rolling restart of three clients over four queues.
			for _, c := range []string{"a", "b", "c"} {
				at := now.Add(-10 * time.Minute)
				in = append(in,
					store.RebalanceEvent{Group: "deployed", At: at, Kind: "left", ClientID: c},
					store.RebalanceEvent{Group: "deployed", At: at, Kind: "joined", ClientID: c},
					store.RebalanceEvent{Group: "deployed", At: at, Kind: "moved", Topic: "T", BrokerName: "b", QueueID: &q, From: c, To: "x"})
			}
			if err := st.AddRebalanceEvents(t.Context(), in); err != nil {
				t.Fatal(err)
			}
			e := New(Options{Rebalances: st})
			read := func(at time.Time) []Finding {
				e.Observe(t.Context(), &groups.List{CheckedAt: at, Groups: []groups.Summary{{Group: "flapping", Online: true, Clients: 2},
					{Group: "deployed", Online: true, Clients: 3}}})
				fs, _ := e.Findings()
				return fs
			}
			fs := read(now)
			if len(fs) != 1 {
				t.Fatalf("findings %s, want one rebalanceChurn", kindsOf(fs))
			}
			f := fs[0]
			if f.Kind != KindChurn || f.Severity != Warning || f.Group != "flapping" || f.Action != "/groups/flapping#timeline" || f.ActionKind != "timeline" {
				t.Errorf("finding %+v, want rebalanceChurn (warning) about flapping, to its timeline", f)
			}
			if got, want := i18n.Match("en").Say(f.Evidence), "In the last 1h, 24 clients joined or left and 12 queues moved (more than 10 clients or 120 moves is more than a routine deploy). Each rebalance pauses the queues that move and may deliver messages again. Find the clients that keep restarting or losing their heartbeat in the timeline."; got != want {
				t.Errorf("evidence %q, want %q", got, want)
			}
			// Fifteen minutes on, the three oldest restarts are over an hour old: 9 left, 18
			// clients joined or left, still churning, since the first read; two hours on, none.
			if fs := read(now.Add(15 * time.Minute)); len(fs) != 1 || fs[0].Kind != KindChurn || !fs[0].Since.Equal(now) {
				t.Errorf("15 minutes on: %s, want rebalanceChurn since %v", kindsOf(fs), now)
			}
			if fs := read(now.Add(2 * time.Hour)); len(fs) != 0 {
				t.Errorf("two hours on: %s, want nothing", kindsOf(fs))
			}
		})
	}
}
