package groups

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

const (
	tG = "G"
	tT = "T"
)

// twoClientsOnEightQueues is a healthy group: two Go clients holding queues 0-3 and 4-7
// of an 8-queue topic, as AVG assigns them.
func twoClientsOnEightQueues() scenario {
	f := newScenario()
	f.setTopic(tT, map[string]int{"broker-a": 8})
	f.setTopic(rocketmq.RetryTopic(tG), map[string]int{"broker-a": 1})
	f.setClients(tG, map[string]clientSpec{
		"c1": {topics: []string{tT, rocketmq.RetryTopic(tG)}, holds: append(queues(tT, "broker-a", 0, 1, 2, 3), mq(rocketmq.RetryTopic(tG), "broker-a", 0))},
		"c2": {topics: []string{tT, rocketmq.RetryTopic(tG)}, holds: queues(tT, "broker-a", 4, 5, 6, 7)},
	})
	offs := map[int][2]int64{}
	for i := range 8 {
		offs[i] = [2]int64{100, int64(90 + i)}
	}
	f.setOffsets(tG, "broker-a", tT, offs)
	f.setOffsets(tG, "broker-a", rocketmq.RetryTopic(tG), map[int][2]int64{0: {0, 0}})
	return f
}

func TestDetailLagOwnersAndExpectedAssignment(t *testing.T) {
	f := twoClientsOnEightQueues()
	d, err := NewService(f, Options{}).Detail(context.Background(), tG)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Online || len(d.Clients) != 2 || d.ConsumeType != "push" || d.MessageModel != "CLUSTERING" {
		t.Fatalf("online %v clients %d type %q model %q", d.Online, len(d.Clients), d.ConsumeType, d.MessageModel)
	}
	if len(d.Queues) != 9 {
		t.Fatalf("%d queue rows, want 8 + 1 retry", len(d.Queues))
	}
	var total int64
	for i, q := range d.Queues[:8] {
		if q.Topic != tT || q.QueueID != i {
			t.Fatalf("row %d is %s/%d: the topic's queues come first, in order", i, q.Topic, q.QueueID)
		}
		if q.Lag == nil || *q.Lag != int64(10-i) {
			t.Errorf("queue %d lag %v, want %d (100 - %d)", i, q.Lag, 10-i, 90+i)
		}
		want := "c1"
		if i >= 4 {
			want = "c2"
		}
		if q.Owner != want {
			t.Errorf("queue %d owner %q, want %q", i, q.Owner, want)
		}
		total += *q.Lag
	}
	if !d.Queues[8].Retry || d.Queues[8].Owner != "c1" {
		t.Errorf("last row %+v: want the retry queue, held by c1", d.Queues[8])
	}
	if d.TotalLag == nil || *d.TotalLag != total || d.TotalLagNote.String() != "" {
		t.Errorf("total lag %v note %q, want %d", d.TotalLag, d.TotalLagNote.String(), total)
	}
	a := d.Assignment
	if !a.Applicable || a.Strategy != rocketmq.StrategyAveragely || !a.Matches || len(a.Queues) != 9 || len(a.IdleClients) != 0 {
		t.Errorf("assignment %+v: want AVG, applicable, matching on 9 queues", a)
	}
	if d.SubscriptionsDiffer {
		t.Error("identical subscriptions flagged as different")
	}
	if d.Clients[0].Version != "v2.1.1" || d.Clients[0].Queues != 5 {
		t.Errorf("client %+v: want its reported version and 5 queues", d.Clients[0])
	}
}

func TestDetailCallsInParallelNotOneAfterAnother(t *testing.T) {
	// One broker (two calls at once at most), then four clients' running infos: more
	// than two calls in flight means the clients are asked in parallel.
	f := twoClientsOnEightQueues()
	f.setClients(tG, map[string]clientSpec{"c1": {topics: []string{tT}}, "c2": {topics: []string{tT}},
		"c3": {topics: []string{tT}}, "c4": {topics: []string{tT}}})
	f.SlowAll(20 * time.Millisecond)
	if _, err := NewService(f, Options{}).Detail(context.Background(), tG); err != nil {
		t.Fatal(err)
	}
	if m := f.PeakInFlight(); m < 4 {
		t.Errorf("at most %d calls in flight: each client's running info must be asked in parallel, not one after another", m)
	}
	// Two brokers: connections and stats of both at once.
	f = twoClientsOnEightQueues()
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.setClients(tG, map[string]clientSpec{})
	f.SlowAll(20 * time.Millisecond)
	if _, err := NewService(f, Options{}).Detail(context.Background(), tG); err != nil {
		t.Fatal(err)
	}
	if m := f.PeakInFlight(); m < 4 {
		t.Errorf("at most %d calls in flight: both brokers' connections and stats must be asked at once", m)
	}
}

func TestDetailBrokerFailureGivesPartialResultNamingTheBroker(t *testing.T) {
	f := twoClientsOnEightQueues()
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.setTopic(tT, map[string]int{"broker-a": 8, "broker-b": 4})
	f.FailOn("ConsumeStats", "10.0.0.2:10911", errors.New("GET_CONSUME_STATS to 10.0.0.2:10911: no answer within 5s"))
	d, err := NewService(f, Options{}).Detail(context.Background(), tG)
	if err != nil {
		t.Fatalf("a failing broker failed the whole read: %v", err)
	}
	if len(d.Failures) != 1 || d.Failures[0].Broker != "broker-b" || !strings.Contains(d.Failures[0].Error(), "no answer") {
		t.Fatalf("failures %+v: want broker-b and its error", d.Failures)
	}
	var unknownB, knownA int
	for _, q := range d.Queues {
		switch {
		case q.BrokerName == "broker-b" && q.Lag == nil && strings.Contains(q.LagUnknown.String(), "broker-b did not answer"):
			unknownB++
		case q.BrokerName == "broker-a" && q.Lag != nil:
			knownA++
		}
	}
	if unknownB != 4 || knownA != 9 {
		t.Errorf("broker-b queues with unknown lag naming the broker: %d (want 4); broker-a queues with lag: %d (want 9)", unknownB, knownA)
	}
	if d.TotalLag == nil || !strings.Contains(d.TotalLagNote.String(), "4 of 13") {
		t.Errorf("total %v note %q: want the known sum, saying it leaves 4 of 13 queues out", d.TotalLag, d.TotalLagNote.String())
	}
}

// A master that does not answer, with a slave that does: its queues' offsets and lag come
// from the slave and the page is told so; its connections (only masters keep them) are
// named as a failure.
func TestDetailReadsOffsetsFromASlaveWhenTheMasterDoesNotAnswer(t *testing.T) {
	f := twoClientsOnEightQueues()
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddSlave("broker-b", "10.0.0.12:10911")
	f.setTopic(tT, map[string]int{"broker-a": 8, "broker-b": 4})
	f.setOffsets(tG, "broker-b", tT, map[int][2]int64{0: {50, 40}, 1: {50, 50}, 2: {9, 1}, 3: {7, 7}})
	f.Down("10.0.0.2:10911")
	d, err := NewService(f, Options{}).Detail(context.Background(), tG)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.FromSlaves) != 1 || d.FromSlaves[0].Broker != "broker-b" || d.FromSlaves[0].Slave != "10.0.0.12:10911" {
		t.Fatalf("from slaves %+v: want broker-b's offsets from 10.0.0.12:10911", d.FromSlaves)
	}
	knownB := 0
	for _, q := range d.Queues {
		if q.BrokerName == "broker-b" && q.Lag != nil {
			knownB++
		}
	}
	if knownB != 4 {
		t.Errorf("%d of broker-b's 4 queues have a lag, want all, read from its slave", knownB)
	}
	for _, fl := range d.Failures {
		if fl.Op == "consume stats" {
			t.Errorf("the consume stats the slave answered are named as a failure: %v", fl)
		}
	}
}

func TestLagIsNeverANegativeOrMadeUpNumber(t *testing.T) {
	f := newScenario()
	f.setTopic(tT, map[string]int{"broker-a": 4})
	f.setClients(tG, map[string]clientSpec{"c1": {topics: []string{tT}, holds: queues(tT, "broker-a", 0, 1, 2, 3)}})
	// queue 0: nothing committed (-1 as 4.x static topics report); queue 1: offset past the
	// max (truncated queue); queue 2: fine; queue 3: absent from the stats.
	f.setOffsets(tG, "broker-a", tT, map[int][2]int64{0: {50, -1}, 1: {50, 70}, 2: {50, 40}})
	d, err := NewService(f, Options{}).Detail(context.Background(), tG)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), `"lag":-`) {
		t.Fatalf("JSON holds a negative lag: %s", b)
	}
	want := map[int]string{0: "No offset is committed", 1: "past the queue's max offset", 3: "No offset is committed"}
	for _, q := range d.Queues {
		if w, ok := want[q.QueueID]; ok {
			if q.Lag != nil || !strings.Contains(q.LagUnknown.String(), w) {
				t.Errorf("queue %d: lag %v reason %q, want unknown saying %q", q.QueueID, q.Lag, q.LagUnknown.String(), w)
			}
		} else if q.Lag == nil || *q.Lag != 10 {
			t.Errorf("queue %d: lag %v, want 10", q.QueueID, q.Lag)
		}
	}
	if len(d.Queues) != 4 {
		t.Errorf("%d rows: a subscribed queue without stats must still show", len(d.Queues))
	}
}

func TestDifferentSubscriptionsAreFlaggedAndLeaveQueuesUnowned(t *testing.T) {
	f := newScenario()
	f.setTopic("A", map[string]int{"broker-a": 4})
	f.setTopic("B", map[string]int{"broker-a": 4})
	// c1 subscribes to A, c2 to B. Each allocates every topic over both clients, so each
	// holds only the half of its own topic AVG gives it.
	f.setClients(tG, map[string]clientSpec{
		"c1": {topics: []string{"A"}, holds: queues("A", "broker-a", 0, 1)},
		"c2": {topics: []string{"B"}, holds: queues("B", "broker-a", 2, 3)},
	})
	d, err := NewService(f, Options{}).Detail(context.Background(), tG)
	if err != nil {
		t.Fatal(err)
	}
	if !d.SubscriptionsDiffer {
		t.Fatal("clients subscribing to different topics are not flagged")
	}
	flagged := 0
	for _, c := range d.Clients {
		if c.SubscriptionDiffers {
			flagged++
		}
	}
	if flagged != 1 {
		t.Errorf("%d clients flagged, want the one that differs from the first (tie)", flagged)
	}
	a := d.Assignment
	if a.Matches || a.Unowned != 4 {
		t.Errorf("assignment %+v: want 4 unowned queues (A 2,3 and B 0,1)", a)
	}
	for _, q := range a.Queues {
		if (q.Topic == "A" && q.QueueID >= 2) || (q.Topic == "B" && q.QueueID < 2) {
			if q.Problem != ProblemUnowned {
				t.Errorf("%s/%d problem %q, want unowned", q.Topic, q.QueueID, q.Problem)
			}
		}
	}
}

func TestAssignmentFlagsDoubleOwnershipMismatchAndIdleClients(t *testing.T) {
	f := newScenario()
	f.setTopic(tT, map[string]int{"broker-a": 4})
	f.setClients(tG, map[string]clientSpec{
		"c1": {topics: []string{tT}, holds: queues(tT, "broker-a", 0, 1, 2)},
		"c2": {topics: []string{tT}, holds: queues(tT, "broker-a", 2, 3)},
		"c3": {topics: []string{tT}},
	})
	d, err := NewService(f, Options{}).Detail(context.Background(), tG)
	if err != nil {
		t.Fatal(err)
	}
	// AVG over 4 queues and 3 clients: c1 gets 0,1; c2 gets 2; c3 gets 3.
	a := d.Assignment
	got := map[int]string{}
	for _, q := range a.Queues {
		got[q.QueueID] = q.Problem
	}
	want := map[int]string{0: "", 1: "", 2: ProblemOwnedTwice, 3: ProblemDiffers}
	for id, p := range want {
		if got[id] != p {
			t.Errorf("queue %d problem %q, want %q", id, got[id], p)
		}
	}
	if len(a.IdleClients) != 1 || a.IdleClients[0] != "c3" {
		t.Errorf("idle clients %v, want c3", a.IdleClients)
	}
	if d.Queues[2].Owners == nil || len(d.Queues[2].Owners) != 2 {
		t.Errorf("queue 2 owners %v: both holders must show", d.Queues[2].Owners)
	}
}

func TestAssignmentUsesTheStrategyJavaClientsReport(t *testing.T) {
	f := newScenario()
	f.setTopic(tT, map[string]int{"broker-a": 4})
	circle := "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle@1a2b"
	f.setClients(tG, map[string]clientSpec{
		"c1": {topics: []string{tT}, holds: queues(tT, "broker-a", 0, 2), strategy: circle},
		"c2": {topics: []string{tT}, holds: queues(tT, "broker-a", 1, 3), strategy: circle},
	})
	d, _ := NewService(f, Options{}).Detail(context.Background(), tG)
	if d.Assignment.Strategy != rocketmq.StrategyAveragelyByCircle || !d.Assignment.Matches {
		t.Errorf("assignment %+v: want AVG_BY_CIRCLE matching", d.Assignment)
	}
	f.setClients(tG, map[string]clientSpec{"c1": {topics: []string{tT}, strategy: "com.example.MyStrategy@1"}})
	d, _ = NewService(f, Options{}).Detail(context.Background(), tG)
	if d.Assignment.Applicable || !strings.Contains(d.Assignment.Note.String(), "com.example.MyStrategy") {
		t.Errorf("unknown strategy: %+v, want not applicable naming it", d.Assignment)
	}
}

func TestClientThatDoesNotReportIsNamedAndOwnersUnknown(t *testing.T) {
	f := twoClientsOnEightQueues()
	f.FailRunningInfo("c2", errors.New("CONSUME_MSG_TIMEOUT"))
	d, err := NewService(f, Options{}).Detail(context.Background(), tG)
	if err != nil {
		t.Fatal(err)
	}
	if d.ownersKnown || d.Clients[1].RunningInfoError.String() == "" {
		t.Fatalf("client c2 failed to report, but ownersKnown=%v error=%q", d.ownersKnown, d.Clients[1].RunningInfoError.String())
	}
	if !strings.Contains(d.Assignment.Note.String(), "did not report") {
		t.Errorf("assignment note %q does not say some clients did not report", d.Assignment.Note.String())
	}
	// c1's queues are owned; c2's four could be c2's: unknown, not "no owner".
	for _, q := range d.Queues {
		if q.Topic != tT {
			continue
		}
		c1 := q.QueueID < 4
		if c1 && (q.Owner != "c1" || q.OwnerUnknown) || !c1 && (q.Owner != "" || !q.OwnerUnknown) {
			t.Errorf("queue %d: owner %q, unknown %v", q.QueueID, q.Owner, q.OwnerUnknown)
		}
	}
	if d.Topics[0].Owned != 4 || d.Topics[0].OwnerUnknown != 4 {
		t.Errorf("topic summary %+v: want 4 owned, 4 unknown", d.Topics[0])
	}
	a := d.Assignment
	if a.Unowned != 0 || a.OwnerUnknown != 4 || a.Matches {
		t.Errorf("assignment: %d unowned, %d unknown, matches %v; want 0, 4, false", a.Unowned, a.OwnerUnknown, a.Matches)
	}

	// With no client reporting, the page says so instead of "no strategy reported".
	f.FailRunningInfo("c1", errors.New("json marshal error"))
	d, _ = NewService(f, Options{}).Detail(context.Background(), tG)
	if d.Assignment.Applicable || !strings.Contains(d.Assignment.Note.String(), "No client reported its running info") {
		t.Errorf("no client reporting: %+v", d.Assignment)
	}
	for _, q := range d.Queues {
		if !q.OwnerUnknown {
			t.Errorf("queue %s/%d: owner unknown %v with no client reporting", q.Topic, q.QueueID, q.OwnerUnknown)
		}
	}
}

func TestLookupTellsAnUnknownGroupFromAnOfflineOne(t *testing.T) {
	f := newScenario()
	f.group("offline")
	s := NewService(f, Options{})
	if _, err := s.Lookup(context.Background(), "nope"); !fault.Is(err, fault.NotFound) {
		t.Errorf("unknown group: %v, want the group not found", err)
	}
	d, err := s.Lookup(context.Background(), "offline")
	if err != nil || d.Online || d.TotalLag != nil || d.TotalLagNote.String() == "" {
		t.Errorf("offline group: %+v, %v: want offline, lag unknown with a reason", d, err)
	}
	if d.Assignment.Applicable || d.Assignment.Note.String() == "" {
		t.Errorf("offline group assignment %+v: want a note, not a check", d.Assignment)
	}
}

// Clients are unknown, not offline, only when no broker listed them: a refusal or a
// failure on every broker; one broker saying the group has no client is an answer.
func TestClientsUnknownOnlyWhenNoBrokerListedThem(t *testing.T) {
	refused := errors.New("no permission for Group:G")
	d := &Detail{}
	d.mergeConnections([]brokerAnswer{{connErr: refused}, {connErr: refused}}, nil)
	if d.Online || !d.ClientsUnknown {
		t.Errorf("every broker refused: online %v, clients unknown %v", d.Online, d.ClientsUnknown)
	}
	if a := d.assign(nil); strings.Contains(a.Note.String(), "No client is online") || !strings.Contains(a.Note.String(), "unknown") {
		t.Errorf("every broker refused: the assignment says %q, want unknown", a.Note.String())
	}
	d = &Detail{}
	d.mergeConnections([]brokerAnswer{{connErr: refused}, {connErr: rocketmq.ErrConsumerNotOnline}}, nil)
	if d.Online || d.ClientsUnknown {
		t.Errorf("a broker said not online: online %v, clients unknown %v", d.Online, d.ClientsUnknown)
	}
	if a := d.assign(nil); !strings.Contains(a.Note.String(), "No client is online") {
		t.Errorf("a broker said not online: the assignment says %q", a.Note.String())
	}
}
