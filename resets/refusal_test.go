package resets

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/i18n"
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
	svc := New(Config{Audit: st.Audit(), NameServers: "ns:9876", RefusalWindow: time.Second})
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
		svc.RefuseRole(ctx, vic, group, Asked{Mode: "latest", Reason: strings.Repeat("é", 1000)}, i18n.Plain("Your role may not."))
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
		es[0].Group != "" || !strings.Contains(es[0].Error.String(), "and 5 more refusals by vic") || es[0].ActorAddr != "10.0.0.9" {
		t.Fatalf("count entry %+v (params %s, %v)", es[0], es[0].Params, err)
	}
	if r := []rune(es[1].Reason); len(r) != RefusalTextMax || r[len(r)-1] != '…' {
		t.Fatalf("reason kept %d characters, want %d ending in …", len(r), RefusalTextMax)
	}
	svc.RefuseRole(ctx, vic, "g1", Asked{}, i18n.Plain("Your role may not."))
	if n := len(list()); n != RefusalsPerWindow+2 {
		t.Fatalf("a refusal in the next window: %d entries, want it recorded", n)
	}
	svc.Close()
}

// A refused apply is recorded whatever it sent: a viewer's reason with NUL, ESC, a line
// break and a direction override is kept escaped, on both databases (PostgreSQL
// refused the NUL, and the refusal went unrecorded), and so are the group, the topic
// and every parameter. An apply refused for such text is recorded too; other mistakes
// in a form are not (nothing was attempted).
func TestRefusalsKeepWhatWasSentEscaped(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "console.db") },
		"postgres": func(t *testing.T) string { return dev.RequirePostgres(t).NewDatabase(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			svc := New(Config{Audit: st.Audit(), NameServers: "ns:9876"})
			t.Cleanup(svc.Close)
			vera := Who{Actor: "vera", Addr: "10.0.0.9"}
			e := svc.RefuseRole(ctx, vera, "g\x00", Asked{Topic: "t\u202e", Mode: "latest", Reason: "a\x00b\u202e\x1b[2J",
				Params: map[string]string{"offset": "1\r\n2", "planId": "\xff"}}, i18n.Plain("Your role may not reset offsets."))
			if e == nil {
				t.Fatal("the refused reset was not recorded")
			}
			got, err := st.Audit().Get(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			var params map[string]string
			_ = json.Unmarshal(got.Params, &params)
			for what, pair := range map[string][2]string{
				"reason": {got.Reason, `"a\x00b\u202e\x1b[2J"`},
				"group":  {got.Group, `"g\x00"`},
				"topic":  {strings.Join(got.Topics, ","), `"t\u202e"`},
				"offset": {params["offset"], `"1\r\n2"`},
				"planId": {params["planId"], `"\xff"`},
			} {
				if pair[0] != pair[1] {
					t.Errorf("%s kept as %q, want it escaped: %s", what, pair[0], pair[1])
				}
			}

			bad := Request{Group: "g", Topic: "t", Mode: ModeLatest, QueueID: AllQueues, Reason: "x\x00"}
			if svc.RefuseInput(ctx, vera, "g", Asked{Mode: "latest", Reason: bad.Reason}, bad.Check(time.Now())) == nil {
				t.Error("an apply refused for a NUL in its reason was not recorded")
			}
			typo := Request{Group: "g", Topic: "t", Mode: "rewind", QueueID: AllQueues}
			if e := svc.RefuseInput(ctx, vera, "g", Asked{Mode: "rewind"}, typo.Check(time.Now())); e != nil {
				t.Errorf("an apply refused for an unknown mode was recorded as entry %d", e.ID)
			}
		})
	}
}
