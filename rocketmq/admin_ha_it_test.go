package rocketmq

import (
	"errors"
	"testing"
)

// TestIntegrationHAStatusOfAMaster asks a real master how its replication stands: a
// 5.x master says it is one and names its commit log's max offset, which is at least
// what its runtime info said a moment before (after a message was sent to it); each slave it lists has acknowledged no
// more than that. A 4.x broker does not know the request, and says so.
func TestIntegrationHAStatusOfAMaster(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	ctx := t.Context()
	topic := e.createTopic(t, "it-ha", 1)
	mq := MessageQueue{Topic: topic, BrokerName: e.broker, QueueID: 0}
	if _, err := e.c.SendMessage(ctx, e.addr, mq, "it-ha-producer", OutgoingMessage{Topic: topic, Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	rt, err := e.c.BrokerRuntimeInfo(ctx, e.addr)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := rt.Float("commitLogMaxOffset")
	st, err := e.c.HAStatus(ctx, e.addr)
	if !e.version.Is5() {
		if !errors.Is(err, ErrNotSupported) {
			t.Fatalf("4.x broker: err = %v, want ErrNotSupported", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !st.Master || before <= 0 || st.MasterMaxOffset < int64(before) {
		t.Errorf("HAStatus = %+v, want a master at commit-log offset ≥ %.0f", st, before)
	}
	for _, c := range st.Connections {
		if c.Host() == "" || c.AckOffset > st.MasterMaxOffset || c.Diff != st.MasterMaxOffset-c.AckOffset {
			t.Errorf("connection %+v of a master at %d", c, st.MasterMaxOffset)
		}
	}
	t.Logf("%s: %+v", e.addr, st)
}
