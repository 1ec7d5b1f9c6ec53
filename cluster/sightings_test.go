package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
)

// A broker the cluster info listed and no longer does (killed: the NameServer dropped it)
// is named gone, with when it was last seen and since when it is missing, until it
// registers again; a master gone while its slave stays is a gone process, not a gone
// broker; and a broker gone for longer than ForgetGone is forgotten.
func TestGoneBrokersAreNamedUntilTheyComeBack(t *testing.T) {
	f := twoBrokers()
	f.AddSlave("broker-a", "127.0.0.11:10911")
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	now := t0
	c := cluster.New(f, cluster.Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if g, p := c.Gone(), c.GoneProcesses(); len(g) != 0 || len(p) != 0 {
		t.Fatalf("gone before anything left: %v %v", g, p)
	}

	f.RemoveMaster("broker-a")
	f.RemoveBroker("broker-b")
	now = t0.Add(10 * time.Second)
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	gone := c.Gone()
	if len(gone) != 1 || gone[0].Name != "broker-b" || gone[0].Addr != "127.0.0.2:10911" || !gone[0].SeenAt.Equal(t0) || !gone[0].Since.Equal(now) {
		t.Fatalf("gone brokers: %+v, want broker-b alone (broker-a's slave is still listed)", gone)
	}
	procs := c.GoneProcesses()
	if len(procs) != 2 || procs[0].Broker != "broker-a" || procs[0].Role() != "master" || procs[1].Broker != "broker-b" {
		t.Fatalf("gone processes: %+v, want broker-a's master and broker-b", procs)
	}
	fl := c.Missing("consume stats")
	if len(fl) != 1 || !fl[0].Gone() || !errors.Is(fl[0], cluster.ErrBrokerGone) ||
		!strings.Contains(fl[0].Error(), "broker-b (127.0.0.2:10911): consume stats: was in the cluster at 2026-12-01 10:00:00 UTC and is missing from the NameServer's cluster info since 2026-12-01 10:00:10 UTC") {
		t.Errorf("failure: %v", fl)
	}
	zh := i18n.Match("zh-CN")
	if s := zh.Say(fl[0].Message()); !strings.Contains(s, "已不在 NameServer 的集群信息中") {
		t.Errorf("in Chinese: %s", s)
	}
	// Still gone a moment later: Since stays when it was first missed.
	now = t0.Add(time.Minute)
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if g := c.Gone(); len(g) != 1 || !g[0].Since.Equal(t0.Add(10*time.Second)) {
		t.Errorf("a minute later: %+v", g)
	}

	f.AddBroker("broker-b", "127.0.0.2:10911")
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if g := c.Gone(); len(g) != 0 {
		t.Errorf("broker-b registered again and is still named gone: %+v", g)
	}

	f.RemoveBroker("broker-b")
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	now = now.Add(cluster.DefaultForgetGone + time.Minute)
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if g := c.Gone(); len(g) != 0 {
		t.Errorf("broker-b still named a day after it left: %+v", g)
	}
}

// Each process's health follows the console's own calls: an answer (even an error code)
// is up, no answer is down and counted, an error of the console's own making (a call
// not made) says nothing; a process gone from the cluster info is not up.
func TestProcessHealthFollowsTheCalls(t *testing.T) {
	f := twoBrokers()
	f.Silent("broker-b")
	c := cluster.New(f, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	bs, err := c.Brokers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ps := c.Processes(); len(ps) != 2 || ps[0].Known || ps[1].Known {
		t.Fatalf("before any call: %+v", ps)
	}
	fo := c.Fanout(ctx)
	cluster.Each(fo, bs, "broker version", f.BrokerVersion)
	fo.Go(bs[0], "not made", func(context.Context, string) error { return errors.New("not asked") })
	fo.Wait()
	ps := c.Processes()
	a, b := ps[0], ps[1]
	if !a.Known || !a.Up || !a.Registered || a.LastAnswer.IsZero() || a.Unanswered != 0 {
		t.Errorf("broker-a answered: %+v", a)
	}
	if !b.Known || b.Up || !b.Registered || !b.LastAnswer.IsZero() || b.Unanswered != 1 {
		t.Errorf("broker-b did not answer: %+v", b)
	}

	f.RemoveBroker("broker-a")
	if err := c.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a := c.Processes()[0]; a.Broker != "broker-a" || a.Up || a.Registered || !a.Known || a.LastAnswer.IsZero() {
		t.Errorf("broker-a gone: %+v", a)
	}
}

// What a broker held is kept per broker, replaced at each answer, and forgotten after a day.
func TestHeldKeepsTheLastAnswerForADay(t *testing.T) {
	var h cluster.Held[[]string]
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if _, _, ok := h.Last("broker-a", t0); ok {
		t.Fatal("a broker that never answered has holdings")
	}
	h.Note("broker-a", []string{"G1"}, t0)
	h.Note("broker-a", []string{"G1", "G2"}, t0.Add(time.Minute))
	v, at, ok := h.Last("broker-a", t0.Add(time.Hour))
	if !ok || len(v) != 2 || !at.Equal(t0.Add(time.Minute)) {
		t.Errorf("last holdings: %v %v %v", v, at, ok)
	}
	if _, _, ok := h.Last("broker-a", t0.Add(cluster.DefaultForgetGone+2*time.Minute)); ok {
		t.Error("holdings older than a day still served")
	}
}

// A call the fan-out names by something other than a broker (a client's running info,
// relayed by its broker) says nothing of the broker's health.
func TestRelayedCallsSayNothingOfTheBroker(t *testing.T) {
	f := twoBrokers()
	c := cluster.New(f, cluster.Options{})
	ctx := context.Background()
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	fo := c.Fanout(ctx)
	fo.At("10.1.1.1@4242", "127.0.0.2:10911", "running info", func(context.Context, string) error { return nil })
	fo.Wait()
	if b := c.Processes()[1]; b.Broker != "broker-b" || b.Known || !b.LastAnswer.IsZero() {
		t.Errorf("broker-b after a client's relayed call: %+v", b)
	}
}
