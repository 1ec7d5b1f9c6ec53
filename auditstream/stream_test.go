package auditstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/store"
)

// receiver is a webhook that refuses the first fail requests, then takes every record.
type receiver struct {
	mu       sync.Mutex
	fail     int
	requests int
	got      []Record // every record taken, duplicates included, in arrival order
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if r.requests <= r.fail {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	var body struct{ Records []Record }
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil || len(body.Records) == 0 {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	r.got = append(r.got, body.Records...)
}

func (r *receiver) records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.got...)
}

// bySeq is the records taken, one per chain position.
func bySeq(recs []Record) map[int64]Record {
	out := map[int64]Record{}
	for _, r := range recs {
		out[r.Seq] = r
	}
	return out
}

// checkChain checks that the records hold positions 1..n of the chain, each linked to
// the one before and equal to what the log stores.
func checkChain(t *testing.T, log *store.AuditLog, recs map[int64]Record, n int64) {
	t.Helper()
	stored, err := log.Sealed(context.Background(), 0, int(n)+10)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(stored)) != n {
		t.Fatalf("the log holds %d sealed entries, want %d", len(stored), n)
	}
	prev := strings.Repeat("0", 64)
	for seq := int64(1); seq <= n; seq++ {
		r, ok := recs[seq]
		if !ok {
			t.Fatalf("chain position %d was never delivered", seq)
		}
		if r.PrevHash != prev {
			t.Fatalf("record %d: prevHash %s, the record before hashes to %s", seq, r.PrevHash, prev)
		}
		if s := stored[seq-1]; r.Hash != s.Hash || r.ID != s.ID || r.Mode != s.Mode {
			t.Fatalf("record %d: %+v, stored %+v", seq, r, s)
		}
		prev = r.Hash
	}
}

func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func write(t *testing.T, log *store.AuditLog, n int) {
	t.Helper()
	for i := range n {
		if err := log.RecordRead(context.Background(), store.Read{Mode: store.ReadBodyMode, Actor: "ann", Topic: "T", MsgID: fmt.Sprint("m", i), Rows: 1}); err != nil {
			t.Fatal(err)
		}
	}
}

// run starts a streamer and returns its stop, which waits for it to end.
func run(st *store.Store, sinks ...Sink) (stop func()) {
	s := New(Options{Chain: st.Audit(), Cursors: st, Sinks: sinks, Poll: 5 * time.Millisecond, Retry: 5 * time.Millisecond, Batch: 3})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	return func() { cancel(); <-done }
}

// A webhook that refuses twice still gets every entry, in chain order, each linked to
// the one before: nothing is lost; duplicates are allowed.
func TestWebhookThatFailsTwiceLosesNothing(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "console.db"))
	defer st.Close()
	recv := &receiver{fail: 2}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	write(t, st.Audit(), 4)
	stop := run(st, &Webhook{URL: srv.URL})
	defer stop()
	write(t, st.Audit(), 3) // written while streaming
	eventually(t, "the webhook gets all 7 entries", func() error {
		if got := bySeq(recv.records()); len(got) < 7 {
			return fmt.Errorf("%d of 7", len(got))
		}
		return nil
	})
	checkChain(t, st.Audit(), bySeq(recv.records()), 7)
	recv.mu.Lock()
	requests := recv.requests
	recv.mu.Unlock()
	if requests < 2+3 { // two refused, then batches of at most 3
		t.Fatalf("%d requests: the refusals were not retried", requests)
	}
	eventually(t, "the cursor reaches 7", func() error {
		if n, err := st.StreamCursor(context.Background(), (&Webhook{URL: srv.URL}).Name()); n != 7 {
			return fmt.Errorf("cursor %d (%v)", n, err)
		}
		return nil
	})
}

// A console that restarts resumes after the stored cursor: what was delivered before is
// not sent again, what was written while it was down is.
func TestStreamResumesFromStoredCursorAfterRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.db")
	recv := &receiver{}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	hook := &Webhook{URL: srv.URL}

	st := openStore(t, path)
	write(t, st.Audit(), 4)
	stop := run(st, hook)
	eventually(t, "the first run delivers 4 entries and saves its cursor", func() error {
		if n, _ := st.StreamCursor(context.Background(), hook.Name()); n != 4 {
			return fmt.Errorf("cursor %d", n)
		}
		return nil
	})
	stop()
	write(t, st.Audit(), 2) // while no console streams
	st.Close()
	before := len(recv.records())

	st = openStore(t, path)
	defer st.Close()
	stop = run(st, hook)
	defer stop()
	eventually(t, "the second run delivers entries 5 and 6", func() error {
		if got := bySeq(recv.records()); len(got) < 6 {
			return fmt.Errorf("%d of 6", len(got))
		}
		return nil
	})
	after := recv.records()[before:]
	if after[0].Seq != 5 {
		t.Fatalf("the restarted stream began at chain position %d, want 5 (after the stored cursor)", after[0].Seq)
	}
	checkChain(t, st.Audit(), bySeq(recv.records()), 6)
}
