package deadletters

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// The properties of a real 5.3.3 dead letter (TestIntegrationResendDeadLetters logs them).
func deadLetter() *rocketmq.Message {
	return &rocketmq.Message{Topic: "%DLQ%billing", ReconsumeTimes: 2, Flag: 3, Body: []byte(`{"order":1}`), Properties: map[string]string{
		"CLUSTER": "DefaultCluster", "DELAY": "0", "KEYS": "order-1", "MSG_REGION": "DefaultRegion",
		"ORIGIN_MESSAGE_ID": "7F000001000051AF0000000000001406", "REAL_QID": "0", "REAL_TOPIC": "%RETRY%billing",
		"RETRY_TOPIC": "orders", "TAGS": "paid", "TRACE_ON": "true", "UNIQ_KEY": "313437352B450000000003d589700002",
		"WAIT": "false", "color": "blue", "TIMER_OUT_MS": "1", "INNER_MULTI_DISPATCH": "x",
	}}
}

// A dead letter tells its group, original topic (RETRY_TOPIC, not the REAL_TOPIC of its
// last retry) and original message; a retried message its group; other messages nothing.
func TestOriginOf(t *testing.T) {
	o, ok := OriginOf(deadLetter())
	if !ok || !o.DeadLetter || o.Group != "billing" || o.Topic != "orders" || o.MsgID != "7F000001000051AF0000000000001406" {
		t.Fatalf("dead letter: %+v %v", o, ok)
	}
	retry := &rocketmq.Message{Topic: "%RETRY%billing", Properties: map[string]string{"REAL_TOPIC": "%RETRY%billing", "DLQ_ORIGIN_TOPIC": "orders"}}
	if o, ok := OriginOf(retry); !ok || o.DeadLetter || o.Group != "billing" || o.Topic != "orders" {
		t.Fatalf("retry: %+v %v", o, ok)
	}
	if _, ok := OriginOf(&rocketmq.Message{Topic: "orders"}); ok {
		t.Fatal("a message of a normal topic has an origin")
	}
}

// A resent message keeps the body, flag, keys, tags and user properties, drops the
// broker's retry bookkeeping and the properties it sets on every store, and gets a new
// unique key.
func TestResendableKeepsWhatTheUserSet(t *testing.T) {
	m := deadLetter()
	out := Resendable(m, "orders")
	p := out.Properties
	if out.Topic != "orders" || string(out.Body) != `{"order":1}` || out.Flag != 3 {
		t.Fatalf("resendable %+v", out)
	}
	if p["KEYS"] != "order-1" || p["TAGS"] != "paid" || p["color"] != "blue" {
		t.Fatalf("kept %v, want KEYS, TAGS and color", p)
	}
	for _, k := range []string{"RETRY_TOPIC", "ORIGIN_MESSAGE_ID", "REAL_TOPIC", "REAL_QID", "DELAY", "WAIT", "CLUSTER", "MSG_REGION", "TRACE_ON", "TIMER_OUT_MS", "INNER_MULTI_DISPATCH"} {
		if _, ok := p[k]; ok {
			t.Errorf("kept %s", k)
		}
	}
	if len(p) != 4 || p["UNIQ_KEY"] == "" || p["UNIQ_KEY"] == m.Properties["UNIQ_KEY"] {
		t.Fatalf("properties %v, want the three kept and a new UNIQ_KEY", p)
	}
}

type fakeFinder map[string]*rocketmq.Message

func (f fakeFinder) ByID(_ context.Context, q lookup.IDQuery) (*lookup.IDResult, error) {
	m, ok := f[q.ID]
	if !ok {
		return nil, fault.New(fault.NotFound, "lookup.notfound.uniq", "Topic", q.Topic, "ID", q.ID)
	}
	return &lookup.IDResult{Message: lookup.Message{BrokerName: "broker-a", Message: m}}, nil
}

type countingAudit struct{ n int }

func (a *countingAudit) Change(ctx context.Context, e *store.AuditEntry, apply func(context.Context) ([]store.AuditQueue, error)) error {
	a.n++
	_, err := apply(ctx)
	return err
}

// Refused before anything is sent or audited: no id, more than MaxResend, a message that
// is not a dead letter, dead letters of two groups.
func TestResendRefusesBeforeSending(t *testing.T) {
	const dlq1, dlq2, plain = "7F000001000051AF0000000000000001", "7F000001000051AF0000000000000002", "7F000001000051AF0000000000000003"
	other := deadLetter()
	other.Topic = "%DLQ%shipping"
	f := fakeFinder{dlq1: deadLetter(), dlq2: other, plain: {Topic: "orders"}}
	audit := &countingAudit{}
	s := New(Config{Finder: f, Audit: audit, Admin: nil})
	many := make([]string, MaxResend+1)
	for i := range many {
		many[i] = strings.Repeat("0", 31) + string(rune('a'+i%26)) + strings.Repeat("1", i/26)
	}
	for _, c := range []struct {
		req  ResendRequest
		code string
	}{
		{ResendRequest{}, "no_messages"},
		{ResendRequest{IDs: []string{" ", ""}}, "no_messages"},
		{ResendRequest{IDs: many}, "too_many"},
		{ResendRequest{IDs: []string{plain}}, "not_dead_letter"},
		{ResendRequest{IDs: []string{dlq1, plain}}, "not_dead_letter"},
		{ResendRequest{IDs: []string{dlq1, dlq2}}, "several_groups"},
		{ResendRequest{IDs: []string{"k"}, Topic: "orders"}, "not_dead_letter"},
		{ResendRequest{IDs: []string{dlq1}, Reason: "replay\x00"}, "bad_reason"},
		{ResendRequest{IDs: []string{dlq1}, Reason: "\u202eyalper"}, "bad_reason"},
		{ResendRequest{IDs: []string{dlq1}, Reason: "two\r\nlines"}, "bad_reason"},
		{ResendRequest{IDs: []string{dlq1}, Reason: strings.Repeat("x", 60000)}, "bad_reason"},
		{ResendRequest{IDs: []string{dlq1}, Reason: "a\xff\xfe"}, "bad_reason"},
	} {
		_, err := s.Resend(t.Context(), c.req)
		ie := fault.As(err)
		if ie == nil || ie.Code != fault.Invalid || ie.Reason != c.code || !strings.Contains(ie.Error(), "Nothing was sent") {
			t.Errorf("resend %d ids: %v, want %s saying nothing was sent", len(c.req.IDs), err, c.code)
		}
	}
	if audit.n != 0 {
		t.Fatalf("%d audit entries for refused resends", audit.n)
	}
}

// A resend whose audit entry the database cannot take sends nothing and says that the
// database is unavailable (answered 503, not as the console's own failure): a SQLite
// file that takes no write, a PostgreSQL server stopped.
func TestResendOnAnUnavailableAuditLogSendsNothing(t *testing.T) {
	const dlq = "7F000001000051AF0000000000000001"
	for name, open := range map[string]func(t *testing.T) *store.Store{
		"sqlite": func(t *testing.T) *store.Store {
			path := filepath.Join(t.TempDir(), "console.db")
			st, err := store.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			if st, err = store.OpenReadOnly(t.Context(), path); err != nil {
				t.Fatal(err)
			}
			return st
		},
		"postgres": func(t *testing.T) *store.Store {
			pg := dev.OwnPostgres(t)
			st, err := store.Open(t.Context(), pg.URL("postgres"))
			if err != nil {
				t.Fatal(err)
			}
			if err := pg.Halt(); err != nil {
				t.Fatal(err)
			}
			return st
		},
	} {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			t.Cleanup(func() { st.Close() })
			s := New(Config{Finder: fakeFinder{dlq: deadLetter()}, Audit: st.Audit(), Admin: nil}) // a send would panic
			_, err := s.Resend(t.Context(), ResendRequest{IDs: []string{dlq}, Reason: "replay", Actor: "otto"})
			if !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), "nothing was sent") {
				t.Fatalf("resend with the audit log unavailable: %v, want store.ErrUnavailable saying nothing was sent", err)
			}
		})
	}
}

// A resent message's audit row names both messages as a catalogue sentence: the entry
// reads in Chinese too, and in English as it always has.
func TestResendAuditNoteReadsInTheReadersLanguage(t *testing.T) {
	row := auditRow(Resent{Topic: "orders", DLQMsgID: "D1", DLQOffsetMsgID: "DO1", MsgID: "M2", OffsetMsgID: "MO2", QueueOffset: 42})
	stored, err := i18n.Encode(row.Note)
	if err != nil {
		t.Fatal(err)
	}
	note := i18n.Decode(stored)
	if en := "dead letter D1 (offsetMsgId DO1) resent as msgId M2 (offsetMsgId MO2) at queue offset 42"; note.String() != en {
		t.Errorf("in English: %q, want %q", note, en)
	}
	if zh := "死信消息 D1（offsetMsgId DO1）已重新发送为 msgId M2（offsetMsgId MO2），队列位点 42"; i18n.Match("zh-CN").SayText(note) != zh {
		t.Errorf("in Chinese: %q, want %q", i18n.Match("zh-CN").SayText(note), zh)
	}
}
