package sim_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/cluster/clustertest/sim"
	"rmqconsole/groups"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/topics"
)

// simulated starts a simulated cluster of shape on loopback and returns it, its server
// and a maker of clients of it (each a console that has seen nothing yet).
func simulated(t testing.TB, shape sim.Shape) (*sim.Cluster, *clustertest.Remoting, func() *rocketmq.Client) {
	t.Helper()
	srv := clustertest.NewRemoting(nil)
	t.Cleanup(srv.Close)
	ns, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addrs := make([]string, shape.Brokers)
	for i := range addrs {
		if addrs[i], err = srv.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
	}
	c := sim.New(shape, addrs)
	srv.Use(c)
	return c, srv, func() *rocketmq.Client {
		client := rocketmqtest.Client(t, rocketmq.Config{NameServer: ns, Timeout: 30 * time.Second})
		// A console learns each broker's version once (GET_BROKER_RUNTIME_INFO) and keeps
		// it; pages are measured on a console that has.
		for _, a := range addrs {
			if _, err := client.BrokerVersion(context.Background(), a); err != nil {
				t.Fatal(err)
			}
		}
		return client
	}
}

// cost is what one operation asked the cluster, by request code.
type cost map[rocketmq.RequestCode]int64

func (c cost) String() string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%s=%d", code, c[code]))
	}
	return strings.Join(parts, " ")
}

// measure runs op and returns the requests it made by code.
func measure(t *testing.T, srv *clustertest.Remoting, op func() error) cost {
	t.Helper()
	before := srv.Calls()
	if err := op(); err != nil {
		t.Fatal(err)
	}
	out := cost{}
	for code, n := range srv.Calls() {
		if d := n.Requests - before[code].Requests; d > 0 {
			out[code] = d
		}
	}
	if u := srv.Unanswered(); len(u) > 0 {
		t.Errorf("requests the simulation does not answer: %v", u)
	}
	return out
}

// The console's cost in broker requests on a simulated cluster of 4 brokers, 5 000
// groups and 2 000 topics, page by page, as the services read it today (a fresh
// console each time: nothing cached). Each line states today's count exactly, so a
// change to what a page asks shows here; the comments say what the paged lists and the
// topic-stats collector must bring each one to.
func TestSimulatedClusterCostsOfEachPage(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 000 requests over loopback: not a -short test")
	}
	shape := sim.Shape{Brokers: 4, Groups: 5000, Topics: 500}
	c, srv, newClient := simulated(t, shape)
	ctx := context.Background()
	expect := func(page string, got cost, want cost) {
		t.Helper()
		for code, n := range want {
			if code == rocketmq.CodeGetBrokerClusterInfo && n == 1 && got[code] >= 1 {
				// The cluster info is read once and reused for cluster.DefaultInfoTTL of wall
				// time: a page that takes longer than that on a loaded machine reads it
				// again. The brokers' requests below are what the page's size decides.
				continue
			}
			if got[code] != n {
				t.Errorf("%s: %d %s, want %d (all: %s)", page, got[code], code, n, got)
			}
		}
		for code := range got {
			if _, ok := want[code]; !ok {
				t.Errorf("%s: %d %s, none expected (all: %s)", page, got[code], code, got)
			}
		}
	}

	// The group list: each broker holds more than BrokerStatsMaxGroups groups, so it is
	// read from the offset table, plus one GET_TOPIC_STATS_INFO per topic with offsets
	// on each broker. Paged: O(brokers) for the first page.
	var list *groups.List
	client := newClient()
	got := measure(t, srv, func() (err error) {
		list, err = groups.NewService(client, groups.Options{}).List(ctx, true)
		return err
	})
	if len(list.Groups) < shape.Groups {
		t.Fatalf("listed %d groups, want %d", len(list.Groups), shape.Groups)
	}
	expect("group list", got, cost{
		rocketmq.CodeGetBrokerClusterInfo:      1,
		rocketmq.CodeGetAllSubscriptionGroup:   4,
		rocketmq.CodeGetAllConsumerOffset:      4,
		rocketmq.CodeGetTopicStatsInfo:         4 * (500 + 1), // every topic and the hot one, on each broker: paged, none
		rocketmq.CodeGetConsumerConnectionList: groups.DefaultClientLookups,
		rocketmq.CodeQueryConsumeTimeSpan:      groups.DefaultLagTimeLookups,
		rocketmq.CodeGetConsumerRunningInfo:    125, // the consume mode of each online group among those listed
	})

	// The topic list, cold: its topic configs, O(brokers); the figures come from the
	// topic-stats collector's memory, no call per topic on the page's path.
	var tl *topics.List
	client = newClient()
	got = measure(t, srv, func() (err error) {
		tl, err = topics.New(client, topics.Options{}).List(ctx, false, true)
		return err
	})
	if len(tl.Topics) != shape.Topics+1 {
		t.Fatalf("listed %d topics, want %d", len(tl.Topics), shape.Topics+1)
	}
	expect("topic list", got, cost{
		rocketmq.CodeGetBrokerClusterInfo: 1,
		rocketmq.CodeGetAllTopicConfig:    4,
	})

	// A group page (an online group of its own topic and the hot one).
	client = newClient()
	got = measure(t, srv, func() error {
		_, err := groups.NewService(client, groups.Options{}).Detail(ctx, c.OnlineGroup())
		return err
	})
	expect("group page", got, cost{
		rocketmq.CodeGetBrokerClusterInfo:      1,
		rocketmq.CodeGetRouteInfoByTopic:       3, // its topic, the hot one, its retry topic
		rocketmq.CodeGetConsumerConnectionList: 4,
		rocketmq.CodeGetConsumeStats:           4,
		rocketmq.CodeQueryConsumeTimeSpan:      8, // two topics on four brokers
		rocketmq.CodeGetConsumerRunningInfo:    2, // two clients
	})

	// A message's page: the message by its offsetMsgId, then the state of every group of
	// its topic (the hot topic: 500 groups).
	client = newClient()
	got = measure(t, srv, func() error {
		svc := lookup.New(client, lookup.Options{})
		r, err := svc.ByID(ctx, lookup.IDQuery{ID: c.HotMessageID()})
		if err != nil {
			return err
		}
		gs, err := svc.Groups(ctx, r.Message, r.Failures...)
		if err == nil && len(gs.States) != shape.Groups/10 {
			err = fmt.Errorf("%d groups on the message's page, want %d", len(gs.States), shape.Groups/10)
		}
		return err
	})
	expect("message page", got, cost{
		rocketmq.CodeGetBrokerClusterInfo:      1,
		rocketmq.CodeViewMessageByID:           1,
		rocketmq.CodeGetRouteInfoByTopic:       1,
		rocketmq.CodeQueryTopicConsumeByWho:    4,
		rocketmq.CodeGetAllConsumerOffset:      1,
		rocketmq.CodeGetConsumerConnectionList: 32, // the clients of 32 of the topic's 500 groups
	})
}
