package rocketmq

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func queuesN(topic, broker string, n int) []MessageQueue {
	var qs []MessageQueue
	for i := range n {
		qs = append(qs, MessageQueue{Topic: topic, BrokerName: broker, QueueID: i})
	}
	return qs
}

func clientsN(n int) []string {
	var cs []string
	for i := range n {
		cs = append(cs, fmt.Sprintf("10.0.0.%d@%d", i+1, 100+i))
	}
	return cs
}

// ids renders queues as "broker:id" for readable table tests.
func ids(qs []MessageQueue) string {
	var parts []string
	for _, q := range qs {
		parts = append(parts, fmt.Sprintf("%s:%d", q.BrokerName, q.QueueID))
	}
	return strings.Join(parts, " ")
}

func TestAllocateAveragely(t *testing.T) {
	tests := []struct {
		name    string
		queues  []MessageQueue
		clients []string
		want    []string // per client, in clients order
	}{
		{"8 queues 3 clients (reference example)", queuesN("T", "b", 8), clientsN(3),
			[]string{"b:0 b:1 b:2", "b:3 b:4 b:5", "b:6 b:7"}},
		{"3 queues 5 clients: two idle", queuesN("T", "b", 3), clientsN(5),
			[]string{"b:0", "b:1", "b:2", "", ""}},
		{"even split", queuesN("T", "b", 8), clientsN(4),
			[]string{"b:0 b:1", "b:2 b:3", "b:4 b:5", "b:6 b:7"}},
		{"uneven 10 over 4", queuesN("T", "b", 10), clientsN(4),
			[]string{"b:0 b:1 b:2", "b:3 b:4 b:5", "b:6 b:7", "b:8 b:9"}},
		{"one client takes all", queuesN("T", "b", 3), clientsN(1), []string{"b:0 b:1 b:2"}},
		{"two brokers sorted by name first", append(queuesN("T", "b2", 2), queuesN("T", "b1", 2)...), clientsN(2),
			[]string{"b1:0 b1:1", "b2:0 b2:1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Shuffle the inputs: the result must depend only on the sets.
			queues := slices.Clone(tc.queues)
			slices.Reverse(queues)
			clients := slices.Clone(tc.clients)
			slices.Reverse(clients)
			for i, c := range tc.clients {
				if got := ids(AllocateAveragely(queues, clients, c)); got != tc.want[i] {
					t.Errorf("%s got %q, want %q", c, got, tc.want[i])
				}
			}
			if !slices.Equal(clients, reversed(tc.clients)) {
				t.Error("the clients slice was modified")
			}
			assign, err := ExpectedAssignment(StrategyAveragely, queues, clients)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range tc.clients {
				if got := ids(ownedBy(assign, c)); got != tc.want[i] {
					t.Errorf("ExpectedAssignment: %s got %q, want %q", c, got, tc.want[i])
				}
			}
		})
	}
}

func reversed(s []string) []string {
	s = slices.Clone(s)
	slices.Reverse(s)
	return s
}

// ownedBy lists the queues assigned to client, in Java queue order.
func ownedBy(assign map[MessageQueue]string, client string) []MessageQueue {
	var qs []MessageQueue
	for q, c := range assign {
		if c == client {
			qs = append(qs, q)
		}
	}
	SortMessageQueues(qs)
	return qs
}

func TestAllocateAveragelyByCircle(t *testing.T) {
	qs, cs := queuesN("T", "b", 8), clientsN(3)
	want := []string{"b:0 b:3 b:6", "b:1 b:4 b:7", "b:2 b:5"}
	for i, c := range cs {
		if got := ids(AllocateAveragelyByCircle(reversedQ(qs), cs, c)); got != want[i] {
			t.Errorf("%s got %q, want %q", c, got, want[i])
		}
	}
	if got := AllocateAveragelyByCircle(queuesN("T", "b", 2), clientsN(3), clientsN(3)[2]); got != nil {
		t.Errorf("third of three clients over two queues got %v", got)
	}
}

func reversedQ(s []MessageQueue) []MessageQueue {
	s = slices.Clone(s)
	slices.Reverse(s)
	return s
}

func TestAllocateEdgeCases(t *testing.T) {
	qs, cs := queuesN("T", "b", 4), clientsN(2)
	for name, got := range map[string][]MessageQueue{
		"client not in list":        AllocateAveragely(qs, cs, "10.9.9.9@1"),
		"empty client id":           AllocateAveragely(qs, append(cs, ""), ""),
		"no queues":                 AllocateAveragely(nil, cs, cs[0]),
		"no clients":                AllocateAveragely(qs, nil, cs[0]),
		"circle: client not listed": AllocateAveragelyByCircle(qs, cs, "x"),
		"circle: no clients":        AllocateAveragelyByCircle(qs, nil, "x"),
	} {
		if got != nil {
			t.Errorf("%s: got %v, want nothing", name, got)
		}
	}

	for _, s := range []string{StrategyAveragely, StrategyAveragelyByCircle, StrategyConsistentHash} {
		m, err := ExpectedAssignment(s, qs, nil)
		if err != nil || len(m) != 0 {
			t.Errorf("%s with no clients: %v, %v; want every queue unowned", s, m, err)
		}
		m, err = ExpectedAssignment(s, qs, []string{cs[0], cs[0], cs[1]})
		if err != nil || len(m) != len(qs) {
			t.Errorf("%s with a duplicated client: %v, %v", s, m, err)
		}
	}
	if _, err := ExpectedAssignment("MACHINE_ROOM", qs, cs); err == nil || !strings.Contains(err.Error(), "AVG") {
		t.Errorf("unknown strategy: %v; want an error listing the known ones", err)
	}
}

func TestStrategyName(t *testing.T) {
	for in, want := range map[string]string{
		"org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1b2c3d":     "AVG",
		"org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle@77": "AVG_BY_CIRCLE",
		"org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash@5e":    "CONSISTENT_HASH",
		"org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom@1":      "",
		"com.example.MyStrategy@1": "",
		"":                         "AVG",
		"AVG_BY_CIRCLE":            "AVG_BY_CIRCLE",
	} {
		if got := StrategyName(in); got != want {
			t.Errorf("StrategyName(%q) = %q, want %q", in, got, want)
		}
	}
}

type javaAllocCase struct {
	Queues       []MessageQueue                       `json:"queues"`
	Clients      []string                             `json:"clients"`
	SortedQueues []MessageQueue                       `json:"sortedQueues"`
	Results      map[string]map[string][]MessageQueue `json:"results"`
}

// TestAllocationMatchesJava runs the three strategies on shuffled inputs
// and compares with what the real Java strategies (rocketmq-client 5.3.3)
// returned for the same sets, including broker names whose order differs
// between UTF-8 bytes and Java's UTF-16 (testdata/javagen).
func TestAllocationMatchesJava(t *testing.T) {
	var cases []javaAllocCase
	readJSON(t, "testdata/java/allocation.json", &cases)
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("case%d_%dq_%dc", i, len(c.Queues), len(c.Clients)), func(t *testing.T) {
			sorted := slices.Clone(c.Queues)
			SortMessageQueues(sorted)
			if !slices.Equal(sorted, c.SortedQueues) {
				t.Errorf("sort order differs from Java:\n got %v\nwant %v", sorted, c.SortedQueues)
			}
			for strategy, perClient := range c.Results {
				assign, err := ExpectedAssignment(strategy, c.Queues, c.Clients)
				if err != nil {
					t.Fatal(err)
				}
				for cid, want := range perClient {
					if want == nil {
						want = []MessageQueue{}
					}
					got := ownedBy(assign, cid)
					if got == nil {
						got = []MessageQueue{}
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s %s: got %v, Java %v", strategy, cid, got, want)
					}
					var direct []MessageQueue
					switch strategy {
					case StrategyAveragely:
						direct = AllocateAveragely(c.Queues, c.Clients, cid)
					case StrategyAveragelyByCircle:
						direct = AllocateAveragelyByCircle(c.Queues, c.Clients, cid)
					default:
						continue
					}
					if direct == nil {
						direct = []MessageQueue{}
					}
					if !reflect.DeepEqual(direct, want) {
						t.Errorf("%s for %s: got %v, Java %v", strategy, cid, direct, want)
					}
				}
			}
		})
	}
}
