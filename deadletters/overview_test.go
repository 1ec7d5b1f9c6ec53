package deadletters

import (
	"context"
	"errors"
	"testing"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

// The dead-letter overview's pages cut from one count within OverviewTTL: a second page
// asks no broker again, and the page's Refresh counts afresh.
func TestOverviewIsReusedWithinItsTTLUnlessRefreshed(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddTopic(rocketmq.DLQTopic("GID_orders"), 1, "broker-a")
	s := New(Config{Admin: noSend{f}})
	first, err := s.Overview(t.Context(), false)
	if err != nil || len(first) != 1 {
		t.Fatalf("overview: %v, %v", first, err)
	}
	asked := f.Calls()["TopicStats"]
	if asked == 0 {
		t.Fatal("the overview counted no topic")
	}
	if _, err := s.Overview(t.Context(), false); err != nil || f.Calls()["TopicStats"] != asked {
		t.Fatalf("an overview within its TTL counted %d topics again; want none", f.Calls()["TopicStats"]-asked)
	}
	if _, err := s.Overview(t.Context(), true); err != nil || f.Calls()["TopicStats"] != 2*asked {
		t.Fatalf("a refreshed overview counted %d topics; want %d", f.Calls()["TopicStats"]-asked, asked)
	}
}

// noSend is the fake cluster, whose brokers take no message.
type noSend struct{ *clustertest.Fake }

func (noSend) SendMessage(context.Context, string, rocketmq.MessageQueue, string, rocketmq.OutgoingMessage) (*rocketmq.SendResult, error) {
	return nil, errors.New("no send in this test")
}
