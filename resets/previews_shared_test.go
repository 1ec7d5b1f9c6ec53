package resets

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// Consoles sharing a database behind a load balancer: a reset previewed on one is
// applied on another, once.
func TestPreviewOnOneConsoleAppliesOnAnother(t *testing.T) {
	e := newEnv(t) // the fake cluster
	dsn := dev.RequirePostgres(t).NewDatabase(t)
	ctx := context.Background()
	consoles := make([]*Service, 2)
	for i := range consoles {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		consoles[i] = New(Config{Admin: e.fake, Audit: st.Audit(), Previews: st, NameServers: "ns:9876",
			Settle: time.Millisecond, VerifyWait: 100 * time.Millisecond})
	}
	p, err := consoles[0].Plan(ctx, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := consoles[1].Preview(p.ID); !ok || got.Hash != p.Hash || len(got.Queues) != 4 || !got.At.Equal(p.At) {
		t.Fatalf("the other console's view of the preview: %+v, %v", got, ok)
	}
	entry, err := consoles[1].Apply(ctx, Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	if err != nil || entry.Status != store.AuditApplied {
		t.Fatalf("apply on the other console: %+v, %v", entry, err)
	}
	_, err = consoles[0].Apply(ctx, Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	var conflict *Rejected
	if !errors.As(err, &conflict) || !fault.Is(err, fault.Conflict) || !strings.Contains(fault.As(err).Msg.String(), "no longer known") {
		t.Fatalf("the same preview applied again: %v, want a conflict", err)
	}
}

// A reset of several groups previewed on one console is applied on another, once, as a
// reset of one group is: each group's plan and each refusal read back from the
// database, the refusal still a fault said in the reader's language.
func TestSeveralPreviewOnOneConsoleAppliesOnAnother(t *testing.T) {
	e := newEnv(t)
	dsn := dev.RequirePostgres(t).NewDatabase(t)
	ctx := context.Background()
	consoles := make([]*Service, 2)
	for i := range consoles {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		consoles[i] = New(Config{Admin: e.fake, Audit: st.Audit(), Previews: st, NameServers: "ns:9876",
			Settle: time.Millisecond, VerifyWait: 100 * time.Millisecond})
	}
	system := "CID_RMQ_SYS_TRANS"
	p, err := consoles[0].PlanSeveral(ctx, SeveralRequest{Topic: "t", Groups: []string{"g", system},
		Request: Request{Mode: ModeEarliest, QueueID: AllQueues, Reason: "replay"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Groups[0].Plan == nil || !fault.Is(p.Groups[1].Err, fault.Invalid) {
		t.Fatalf("previews %+v: want g planned and %s refused", p.Groups, system)
	}
	res, err := consoles[1].ApplySeveral(ctx, SeveralConfirmation{PlanID: p.ID, Confirmed: true, Who: alice})
	if err != nil {
		t.Fatalf("apply on the other console: %v", err)
	}
	if len(res.Groups) != 2 || res.Groups[0].Entry == nil || res.Groups[0].Entry.Status != store.AuditApplied ||
		!fault.Is(res.Groups[1].Err, fault.Invalid) || res.Summary.Status != store.AuditPartial {
		t.Fatalf("outcomes %+v, summary %+v", res.Groups, res.Summary)
	}
	if got, want := fault.As(res.Groups[1].Err).Msg.ID, fault.As(p.Groups[1].Err).Msg.ID; got != want {
		t.Errorf("the refusal read back says %q, want %q", got, want)
	}
	// The summary reads in its reader's language, the refused group's line too.
	if zh := i18n.Match("zh-CN").SayText(res.Summary.Error); !strings.Contains(zh, system+"：") || strings.Contains(zh, "Choose") {
		t.Errorf("the summary in Chinese: %s", zh)
	}
	_, err = consoles[0].ApplySeveral(ctx, SeveralConfirmation{PlanID: p.ID, Confirmed: true, Who: alice})
	if !fault.Is(err, fault.Conflict) || !strings.Contains(fault.As(err).Msg.String(), "no longer known") {
		t.Fatalf("the same preview applied again: %v, want a conflict", err)
	}
	// A preview of one group is not found by the id of one of several, nor the other way.
	if _, ok := consoles[1].Preview(p.ID); ok {
		t.Error("the preview of several groups was found as a preview of one")
	}
}

// With the shared database stopped, applying a preview kept there changes nothing and
// says the database is unavailable (503), rather than that the preview is unknown and
// here is a fresh one that could not be kept either; no broker is asked to reset.
func TestApplyWithTheSharedPreviewsStoppedChangesNothing(t *testing.T) {
	e := newEnv(t)
	pg := dev.OwnPostgres(t)
	ctx := context.Background()
	st, err := store.Open(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := New(Config{Admin: e.fake, Audit: st.Audit(), Previews: st, NameServers: "ns:9876",
		Settle: time.Millisecond, VerifyWait: 100 * time.Millisecond})
	p, err := svc.Plan(ctx, Request{Group: "g", Topic: "t", Mode: ModeEarliest, QueueID: AllQueues})
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Halt(); err != nil {
		t.Fatal(err)
	}
	before := e.fake.TotalCalls()
	_, err = svc.Apply(ctx, Confirmation{PlanID: p.ID, Request: p.Request, Confirmed: true, Who: alice})
	var conflict *Rejected
	if !errors.Is(err, store.ErrUnavailable) || errors.As(err, &conflict) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("apply with the database stopped: %v, want store.ErrUnavailable saying nothing was changed", err)
	}
	if n := e.fake.TotalCalls() - before; n != 0 {
		t.Fatalf("%d broker calls after the preview could not be read, want none", n)
	}
}

// A preview kept in the database reads back as it was made, broker failures included.
func TestPlanSurvivesTheDatabase(t *testing.T) {
	p := &Plan{ID: "x", Hash: "h", Request: Request{Group: "g", Mode: ModeTimestamp, Timestamp: time.UnixMilli(1_700_000_000_000).UTC(), QueueID: AllQueues},
		Failures: []BrokerFailure{{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "consume stats", Err: errors.New("i/o timeout")}},
		Refused:  []RefusedBroker{{Broker: "broker-c"}},
		At:       time.UnixMilli(1_700_000_001_000).UTC()}
	b, err := encodePlan(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodePlan(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Failures[0].Reason() != "consume stats: i/o timeout" || got.Refused[0].Err != nil ||
		!got.Request.Timestamp.Equal(p.Request.Timestamp) || !got.At.Equal(p.At) || got.Request.Mode != ModeTimestamp {
		t.Fatalf("read back as %+v", got)
	}
	if p.Failures[0].Err == nil {
		t.Fatal("encoding changed the plan it encoded")
	}
}
