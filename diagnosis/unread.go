package diagnosis

import (
	"slices"

	"rmqconsole/i18n"
)

// What a read could not read (Unread.What).
const (
	// UnreadDeadLetters: the dead-letter counts; deadLettersArriving stays as the last
	// count left it.
	UnreadDeadLetters = "deadLetters"
	// UnreadRebalances: the stored rebalance counts; rebalanceChurn is missing.
	UnreadRebalances = "rebalanceCounts"
	// UnreadBrokers: the brokers' list; brokerDiskFull and brokerFlowControl are missing.
	UnreadBrokers = "brokers"
	// UnreadBroker: one broker process's runtime (Subject); its findings are missing.
	UnreadBroker = "brokerRuntime"
	// UnreadReplication: one master's replication status (Subject, Broker); its slaves'
	// slaveBehind is missing.
	UnreadReplication = "replication"
	// UnreadNameServer: one NameServer's cluster info (Subject); it is left out of
	// nameServersDisagree.
	UnreadNameServer = "nameServer"
	// UnreadLocks: an orderly group's locks (Subject); its orderlyBlocked stays as the
	// last read of its locks left it.
	UnreadLocks = "locks"
)

// Unread is something the last read could not read, so that the findings that need it
// are missing or as an earlier read left them.
type Unread struct {
	What string `json:"what"`
	// Subject names the broker process, NameServer or group, for a source one of several.
	Subject string `json:"subject,omitempty"`
	// Broker is the broker name of a read about one broker (its process's runtime, its
	// master's replication status): that broker's findings are unknown.
	Broker string `json:"broker,omitempty"`
	// Cause is the error, as the source said it.
	Cause string `json:"cause"`
}

// Message says u as a sentence of the catalogues: "Could not read … : cause".
func (u Unread) Message() i18n.Message {
	return i18n.M("diagnosis.unread", "What", i18n.M("diagnosis.unread."+u.What, "Subject", u.Subject), "Cause", u.Cause)
}

// forGroup reports whether a group's findings may depend on u.
func (u Unread) forGroup(group string) bool {
	switch u.What {
	case UnreadDeadLetters, UnreadRebalances:
		return true
	case UnreadLocks:
		return u.Subject == group
	}
	return false
}

// ForBroker reports whether the findings about the broker of that name may depend on u:
// the broker list, or a read of that broker's own (a process's runtime, its master's
// replication status).
func (u Unread) ForBroker(name string) bool {
	return u.What == UnreadBrokers || u.Broker == name
}

// unreads collects what one read could not read.
type unreads []Unread

func (u *unreads) add(what, subject string, err error) { u.addCause(what, subject, err.Error()) }

func (u *unreads) addCause(what, subject, cause string) {
	*u = append(*u, Unread{What: what, Subject: subject, Cause: cause})
}

// addBroker records that a read about broker name (subject names the process) failed.
func (u *unreads) addBroker(what, name, subject, cause string) {
	*u = append(*u, Unread{What: what, Subject: subject, Broker: name, Cause: cause})
}

// Unread returns what the last read could not read.
func (e *Engine) Unread() []Unread {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.unread)
}

// UnreadFor returns what the last read could not read that group's findings need.
func (e *Engine) UnreadFor(group string) []Unread {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Unread
	for _, u := range e.unread {
		if u.forGroup(group) {
			out = append(out, u)
		}
	}
	return out
}
