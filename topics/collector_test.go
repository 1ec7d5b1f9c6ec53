package topics

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// servedCluster is a fake cluster of brokers × topics (two queues each, on every broker),
// served over remoting, and a client of it: every request the console makes is counted
// by its code.
func servedCluster(t *testing.T, brokers, topics int) (*clustertest.Fake, *clustertest.Remoting, *rocketmq.Client) {
	t.Helper()
	f := clustertest.New()
	r := clustertest.NewRemoting(f)
	t.Cleanup(r.Close)
	ns, err := r.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range brokers {
		addr, err := r.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("broker-%d", i)
		f.AddBroker(name, addr)
		// As a real broker names its version (else the client asks for it every time).
		f.SetRuntime(addr, map[string]string{"brokerVersionDesc": "V5_3_3", "brokerVersion": strconv.Itoa(rocketmq.VersionOrdinal5_3_3)})
		names = append(names, name)
	}
	for i := range topics {
		f.AddTopic(topicName(i), 2, names...)
	}
	return f, r, rocketmqtest.Client(t, rocketmq.Config{NameServer: ns, Timeout: 5 * time.Second})
}

func topicName(i int) string { return fmt.Sprintf("orders-%05d", i) }

// requests counts the broker requests r answered since before, by code.
func requests(r *clustertest.Remoting, before map[rocketmq.RequestCode]clustertest.CodeCount) map[rocketmq.RequestCode]int64 {
	out := map[rocketmq.RequestCode]int64{}
	for code, n := range r.Calls() {
		if d := n.Requests - before[code].Requests; d > 0 && code != rocketmq.CodeGetBrokerClusterInfo {
			out[code] = d
		}
	}
	return out
}

func total(m map[rocketmq.RequestCode]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

// On 4 brokers × 5 000 topics, the first page of the topic list asks each broker for its
// topic configs and nothing per topic; the figures come from the collector, whose rounds
// stay within their budget, confirm a quiet broker's figures with one call, and read the
// topics on screen first once a broker's commit log moves.
func TestTopicListFirstPageCostsBrokersNotTopics(t *testing.T) {
	if testing.Short() {
		t.Skip("20 000 topic configs over loopback")
	}
	const brokers, topics, budget = 4, 5000, 2000
	f, r, c := servedCluster(t, brokers, topics)
	ctx := context.Background()
	// The clock can be moved past the list's TTL; the collector's calls read it at once.
	var ahead atomic.Int64
	svc := New(c, Options{Now: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }})

	before := r.Calls()
	l, err := svc.List(ctx, false, true)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := PageOf(Select(l, ListQuery{Sort: "messages", Desc: true}), ListQuery{Sort: "messages", Desc: true}, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	got := requests(r, before)
	if len(pg.Topics) != 50 || pg.Total != topics {
		t.Fatalf("first page: %d rows of %d", len(pg.Topics), pg.Total)
	}
	if got[rocketmq.CodeGetAllTopicConfig] != brokers || got[rocketmq.CodeGetTopicStatsInfo] != 0 || total(got) > 2*brokers {
		t.Errorf("first page of %d topics on %d brokers asked %v, want %d GET_ALL_TOPIC_CONFIG and nothing per topic", topics, brokers, got, brokers)
	}
	if s := pg.Topics[0]; s.FiguresAt != nil || s.FiguresUnknown != FiguresNotReadYet || s.StatsFrom != 0 {
		t.Errorf("before any round: %+v, want figures unknown, not read yet", s)
	}

	// Rounds until every figure is known: each within its budget.
	col := svc.Figures(time.Second, budget)
	rounds := 0
	for {
		before = r.Calls()
		rd := col.Collect(ctx)
		got = requests(r, before)
		rounds++
		if n := total(got); n > budget || int64(rd.Calls) != n {
			t.Fatalf("round %d: %d requests (%v), counted %d, budget %d", rounds, n, got, rd.Calls, budget)
		}
		if rd.Waiting == 0 {
			break
		}
		if rounds > brokers*topics/(budget-2*brokers)+2 {
			t.Fatalf("after %d rounds %d figures still waiting", rounds, rd.Waiting)
		}
	}
	l, _ = svc.List(ctx, false, false)
	if a := Age(l.Topics); a.Unknown != 0 || a.Oldest == nil {
		t.Fatalf("after %d rounds: %d topics without figures", rounds, a.Unknown)
	}

	// Nothing stored since: a round within the list's TTL asks each broker for its
	// commit-log range alone, and confirms every figure without reading one.
	before = r.Calls()
	rd := col.Collect(ctx)
	got = requests(r, before)
	if got[rocketmq.CodeGetTopicStatsInfo] != 0 || total(got) != brokers || int64(rd.Calls) != brokers || rd.Confirmed != brokers*topics {
		t.Errorf("quiet round: %v, counted %d, confirmed %d of %d", got, rd.Calls, rd.Confirmed, brokers*topics)
	}
	// Past the TTL the round reads the configs again, once per broker, and counts them.
	ahead.Store(int64(DefaultListTTL))
	before = r.Calls()
	rd = col.Collect(ctx)
	got = requests(r, before)
	if got[rocketmq.CodeGetAllTopicConfig] != brokers || got[rocketmq.CodeGetTopicStatsInfo] != 0 || total(got) != 2*brokers || int64(rd.Calls) != 2*brokers {
		t.Errorf("quiet round past the list's TTL: %v, counted %d", got, rd.Calls)
	}

	// Messages stored on broker-2 in a topic on screen: the next round reads it first,
	// and the list shows them with a fresh age.
	on := topicName(4321)
	svc.Viewing([]string{on})
	base := time.Now()
	for i := range 7 {
		f.Put(on, "broker-2", i%2, clustertest.NewMessage("m", "", nil, "", base))
	}
	before = r.Calls()
	rd = col.Collect(ctx)
	got = requests(r, before)
	if total(got) > budget || rd.Read == 0 || rd.Confirmed != (brokers-1)*topics {
		t.Errorf("round after a put: %v, read %d, confirmed %d", got, rd.Read, rd.Confirmed)
	}
	l, _ = svc.List(ctx, false, false)
	pg, _ = PageOf(Select(l, ListQuery{Sort: "messages", Desc: true}), ListQuery{Sort: "messages", Desc: true}, 50, "")
	if s := pg.Topics[0]; s.Topic != on || s.Messages != 7 || s.StatsFrom != brokers || s.FiguresAt == nil || s.FiguresAt.Before(base) {
		t.Errorf("first by messages: %+v, want %s with 7 messages read since the put", s, on)
	}
}
