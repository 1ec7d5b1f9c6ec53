package resets

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

var alice = Who{Actor: "alice", Addr: "10.0.0.7"}

// said is sentences in English, one after the other.
func said(ts []i18n.Text) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.String())
	}
	return strings.Join(out, " ")
}

// inputOn is the English sentence err gives as bad input on field, "" when it gives none.
func inputOn(err error, field string) string {
	if !fault.Is(err, fault.Invalid) {
		return ""
	}
	if e := fault.All(err).For(field); e != nil {
		return e.Msg.String()
	}
	return ""
}

type env struct {
	fake *clustertest.Fake
	st   *store.Store
	path string
	svc  *Service
	base time.Time // store time of each queue's first message
}

// newEnv is a group "g" consuming topic "t" (4 queues of 10 messages on broker-a, each
// consumed up to offset 6) on a 5.3.3 broker, with a fresh audit database.
func newEnv(t *testing.T, opts ...func(*env)) *env {
	t.Helper()
	e := &env{fake: clustertest.New(), base: time.Now().Add(-time.Hour).Truncate(time.Second)}
	e.fake.AddGroup(&clustertest.Group{Name: "g"})
	e.fake.AddBroker("broker-a", "127.0.0.1:1")
	e.addTopic("t", "broker-a", 4, 10, 6)
	for _, o := range opts {
		o(e)
	}
	e.path = filepath.Join(t.TempDir(), "console.db")
	e.open(t)
	return e
}

func (e *env) open(t *testing.T) {
	t.Helper()
	st, err := store.Open(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.st = st
	e.svc = New(Config{Admin: e.fake, Audit: st.Audit(), NameServers: "ns:9876", Settle: time.Millisecond, VerifyWait: 100 * time.Millisecond})
}

// restart is the console stopping (killed: nothing finished) and starting again on the
// same database, as a new process.
func (e *env) restart(t *testing.T) {
	t.Helper()
	e.st.Close()
	e.open(t)
}

// addTopic gives topic n queues on broker, each with msgs messages stored one second
// apart from e.base, and group g committed at offset consumed on each.
func (e *env) addTopic(topic, broker string, n, msgs int, consumed int64) {
	e.fake.AddMessages(topic, broker, n, msgs, e.base)
	for i := range n {
		e.fake.SetOffset("g", mq(topic, broker, i), consumed)
	}
}

func v4() rocketmq.BrokerVersion {
	return rocketmq.BrokerVersion{Ordinal: rocketmq.VersionOrdinal4_9_8, Name: "V4_9_8"}
}

func notOnline(addr string) error {
	return &rocketmq.BrokerError{Addr: addr, Code: rocketmq.CodeConsumerNotOnline, Remark: "Consumer not online"}
}

func mq(topic, broker string, id int) rocketmq.MessageQueue {
	return rocketmq.MessageQueue{Topic: topic, BrokerName: broker, QueueID: id}
}

func (e *env) entries(t *testing.T) []store.AuditEntry {
	t.Helper()
	es, _, err := e.st.Audit().List(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func (e *env) plan(t *testing.T, req Request) *Plan {
	t.Helper()
	p, err := e.svc.Plan(context.Background(), req)
	if err != nil {
		t.Fatalf("plan %+v: %v", req, err)
	}
	return p
}

func (e *env) apply(t *testing.T, p *Plan) *store.AuditEntry {
	t.Helper()
	entry, err := e.svc.Apply(context.Background(), Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return entry
}

func TestCheckFindsBadInputBeforeAnyBroker(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ok := Request{Group: "g", Topic: "t", Mode: ModeLatest, QueueID: AllQueues}
	for _, tc := range []struct {
		name  string
		edit  func(*Request)
		field string
		says  string
	}{
		{"no group", func(r *Request) { r.Group = "" }, "group", "Name the consumer group"},
		{"bad group", func(r *Request) { r.Group = "a b" }, "group", "not a valid consumer group name"},
		{"bad mode", func(r *Request) { r.Mode = "rewind" }, "mode", "Choose how to reset"},
		{"no timestamp", func(r *Request) { r.Mode = ModeTimestamp }, "timestamp", "Enter the time"},
		{"future", func(r *Request) { r.Mode, r.Timestamp = ModeTimestamp, now.Add(time.Minute) }, "timestamp", "in the future"},
		{"offset without queue", func(r *Request) { r.Mode = ModeOffset }, "queueId", "for one queue"},
		{"negative offset", func(r *Request) { r.Mode, r.QueueID, r.Offset = ModeOffset, 0, -1 }, "offset", "negative"},
		{"zero shift", func(r *Request) { r.Mode = ModeShift }, "shift", "changes nothing"},
		{"queue without topic", func(r *Request) { r.Topic, r.QueueID = "", 1 }, "topic", "Choose the topic"},
		{"long reason", func(r *Request) { r.Reason = strings.Repeat("x", 1001) }, "reason", "at most 1000 are accepted"},
		{"NUL in the reason", func(r *Request) { r.Reason = "a\x00b" }, "reason", `U+0000, a control or line-break character, at character 2 ("a\x00b")`},
		{"ESC in the reason", func(r *Request) { r.Reason = "\x1b[2Jok" }, "reason", "U+001B"},
		{"line break in the reason", func(r *Request) { r.Reason = "one\r\ntwo" }, "reason", "U+000D"},
		{"override in the reason", func(r *Request) { r.Reason = "\u202etxt.exe" }, "reason", "U+202E, which changes the direction"},
		{"reason not UTF-8", func(r *Request) { r.Reason = "a\xff\xfe" }, "reason", "not UTF-8"},
	} {
		r := ok
		tc.edit(&r)
		errs := r.Check(now)
		if !strings.Contains(inputOn(errs.Err(), tc.field), tc.says) {
			t.Errorf("%s: errors %v, want %q on %s", tc.name, errs, tc.says, tc.field)
		}
	}
	if errs := ok.Check(now); len(errs) > 0 {
		t.Errorf("a good request: %v", errs)
	}
}

// Each mode computes the targets a user expects, with deltas and clamping notes.
func TestPlanTargetsPerMode(t *testing.T) {
	e := newEnv(t)
	q0 := mq("t", "broker-a", 0)
	for _, tc := range []struct {
		name   string
		req    Request
		target int64
		note   string
	}{
		{"earliest", Request{Mode: ModeEarliest}, 0, ""},
		{"latest", Request{Mode: ModeLatest}, 10, ""},
		{"timestamp", Request{Mode: ModeTimestamp, Timestamp: e.base.Add(3 * time.Second)}, 3, ""},
		{"timestamp between messages", Request{Mode: ModeTimestamp, Timestamp: e.base.Add(3500 * time.Millisecond)}, 4, ""},
		{"timestamp after all", Request{Mode: ModeTimestamp, Timestamp: e.base.Add(30 * time.Second)}, 10, ""},
		{"offset", Request{Mode: ModeOffset, BrokerName: "broker-a", QueueID: 0, Offset: 2}, 2, ""},
		{"shift back", Request{Mode: ModeShift, Shift: -4}, 2, ""},
		{"shift back clamped", Request{Mode: ModeShift, Shift: -100}, 0, "clamped to 0"},
		{"shift forward clamped", Request{Mode: ModeShift, Shift: 100}, 10, "clamped to 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Group, req.Topic = "g", "t"
			if req.Mode != ModeOffset {
				req.QueueID = AllQueues
			}
			p := e.plan(t, req)
			var got *QueuePlan
			for i := range p.Queues {
				if p.Queues[i].Queue == q0 {
					got = &p.Queues[i]
				}
			}
			if got == nil {
				t.Fatalf("queue 0 not in plan %+v", p.Queues)
			}
			if got.Current != 6 || got.Target != tc.target || got.Delta() != tc.target-6 || got.LagAfter() != 10-tc.target {
				t.Errorf("queue 0: current %d target %d delta %d lag after %d; want target %d", got.Current, got.Target, got.Delta(), got.LagAfter(), tc.target)
			}
			if !strings.Contains(got.Note.String(), tc.note) || (tc.note == "" && len(got.Note) > 0) {
				t.Errorf("note %q, want %q", got.Note, tc.note)
			}
			if req.Mode == ModeOffset && len(p.Queues) != 1 {
				t.Errorf("exact offset planned %d queues", len(p.Queues))
			}
			if req.Mode != ModeOffset && len(p.Queues) != 4 {
				t.Errorf("planned %d queues, want 4", len(p.Queues))
			}
			if p.Brokers[0].Method != MethodResetQueue {
				t.Errorf("5.3.3 broker method %s", p.Brokers[0].Method)
			}
		})
	}
	if e.fake.Writes() != 0 {
		t.Fatalf("previews changed offsets: %d write calls", e.fake.Writes())
	}
	if n := len(e.entries(t)); n != 0 {
		t.Fatalf("previews wrote %d audit entries", n)
	}
}

// Bad input that only the cluster can tell is refused and changes nothing; a preview
// that could not be made is not an audit event.
func TestPlanRefusesBadInputWithoutAuditing(t *testing.T) {
	e := newEnv(t, func(e *env) { e.fake.AddMessages("other", "broker-a", 2, 3, e.base) })
	for _, tc := range []struct {
		name  string
		req   Request
		field string
		says  string
	}{
		{"unknown group", Request{Group: "nobody", Topic: "t", Mode: ModeLatest, QueueID: AllQueues}, "group", `"nobody" does not exist`},
		{"unknown topic", Request{Group: "g", Topic: "nope", Mode: ModeLatest, QueueID: AllQueues}, "topic", `"nope" does not exist`},
		{"no such queue", Request{Group: "g", Topic: "t", Mode: ModeLatest, BrokerName: "broker-a", QueueID: 9}, "queueId", "queues 0 to 3"},
		{"offset beyond max", Request{Group: "g", Topic: "t", Mode: ModeOffset, BrokerName: "broker-a", QueueID: 1, Offset: 11}, "offset", "past the end"},
		{"shift overflow", Request{Group: "g", Topic: "t", Mode: ModeShift, Shift: 1<<63 - 1, QueueID: AllQueues}, "shift", "overflows"},
		{"topic the group does not consume", Request{Group: "g", Topic: "other", Mode: ModeLatest, QueueID: AllQueues}, "topic", `does not consume topic "other"`},
		{"broker without a queue", Request{Group: "g", Topic: "t", Mode: ModeLatest, BrokerName: "nonsense", QueueID: AllQueues}, "queueId", "give the queue id too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.entries(t))
			_, err := e.svc.Plan(context.Background(), tc.req)
			if !strings.Contains(inputOn(err, tc.field), tc.says) {
				t.Fatalf("err %v, want %q on %s", err, tc.says, tc.field)
			}
			if es := e.entries(t); len(es) != before {
				t.Fatalf("a refused preview wrote %d audit entries: %+v", len(es)-before, es)
			}
		})
	}
	if e.fake.Writes() != 0 {
		t.Fatalf("refused requests changed offsets: %d write calls", e.fake.Writes())
	}
	if rep, err := e.st.Audit().Verify(context.Background()); err != nil || !rep.Intact || rep.Sealed != 0 {
		t.Fatalf("chain after refused previews: %+v, %v", rep, err)
	}
}

// A 5.x broker resets each queue itself; the audit entry is written before, and finished
// with every queue's before, target and after.
func TestApplyServerSideResetIsAuditedFirstAndVerified(t *testing.T) {
	e := newEnv(t)
	e.fake.OnWrite = func(method string) {
		pending, err := e.st.Audit().Pending(context.Background())
		if err != nil || len(pending) != 1 || pending[0].Group != "g" || len(pending[0].Plan.Queues) != 4 {
			t.Errorf("%s called without the pending audit entry holding the whole plan: %+v, %v", method, pending, err)
		}
	}
	p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues, Reason: "replay"})
	if !strings.Contains(p.Action().String(), "Reset 4 queues of topic t of group g to the earliest offset") {
		t.Errorf("action %q", p.Action())
	}
	entry := e.apply(t, p)
	if entry.Status != store.AuditApplied || len(entry.Error) > 0 || entry.Reason != "replay" || entry.Actor != "alice" {
		t.Fatalf("entry %+v", entry)
	}
	if len(entry.Result) != 4 {
		t.Fatalf("result has %d queues", len(entry.Result))
	}
	for _, q := range entry.Result {
		if q.Before != 6 || q.Target != 0 || q.After == nil || *q.After != 0 || q.Method != string(MethodResetQueue) {
			t.Errorf("queue %+v", q)
		}
		if got := e.fake.Offset("g", mq(q.Topic, q.BrokerName, q.QueueID)); got != 0 {
			t.Errorf("broker has %d for queue %d", got, q.QueueID)
		}
	}
	if e.fake.Calls()["ResetOffset"] != 4 || e.fake.Calls()["UpdateConsumerOffset"] != 0 {
		t.Errorf("calls %v", e.fake.Calls())
	}
	// Applying a plan whose queues are already at their targets sends nothing.
	again := e.apply(t, e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues}))
	if again.Status != store.AuditApplied || e.fake.Calls()["ResetOffset"] != 4 || !strings.Contains(again.Result[0].Note.String(), "nothing was sent") {
		t.Errorf("a no-op reset: %s, calls %v, note %q", again.Status, e.fake.Calls(), again.Result[0].Note)
	}
	// The preview cannot be applied twice.
	_, err := e.svc.Apply(context.Background(), Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	var ce *Rejected
	if !errors.As(err, &ce) || ce.Fresh == nil {
		t.Fatalf("second apply of one preview: %v, want a conflict with a fresh preview", err)
	}
}

// When the pending entry cannot be written, no broker is asked anything.
func TestApplyWithUnwritableAuditMakesNoBrokerCall(t *testing.T) {
	e := newEnv(t)
	p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeLatest, QueueID: AllQueues})
	ro, err := store.OpenReadOnly(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	svc := e.svc
	svc.audit = ro.Audit()
	before := e.fake.TotalCalls()
	_, err = svc.Apply(context.Background(), Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	if fe := fault.As(err); fe == nil || fe.APICode() != "audit_unavailable" || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("apply with a read-only audit log: %v", err)
	}
	if n := e.fake.TotalCalls() - before; n != 0 {
		t.Fatalf("%d broker calls after the audit write failed, want none", n)
	}
	if got := e.fake.Offset("g", mq("t", "broker-a", 0)); got != 6 {
		t.Fatalf("offset changed to %d", got)
	}
}

// Old brokers: offline groups get their offsets written; online groups are reset by
// timestamp through the clients, falling back when the clients left meanwhile; per-queue
// resets of an online group are refused with what to do.
func TestOldBrokerPaths(t *testing.T) {
	old := func(e *env) {
		e.fake.SetVersion("broker-a", v4())
	}
	t.Run("offline writes offsets", func(t *testing.T) {
		e := newEnv(t, old)
		p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeShift, Shift: -2, QueueID: AllQueues})
		if p.Brokers[0].Method != MethodUpdateOffset || p.Online {
			t.Fatalf("method %s online %v", p.Brokers[0].Method, p.Online)
		}
		entry := e.apply(t, p)
		if entry.Status != store.AuditApplied || e.fake.Calls()["UpdateConsumerOffset"] != 4 || e.fake.Calls()["ResetOffset"] != 0 {
			t.Fatalf("status %s calls %v", entry.Status, e.fake.Calls())
		}
		if got := e.fake.Offset("g", mq("t", "broker-a", 3)); got != 4 {
			t.Fatalf("offset %d, want 4", got)
		}
	})
	t.Run("online by timestamp", func(t *testing.T) {
		e := newEnv(t, old, func(e *env) { e.fake.SetClients("g", clustertest.Client{ID: "10.0.0.5@1"}) })
		p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeTimestamp, Timestamp: e.base.Add(2 * time.Second), QueueID: AllQueues})
		if p.Brokers[0].Method != MethodResetTimestamp || !p.Online {
			t.Fatalf("method %s online %v", p.Brokers[0].Method, p.Online)
		}
		entry := e.apply(t, p)
		if entry.Status != store.AuditApplied || e.fake.Calls()["ResetOffset"] != 1 {
			t.Fatalf("status %s (%s) calls %v", entry.Status, entry.Error, e.fake.Calls())
		}
		if got := e.fake.Offset("g", mq("t", "broker-a", 2)); got != 2 {
			t.Fatalf("offset %d, want 2", got)
		}
	})
	t.Run("time between messages", func(t *testing.T) {
		// 4.x answers the closest message (2, stored 0.4 s before the time); offline the
		// plan corrects that to the first message at or after the time (3), online it
		// says the broker will pick the closest.
		at := func(e *env) time.Time { return e.base.Add(2400 * time.Millisecond) }
		e := newEnv(t, old)
		p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeTimestamp, Timestamp: at(e), QueueID: AllQueues})
		if p.Queues[0].Target != 3 || len(p.Queues[0].Note) > 0 {
			t.Errorf("offline: target %d note %q, want 3", p.Queues[0].Target, p.Queues[0].Note)
		}
		e = newEnv(t, old, func(e *env) { e.fake.SetClients("g", clustertest.Client{ID: "10.0.0.5@1"}) })
		p = e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeTimestamp, Timestamp: at(e), QueueID: AllQueues})
		if p.Queues[0].Target != 2 || !strings.Contains(p.Queues[0].Note.String(), "closest") {
			t.Errorf("online: target %d note %q, want 2 with a note", p.Queues[0].Target, p.Queues[0].Note)
		}
		if entry := e.apply(t, p); entry.Status != store.AuditApplied {
			t.Errorf("online: %s %s", entry.Status, entry.Error)
		}
	})
	t.Run("online but clients left", func(t *testing.T) {
		e := newEnv(t, old, func(e *env) { e.fake.SetClients("g", clustertest.Client{ID: "10.0.0.5@1"}) })
		p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeLatest, QueueID: AllQueues})
		e.fake.FailOn("ResetOffset", "127.0.0.1:1", notOnline("127.0.0.1:1"))
		entry := e.apply(t, p)
		if entry.Status != store.AuditApplied || e.fake.Calls()["UpdateConsumerOffset"] != 4 {
			t.Fatalf("status %s (%s) calls %v", entry.Status, entry.Error, e.fake.Calls())
		}
		if !strings.Contains(entry.Result[0].Note.String(), "CONSUMER_NOT_ONLINE") || entry.Result[0].Method != string(MethodUpdateOffset) {
			t.Errorf("queue %+v does not say it fell back", entry.Result[0])
		}
	})
	t.Run("online per queue refused", func(t *testing.T) {
		e := newEnv(t, old, func(e *env) { e.fake.SetClients("g", clustertest.Client{ID: "10.0.0.5@1"}) })
		_, err := e.svc.Plan(context.Background(), Request{Group: "g", Topic: "t", Mode: ModeOffset, BrokerName: "broker-a", QueueID: 1, Offset: 3})
		if !strings.Contains(inputOn(err, "mode"), "Stop the group's clients") {
			t.Fatalf("err %v", err)
		}
	})
}

// A client that writes its old offset back right after the reset is caught by the
// verification; a client that consumed since is not blamed.
func TestVerifyCatchesAnOldOffsetWrittenBack(t *testing.T) {
	e := newEnv(t, func(e *env) { e.fake.SetClients("g", clustertest.Client{ID: "10.0.0.5@1"}) })
	reverted := mq("t", "broker-a", 1)
	consumed := mq("t", "broker-a", 2)
	e.fake.AfterReset = func(q rocketmq.MessageQueue, old int64) {
		switch q {
		case reverted:
			e.fake.SetOffset("g", q, old)
		case consumed:
			e.fake.SetOffset("g", q, 5) // consumed 3 of the re-delivered messages
		}
	}
	entry := e.apply(t, e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeShift, Shift: -4, QueueID: AllQueues}))
	if entry.Status != store.AuditPartial {
		t.Fatalf("status %s, want partial", entry.Status)
	}
	for _, q := range entry.Result {
		switch q.QueueID {
		case 1:
			if !strings.Contains(q.Error.String(), "back at 6") || *q.After != 6 {
				t.Errorf("reverted queue %+v", q)
			}
		case 2:
			if len(q.Error) > 0 || !strings.Contains(q.Note.String(), "consumed 3") {
				t.Errorf("consuming queue %+v", q)
			}
		default:
			if len(q.Error) > 0 || *q.After != 2 {
				t.Errorf("queue %+v", q)
			}
		}
	}
	if !strings.Contains(entry.Error.String(), "1 of 4 queues did not reach their target") {
		t.Errorf("entry error %q", entry.Error)
	}
}

// A preview applied after offsets moved in a way consumption does not explain is not
// applied: the entry is refused with the offsets found and a fresh preview comes back.
func TestApplyRefusesStalePreview(t *testing.T) {
	q0 := mq("t", "broker-a", 0)
	for _, tc := range []struct {
		name   string
		online bool
		move   int64
		stale  bool
	}{
		{"moved back while online", true, 3, true},
		{"moved forward while offline", false, 8, true},
		{"consumed while online", true, 8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(e *env) {
				if tc.online {
					e.fake.SetClients("g", clustertest.Client{ID: "10.0.0.5@1"})
				}
			})
			p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
			e.fake.SetOffset("g", q0, tc.move)
			entry, err := e.svc.Apply(context.Background(), Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
			if !tc.stale {
				if err != nil || entry.Status != store.AuditApplied || entry.Result[0].Before != tc.move {
					t.Fatalf("apply: %+v, %v", entry, err)
				}
				return
			}
			var ce *Rejected
			if !errors.As(err, &ce) || ce.Fresh == nil || !fault.Is(err, fault.Conflict) {
				t.Fatalf("apply: %v, want a conflict with a fresh preview", err)
			}
			if ce.Fresh.Queues[0].Current != tc.move {
				t.Errorf("fresh preview shows %d, want %d", ce.Fresh.Queues[0].Current, tc.move)
			}
			if e.fake.Writes() != 0 {
				t.Fatalf("a stale preview changed offsets")
			}
			got, err := e.st.Audit().Get(context.Background(), ce.EntryID)
			if err != nil || got.Status != store.AuditRefused || !strings.Contains(got.Error.String(), "moved") {
				t.Fatalf("entry %+v, %v", got, err)
			}
			// The fresh preview applies.
			if entry := e.apply(t, ce.Fresh); entry.Status != store.AuditApplied {
				t.Fatalf("fresh preview: %s %s", entry.Status, entry.Error)
			}
		})
	}
}

// Two resets of one group at once: the second is refused while the first runs.
func TestConcurrentResetsOfOneGroupOneRefused(t *testing.T) {
	e := newEnv(t)
	e.fake.Block = make(chan struct{})
	e.fake.Entered = make(chan struct{}, 1)
	first := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	second := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeLatest, QueueID: AllQueues})
	var wg sync.WaitGroup
	var firstEntry *store.AuditEntry
	var firstErr error
	wg.Go(func() {
		firstEntry, firstErr = e.svc.Apply(context.Background(), Confirmation{PlanID: first.ID, Request: first.Request, Confirmed: true, Who: alice})
	})
	select {
	case <-e.fake.Entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first reset never reached the broker")
	}
	bob := Who{Actor: "bob", Addr: "10.0.0.8"}
	_, err := e.svc.Apply(context.Background(), Confirmation{PlanID: second.ID, Request: second.Request, Confirmed: true, Who: bob})
	close(e.fake.Block)
	wg.Wait()
	var ce *Rejected
	if !errors.As(err, &ce) || !strings.Contains(fault.As(err).Msg.String(), "Another reset of group g is in progress") || !strings.Contains(err.Error(), "alice") {
		t.Fatalf("second reset: %v", err)
	}
	if firstErr != nil || firstEntry.Status != store.AuditApplied {
		t.Fatalf("first reset: %+v, %v", firstEntry, firstErr)
	}
	refused, err := e.st.Audit().Get(context.Background(), ce.EntryID)
	if err != nil || refused.Actor != "bob" || refused.Status != store.AuditRefused {
		t.Fatalf("refusal entry %+v, %v", refused, err)
	}
	if got := e.fake.Offset("g", mq("t", "broker-a", 0)); got != 0 {
		t.Fatalf("offset %d: the refused reset to latest ran", got)
	}
}

// Applying needs a confirmation and a preview; a missing one is a form mistake, not an
// audit event.
func TestApplyNeedsConfirmation(t *testing.T) {
	e := newEnv(t)
	p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	_, err := e.svc.Apply(context.Background(), Confirmation{PlanID: p.ID, Request: p.Request, Who: alice})
	if inputOn(err, "confirm") == "" {
		t.Fatalf("unconfirmed: %v", err)
	}
	_, err = e.svc.Apply(context.Background(), Confirmation{Request: p.Request, Confirmed: true, Who: alice})
	if inputOn(err, "planId") == "" {
		t.Fatalf("no preview: %v", err)
	}
	if e.fake.Writes() != 0 {
		t.Fatal("an unconfirmed reset changed offsets")
	}
	if es := e.entries(t); len(es) != 0 {
		t.Fatalf("form mistakes were audited: %+v", es)
	}
	// The preview was not used up by the refused attempts.
	if entry := e.apply(t, p); entry.Status != store.AuditApplied {
		t.Fatalf("%s %s", entry.Status, entry.Error)
	}
}

// A broker that fails yields a partial preview naming it, and a partial reset.
func TestFailingBrokerGivesPartialResults(t *testing.T) {
	e := newEnv(t, func(e *env) {
		e.fake.AddBroker("broker-b", "127.0.0.1:2")
		e.addTopic("t", "broker-b", 2, 10, 6)
	})
	e.fake.FailOn("TopicStats", "127.0.0.1:2", errors.New("connection refused"))
	p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	if len(p.Queues) != 4 || len(p.Failures) != 1 || len(p.Refused) != 1 ||
		!strings.Contains(i18n.TextOf(p.Warnings...).String(), "Broker broker-b's master 127.0.0.1:2 could not be read (connection refused). Offsets are reset only on a master, so its 2 queues of topic t (0, 1) are refused") {
		t.Fatalf("queues %d failures %v warnings %q", len(p.Queues), p.Failures, p.Warnings)
	}
	e.fake.FailOn("TopicStats", "127.0.0.1:2", nil)

	p = e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	if len(p.Queues) != 6 {
		t.Fatalf("%d queues", len(p.Queues))
	}
	e.fake.FailOn("ResetOffset", "127.0.0.1:2", errors.New("127.0.0.1:2 answered SYSTEM_ERROR (1): disk full"))
	entry := e.apply(t, p)
	if entry.Status != store.AuditPartial || !strings.Contains(entry.Error.String(), "2 of 6 queues") || !strings.Contains(entry.Error.String(), "disk full") {
		t.Fatalf("entry %s: %s", entry.Status, entry.Error)
	}
}

// An entry left pending by a crash is marked interrupted at the next start, with the
// offsets found then.
func TestRecoverMarksPendingAsInterrupted(t *testing.T) {
	e := newEnv(t)
	p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	crashed := &store.AuditEntry{StartedAt: time.Now(), Actor: "alice", Cluster: "ns:9876", Group: "g", Topics: p.Topics,
		Mode: "earliest", Plan: p.auditPlan(), Status: store.AuditPending}
	if err := e.st.Audit().Begin(context.Background(), crashed); err != nil {
		t.Fatal(err)
	}
	e.fake.SetOffset("g", mq("t", "broker-a", 0), 0) // the broker got this one before the crash
	e.restart(t)
	n, err := e.svc.RecoverInterrupted(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("recover: %d, %v", n, err)
	}
	got, err := e.st.Audit().Get(context.Background(), crashed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.AuditInterrupted || !strings.Contains(got.Error.String(), "stopped before this reset finished") || len(got.Result) != 4 {
		t.Fatalf("entry %+v", got)
	}
	for _, q := range got.Result {
		want := int64(6)
		if q.QueueID == 0 {
			want = 0
		}
		if q.After == nil || *q.After != want || q.Target != 0 || q.Before != 6 {
			t.Errorf("queue %+v, want after %d", q, want)
		}
	}
	if rep, err := e.st.Audit().Verify(context.Background()); err != nil || !rep.Intact || rep.Pending != 0 {
		t.Fatalf("chain: %+v, %v", rep, err)
	}
}

// A topic change left pending is marked interrupted too, told as a change, with nothing
// read back: it has no offsets.
func TestRecoverMarksAnInterruptedChange(t *testing.T) {
	e := newEnv(t)
	crashed := &store.AuditEntry{StartedAt: time.Now(), Actor: "alice", Cluster: "ns:9876", Topics: []string{"t"},
		Mode: "topic-delete", Status: store.AuditPending}
	if err := e.st.Audit().Begin(context.Background(), crashed); err != nil {
		t.Fatal(err)
	}
	e.restart(t)
	if n, err := e.svc.RecoverInterrupted(context.Background()); err != nil || n != 1 {
		t.Fatalf("recover: %d, %v", n, err)
	}
	got, err := e.st.Audit().Get(context.Background(), crashed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.AuditInterrupted || !strings.Contains(got.Error.String(), "before this change (topic-delete) finished") || len(got.Result) != 0 {
		t.Fatalf("entry %s: %q, %d rows", got.Status, got.Error, len(got.Result))
	}
}

func TestJudge(t *testing.T) {
	at := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name    string
		q       store.AuditQueue
		online  bool
		max     int64
		ok      bool
		message string
	}{
		{"at target", store.AuditQueue{Before: 10, Target: 2, After: at(2)}, false, 10, true, ""},
		{"reverted", store.AuditQueue{Before: 10, Target: 2, After: at(10)}, true, 10, false, "back at 10"},
		{"consumed online", store.AuditQueue{Before: 10, Target: 2, After: at(7)}, true, 10, true, "consumed 5"},
		{"moved offline", store.AuditQueue{Before: 10, Target: 2, After: at(7)}, false, 10, false, "is 7, not the target 2"},
		{"past the end", store.AuditQueue{Before: 1, Target: 2, After: at(12)}, true, 10, false, "is 12"},
		{"skipped back", store.AuditQueue{Before: 1, Target: 8, After: at(1)}, true, 10, false, "back at 1"},
		{"unread", store.AuditQueue{Before: 1, Target: 8}, true, 10, false, "could not be read"},
	} {
		ok, note, problem := judge(tc.q, tc.online, tc.max)
		if ok != tc.ok || !strings.Contains(note.String()+problem.String(), tc.message) {
			t.Errorf("%s: ok %v note %q problem %q", tc.name, ok, note, problem)
		}
	}
}

// A master that does not answer, with a slave that does: its queues are refused with a
// sentence naming the slave they are not sent to, the others are reset, and the audit
// entry keeps the refusal.
func TestAFrozenMastersQueuesAreRefusedNotSentToItsSlave(t *testing.T) {
	e := newEnv(t, func(e *env) {
		e.fake.AddBroker("broker-b", "127.0.0.1:2")
		e.fake.AddSlave("broker-b", "127.0.0.1:12")
		e.addTopic("t", "broker-b", 2, 10, 6)
	})
	e.fake.Silent("broker-b")
	e.fake.CallTimeout = 50 * time.Millisecond
	for _, op := range []string{"ResetOffset", "UpdateConsumerOffset"} {
		e.fake.FailOn(op, "127.0.0.1:12", errors.New("written on a slave"))
	}
	p := e.plan(t, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	want := "Broker broker-b's master 127.0.0.1:2 did not answer"
	refused := "Offsets are reset only on a master, never on its slave 127.0.0.1:12, so its 2 queues of topic t (0, 1) are refused"
	if w := i18n.TextOf(p.Warnings...).String(); len(p.Queues) != 4 || len(p.Refused) != 1 || !strings.Contains(w, want) || !strings.Contains(w, refused) {
		t.Fatalf("queues %d refused %+v warnings %q", len(p.Queues), p.Refused, p.Warnings)
	}
	entry := e.apply(t, p)
	if entry.Status != store.AuditApplied || len(entry.Result) != 4 || !strings.Contains(said(entry.Plan.Warnings), refused) {
		t.Errorf("entry %s, %d queues, warnings %q", entry.Status, len(entry.Result), entry.Plan.Warnings)
	}
	for _, r := range entry.Result {
		if r.BrokerName != "broker-a" || len(r.Error) > 0 {
			t.Errorf("row %+v", r)
		}
	}
}
