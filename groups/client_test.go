package groups

import (
	"errors"
	"strings"
	"testing"

	"rmqconsole/fault"
)

// A client is read via a broker that lists it, whatever another broker answers; a client
// no broker lists is not found, and brokers that all fail are named instead.
func TestClientIsReadViaABrokerThatListsIt(t *testing.T) {
	f := newScenario()
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.setTopic(tT, map[string]int{"broker-a": 1, "broker-b": 1})
	f.setClients("g", map[string]clientSpec{"c1": {topics: []string{tT}, orderly: true}})
	down := map[string]bool{"broker-b": true}
	f.Fail = func(op, broker string) error {
		if op == "ConsumerConnections" && down[broker] {
			return errors.New("boom")
		}
		return nil
	}
	s := NewService(f, Options{})
	ci, err := s.Client(t.Context(), "g", "c1", false)
	if err != nil || ci.ConsumeMode != ModeOrderly || ci.Unavailable.String() != "" {
		t.Fatalf("client %+v, %v: want c1's running info (orderly) via broker-a", ci, err)
	}
	if _, err := s.Client(t.Context(), "g", "c9", false); !fault.Is(err, fault.NotFound) {
		t.Errorf("unlisted client: %v, want the client not found", err)
	}
	down["broker-a"] = true
	if _, err := s.Client(t.Context(), "g", "c1", false); err == nil || fault.Is(err, fault.NotFound) {
		t.Errorf("every broker failing: %v, want the brokers' failure", err)
	}
}

// On a 4.x cluster a client that did not send its running info is not guessed to be a
// gRPC client behind a Proxy: there is none before 5.0.
func TestUnavailableReasonOn4xLeavesGRPCOut(t *testing.T) {
	err := errors.New("consumer timeout")
	ci := &ClientInfo{ConsumeType: "push"}
	if s := unavailableReason(ci, err, "4.9.7").String(); strings.Contains(s, "may be shutting down, or be a gRPC client") || !strings.Contains(s, "need RocketMQ 5.x") || !strings.Contains(s, "4.9.7") {
		t.Errorf("on 4.9.7: %q", s)
	}
	if s := unavailableReason(ci, err, "").String(); !strings.Contains(s, "gRPC client behind a RocketMQ 5 Proxy") {
		t.Errorf("on 5.x: %q", s)
	}
}
