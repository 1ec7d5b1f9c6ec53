package cluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

func twoBrokers() *clustertest.Fake {
	f := clustertest.New()
	f.AddBroker("broker-a", "127.0.0.1:10911")
	f.AddBroker("broker-b", "127.0.0.2:10911")
	f.AddTopic("T", 4, "broker-a", "broker-b")
	return f
}

func TestBrokersListMastersAndSlavesFromOneCachedRead(t *testing.T) {
	f := twoBrokers()
	f.AddSlave("broker-a", "127.0.0.11:10911")
	c := cluster.New(f, cluster.Options{})
	ctx := context.Background()
	for range 3 {
		bs, err := c.Brokers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) != 2 || bs[0].Name != "broker-a" || bs[0].Master != "127.0.0.1:10911" ||
			len(bs[0].Slaves) != 1 || bs[0].Slaves[0] != "127.0.0.11:10911" || len(bs[1].Slaves) != 0 {
			t.Fatalf("brokers: %+v", bs)
		}
	}
	if n := f.Calls()["ClusterInfo"]; n != 1 {
		t.Errorf("ClusterInfo asked %d times within the TTL, want 1", n)
	}
	b, ok, err := c.BrokerAt(ctx, "127.0.0.11:10911")
	if err != nil || !ok || b.Name != "broker-a" {
		t.Errorf("BrokerAt(slave) = %+v %v %v", b, ok, err)
	}
	if _, ok, _ := c.BrokerAt(ctx, "10.9.9.9:10911"); ok {
		t.Error("an address outside the cluster was taken for a broker")
	}
}

// A broker that served the topic a moment ago and is missing from its route now (killed:
// the NameServer dropped it) is named, so an answer without its queues says so.
func TestRouteNamesABrokerThatLeftIt(t *testing.T) {
	f := twoBrokers()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c := cluster.New(f, cluster.Options{Remember: time.Minute, Now: func() time.Time { return now }})
	ctx := context.Background()
	r, err := c.Route(ctx, "T")
	if err != nil || len(r.Brokers) != 2 || len(r.Gone) != 0 || len(r.ReadQueues()) != 8 {
		t.Fatalf("route: %+v %v", r, err)
	}
	f.RemoveBroker("broker-b")
	now = now.Add(10 * time.Second)
	r, err = c.Route(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Brokers) != 1 || len(r.Gone) != 1 || r.Gone[0].Name != "broker-b" || r.Gone[0].Addr != "127.0.0.2:10911" {
		t.Fatalf("route after broker-b left: brokers %+v gone %+v", r.Brokers, r.Gone)
	}
	fl := r.Gone[0].Failure("T", "range query")
	if !fl.Gone() || !strings.Contains(fl.Error(), "broker-b (127.0.0.2:10911) for topic T") || !strings.Contains(fl.Error(), "no longer in its route") {
		t.Errorf("failure: %s", fl)
	}
	now = now.Add(2 * time.Minute)
	if r, _ = c.Route(ctx, "T"); len(r.Gone) != 0 {
		t.Errorf("broker-b still reported gone after Remember: %+v", r.Gone)
	}
	if _, err := c.Route(ctx, "NOPE"); !errors.Is(err, cluster.ErrTopicNotFound) {
		t.Errorf("unknown topic: %v", err)
	}
}

// The fan-out asks every broker at once: a silent broker costs one deadline, is named
// with its address, operation and how long it was waited for, and the others answer.
func TestFanoutNamesASilentBrokerAndKeepsTheOthers(t *testing.T) {
	f := twoBrokers()
	f.Silent("broker-b")
	c := cluster.New(f, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	bs, _ := c.Brokers(ctx)
	fo := c.Fanout(ctx)
	versions := cluster.Each(fo, bs, "broker version", f.BrokerVersion)
	fails := fo.Wait()
	if versions[0].Ordinal == 0 {
		t.Errorf("broker-a's answer lost: %+v", versions)
	}
	if len(fails) != 1 {
		t.Fatalf("failures: %v", fails)
	}
	fl := fails[0]
	if fl.Broker != "broker-b" || fl.Addr != "127.0.0.2:10911" || fl.Op != "broker version" || fl.Elapsed < 150*time.Millisecond || !fo.Failed("broker-b") || fo.Failed("broker-a") {
		t.Errorf("failure: %+v", fl)
	}
	var te *rocketmq.TimeoutError
	if !errors.As(fl, &te) {
		t.Errorf("failure does not unwrap to the timeout: %v", fl.Err)
	}
}

func TestFanoutBoundsCallsInFlight(t *testing.T) {
	f := clustertest.New()
	var bs []cluster.Broker
	for i := range 10 {
		bs = append(bs, cluster.Broker{Name: string(rune('a' + i)), Master: "x"})
	}
	c := cluster.New(f, cluster.Options{Parallelism: 3})
	var in, peak atomic.Int32
	fo := c.Fanout(context.Background())
	cluster.Each(fo, bs, "op", func(context.Context, string) (int, error) {
		n := in.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		in.Add(-1)
		return 1, nil
	})
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak calls in flight %d, want at most 3 (and some parallelism)", p)
	}
}

// A read goes to the master first and to a slave when the master does not answer; the
// next read starts with the slave for a while instead of waiting for the master again.
func TestReadFallsBackToASlaveWhenTheMasterDoesNotAnswer(t *testing.T) {
	f := twoBrokers()
	f.AddSlave("broker-b", "127.0.0.12:10911")
	f.Silent("broker-b")
	c := cluster.New(f, cluster.Options{})
	r, _ := c.Route(context.Background(), "T")
	b, _ := r.Broker("broker-b")
	for round := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		var asked []string
		fo := c.Fanout(ctx)
		fo.Read(b, "pull", func(ctx context.Context, addr string) error {
			asked = append(asked, addr)
			cctx, ccancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer ccancel()
			_, err := f.BrokerVersion(cctx, addr)
			return err
		})
		fails := fo.Wait()
		cancel()
		if len(fails) != 0 {
			t.Fatalf("round %d: read failed although the slave answers: %v", round, fails)
		}
		want := []string{"127.0.0.2:10911", "127.0.0.12:10911"}
		if round == 1 {
			want = want[1:]
		}
		if strings.Join(asked, " ") != strings.Join(want, " ") {
			t.Errorf("round %d asked %v, want %v", round, asked, want)
		}
		// The answer says it came from the slave, and why.
		sr := fo.FromSlaves()
		if len(sr) != 1 || sr[0].Broker != "broker-b" || sr[0].Master != "127.0.0.2:10911" || sr[0].Slave != "127.0.0.12:10911" ||
			(sr[0].MasterErr != nil) != (round == 0) || sr[0].Earlier != (round == 1) || sr[0].Waited < 40*time.Millisecond {
			t.Fatalf("round %d: from slaves %+v", round, sr)
		}
		s := sr[0].Message(i18n.M("cluster.slave.what.rows")).String()
		for _, w := range []string{"broker-b's master 127.0.0.2:10911 did not answer", "its rows come from its slave 127.0.0.12:10911"} {
			if !strings.Contains(s, w) {
				t.Errorf("round %d: %q does not say %q", round, s, w)
			}
		}
		if round == 0 && sr[0].Waited < 40*time.Millisecond {
			t.Errorf("round 0 waited %v for the master", sr[0].Waited)
		}
	}
	// A read the master answers names no slave; neither does a broker asked with Go.
	fo0 := c.Fanout(context.Background())
	a, _ := r.Broker("broker-a")
	fo0.Read(a, "pull", func(context.Context, string) error { return nil })
	fo0.Go(b, "stats", func(context.Context, string) error { return nil })
	if fo0.Wait(); fo0.FromSlaves() != nil {
		t.Errorf("master reads named as slave reads: %v", fo0.FromSlaves())
	}
	// Writes never go to a slave.
	fo := c.Fanout(context.Background())
	fo.Go(cluster.Broker{Name: "broker-c", Slaves: []string{"s"}}, "reset offset", func(context.Context, string) error {
		t.Error("a write was sent without a master")
		return nil
	})
	if fails := fo.Wait(); len(fails) != 1 || !strings.Contains(fails[0].Error(), "no master is registered") {
		t.Errorf("write without master: %v", fails)
	}
}

// A broker whose master is gone and whose slave is registered: reads go to the slave and
// say there is no master; writes are refused, never sent to the slave.
func TestWithoutAMasterReadsGoToTheSlaveAndWritesNowhere(t *testing.T) {
	f := twoBrokers()
	f.AddSlave("broker-b", "127.0.0.12:10911")
	f.RemoveMaster("broker-b")
	c := cluster.New(f, cluster.Options{})
	r, err := c.Route(context.Background(), "T")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Broker("broker-b")
	if b.Master != "" || len(b.Slaves) != 1 || b.Slaves[0] != "127.0.0.12:10911" {
		t.Fatalf("broker-b without its master: %+v", b)
	}
	fo := c.Fanout(context.Background())
	var read, wrote []string
	fo.Read(b, "pull", func(_ context.Context, addr string) error { read = append(read, addr); return nil })
	fo.Go(b, "reset offset", func(_ context.Context, addr string) error { wrote = append(wrote, addr); return nil })
	fails := fo.Wait()
	if len(read) != 1 || read[0] != "127.0.0.12:10911" || len(wrote) != 0 {
		t.Errorf("read from %v, wrote to %v: want the slave read and nothing written", read, wrote)
	}
	if len(fails) != 1 || !strings.Contains(fails[0].Error(), "no master is registered for broker broker-b") {
		t.Errorf("write: failures %v", fails)
	}
	sr := fo.FromSlaves()
	if len(sr) != 1 || !strings.Contains(sr[0].Message(i18n.M("cluster.slave.what.rows")).String(), "broker-b has no master registered with the NameServer; its rows come from its slave 127.0.0.12:10911") {
		t.Errorf("from slaves %+v", sr)
	}
}

func TestGroupConfigured(t *testing.T) {
	f := twoBrokers()
	f.AddGroup(&clustertest.Group{Name: "G", Topics: []string{"T"}})
	c := cluster.New(f, cluster.Options{})
	ctx := context.Background()
	if ok, err := c.GroupConfigured(ctx, "G"); !ok || err != nil {
		t.Errorf("G: %v %v", ok, err)
	}
	if ok, err := c.GroupConfigured(ctx, "H"); ok || err != nil {
		t.Errorf("H: %v %v", ok, err)
	}
	f.Fail = func(op, broker string) error {
		if op == "SubscriptionGroups" {
			return errors.New("boom")
		}
		return nil
	}
	if _, err := c.GroupConfigured(ctx, "H"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("no broker answered, want an error: %v", err)
	}
}

func TestCheckName(t *testing.T) {
	for name, want := range map[string]string{
		"orders_v2-%RETRY%|x":    "",
		"a b":                    `"a b" is not a valid topic name`,
		"ü":                      "is not a valid topic name",
		strings.Repeat("x", 256): "256 characters long; RocketMQ allows at most 255",
	} {
		err := cluster.CheckName("topic", name)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckName(%.20q) = %v, want %q", name, err, want)
		}
	}
	for name, ok := range map[string]bool{
		"orders": true, "CID_A-b_c%d|e": true, "": false, "a b": false, "a/b": false, "é": false,
		strings.Repeat("x", 255): true, strings.Repeat("x", 256): false,
	} {
		if cluster.ValidName(name) != ok {
			t.Errorf("ValidName(%q) = %v", name, !ok)
		}
	}
}

// Every API answer writes a broker failure in one shape: the broker, its address, the
// topic and the operation as fields, the operation's error in English, and a code a
// script can branch on.
func TestBrokerFailureJSONIsOneShapeWithACode(t *testing.T) {
	refused := &rocketmq.AccessError{Addr: "10.0.0.2:10911", AccessKey: "rmqc", Denial: rocketmq.DenialBadSignature}
	timeout := &rocketmq.TimeoutError{Addr: "10.0.0.2:10911", Code: rocketmq.CodeGetBrokerRuntimeInfo, Elapsed: time.Second}
	gone := cluster.GoneBroker{Name: "broker-c", Addr: "10.0.0.3:10911", SeenAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	noAddr := cluster.New(twoBrokers(), cluster.Options{}).Fanout(context.Background())
	noAddr.Read(cluster.Broker{Name: "broker-x"}, "topic stats", func(context.Context, string) error { return nil })
	for _, tc := range []struct {
		f    cluster.BrokerFailure
		want string
	}{
		{cluster.BrokerFailure{Broker: "broker-b", Addr: "10.0.0.2:10911", Topic: "T", Op: "consume stats", Err: fmt.Errorf("consume stats: %w", refused)},
			`{"broker":"broker-b","addr":"10.0.0.2:10911","topic":"T","op":"consume stats","error":"consume stats: consume stats: ` + refused.Error() + `","code":"access_denied"}`},
		{cluster.BrokerFailure{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "runtime info", Err: timeout},
			`{"broker":"broker-b","addr":"10.0.0.2:10911","op":"runtime info","error":"runtime info: ` + timeout.Error() + `","code":"broker_timeout"}`},
		{gone.Failure("T", "route"),
			`{"broker":"broker-c","addr":"10.0.0.3:10911","topic":"T","op":"route","error":"route: served topic T at 10:00:00 UTC and is no longer in its route: the NameServer dropped it (stopped, killed or cut off), so its queues are missing","code":"broker_gone"}`},
		{cluster.BrokerFailure{Broker: "NameServer", Topic: "T", Op: "route", Err: rocketmq.ErrTopicNotFound},
			`{"broker":"NameServer","topic":"T","op":"route","error":"route: ` + rocketmq.ErrTopicNotFound.Error() + `","code":"no_route"}`},
		{noAddr.Wait()[0],
			`{"broker":"broker-x","op":"topic stats","error":"topic stats: the NameServer lists no address for broker broker-x","code":"no_route"}`},
		{cluster.BrokerFailure{Broker: "broker-a", Err: errors.New("connection refused")},
			`{"broker":"broker-a","error":"connection refused","code":"broker_error"}`},
	} {
		got, err := json.Marshal(tc.f)
		if err != nil || string(got) != tc.want {
			t.Errorf("%v:\n got %s %v\nwant %s", tc.f, got, err, tc.want)
		}
	}
}
