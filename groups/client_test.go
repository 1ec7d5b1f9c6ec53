package groups

import (
	"errors"
	"testing"
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
	if err != nil || ci.ConsumeMode != ModeOrderly || ci.Unavailable != "" {
		t.Fatalf("client %+v, %v: want c1's running info (orderly) via broker-a", ci, err)
	}
	if _, err := s.Client(t.Context(), "g", "c9", false); !errors.Is(err, ErrClientNotFound) {
		t.Errorf("unlisted client: %v, want ErrClientNotFound", err)
	}
	down["broker-a"] = true
	if _, err := s.Client(t.Context(), "g", "c1", false); err == nil || errors.Is(err, ErrClientNotFound) {
		t.Errorf("every broker failing: %v, want the brokers' failure", err)
	}
}
