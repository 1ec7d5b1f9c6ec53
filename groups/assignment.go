package groups

import (
	"maps"
	"slices"
	"sort"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Assignment sets the queues the group's allocation strategy should give each client
// (from the sorted client ids and queues, as the clients compute it) beside what each
// client reports it holds.
type Assignment struct {
	// Applicable is false when there is no client-side assignment to check (no client
	// online, broadcasting, POP consumers, a strategy the console cannot compute); Note
	// says which.
	Applicable bool      `json:"applicable"`
	Note       i18n.Text `json:"note,omitempty"`
	Strategy   string    `json:"strategy,omitempty"`
	// Queues are every queue of every subscribed topic, expected and actual owner.
	Queues []AssignedQueue `json:"queues"`
	// IdleClients are online clients that hold no queue of the group's topics (retry
	// topic aside).
	IdleClients []string `json:"idleClients"`
	// MoreClientsThanQueues: some clients are idle by design.
	MoreClientsThanQueues bool `json:"moreClientsThanQueues,omitempty"`
	Unowned               int  `json:"unowned"`
	OwnedTwice            int  `json:"ownedTwice"`
	Differs               int  `json:"differs"`
	// OwnerUnknown counts queues whose holder may be a client that did not report.
	OwnerUnknown int `json:"ownerUnknown"`
	// Matches is true when every queue has exactly the owner expected.
	Matches bool `json:"matches"`
}

// Problems of an AssignedQueue.
const (
	ProblemUnowned    = "unowned"
	ProblemOwnedTwice = "owned-twice"
	ProblemDiffers    = "differs"
	// ProblemUnknown: no reporting client holds the queue and some client did not
	// report, so whether it is owned is unknown.
	ProblemUnknown = "owner-unknown"
)

// AssignedQueue is one queue's expected and actual owner.
type AssignedQueue struct {
	Topic      string   `json:"topic"`
	BrokerName string   `json:"brokerName"`
	QueueID    int      `json:"queueId"`
	Expected   string   `json:"expected"`
	Actual     []string `json:"actual"`
	// Problem is "", "unowned", "owned-twice", "differs" (one owner, not the one
	// expected) or "owner-unknown".
	Problem string `json:"problem,omitempty"`
}

// Queue returns the queue's identity.
func (a AssignedQueue) Queue() rocketmq.MessageQueue {
	return rocketmq.MessageQueue{Topic: a.Topic, BrokerName: a.BrokerName, QueueID: a.QueueID}
}

// assign computes the expected against the actual assignment from what Detail read.
// Clients allocate every subscribed topic's readable queues over every client id of the
// group (whether or not a client subscribes to that topic), which is why inconsistent
// subscriptions leave queues unconsumed.
func (d *Detail) assign(subs map[string]bool) Assignment {
	a := Assignment{Queues: []AssignedQueue{}, IdleClients: []string{}}
	switch {
	case !d.Online && d.ClientsUnknown:
		a.Note = i18n.TextOf(i18n.M("group.assign.note.clientsUnknown"))
		return a
	case !d.Online:
		a.Note = i18n.TextOf(i18n.M("group.assign.note.offline"))
		return a
	case d.MessageModel == "BROADCASTING":
		a.Note = i18n.TextOf(i18n.M("group.assign.note.broadcasting"))
		return a
	case consumesByPop(d.ConsumeType):
		a.Note = i18n.TextOf(i18n.M("group.assign.note.pop"))
		return a
	}
	// A mixed group's gRPC clients (known to a Proxy only) pop from any queue: the
	// remoting clients share the queues among themselves.
	clients := slices.DeleteFunc(slices.Clone(d.Clients), func(c Client) bool { return c.via == "" })
	strategy, note := groupStrategy(clients)
	if strategy == "" {
		a.Note = note
		return a
	}
	a.Applicable, a.Strategy, a.Note = true, strategy, note

	cids := make([]string, 0, len(clients))
	for _, c := range clients {
		cids = append(cids, c.ClientID)
	}
	byTopic := map[string][]rocketmq.MessageQueue{}
	actual := map[rocketmq.MessageQueue][]string{}
	ownerUnknown := map[rocketmq.MessageQueue]bool{}
	for _, q := range d.Queues {
		if !subs[q.Topic] {
			continue // offsets left from a topic no longer subscribed
		}
		byTopic[q.Topic] = append(byTopic[q.Topic], q.Queue())
		if len(q.Owners) > 0 {
			actual[q.Queue()] = q.Owners
		} else if q.Owner != "" {
			actual[q.Queue()] = []string{q.Owner}
		}
		ownerUnknown[q.Queue()] = q.OwnerUnknown
	}
	holds := map[string]bool{}
	realQueues := 0
	for _, topic := range slices.Sorted(maps.Keys(byTopic)) {
		queues := byTopic[topic]
		expected, err := rocketmq.ExpectedAssignment(strategy, queues, cids)
		if err != nil { // groupStrategy picks only strategies the console computes
			a.Applicable, a.Note = false, i18n.TextOf(i18n.M("group.assign.note.uncomputable", "Strategy", strategy))
			return a
		}
		if !rocketmq.IsRetryTopic(topic) {
			realQueues += len(queues)
		}
		for _, mq := range queues {
			aq := AssignedQueue{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID,
				Expected: expected[mq], Actual: actual[mq]}
			if aq.Actual == nil {
				aq.Actual = []string{}
			}
			switch {
			case len(aq.Actual) == 0 && ownerUnknown[mq]:
				aq.Problem = ProblemUnknown
				a.OwnerUnknown++
			case len(aq.Actual) == 0:
				aq.Problem = ProblemUnowned
				a.Unowned++
			case len(aq.Actual) > 1:
				aq.Problem = ProblemOwnedTwice
				a.OwnedTwice++
			case aq.Actual[0] != aq.Expected:
				aq.Problem = ProblemDiffers
				a.Differs++
			}
			if !rocketmq.IsRetryTopic(topic) {
				for _, c := range aq.Actual {
					holds[c] = true
				}
			}
			a.Queues = append(a.Queues, aq)
		}
	}
	sort.SliceStable(a.Queues, func(i, j int) bool { return compareQueues(a.Queues[i].Queue(), a.Queues[j].Queue()) < 0 })
	for _, c := range clients {
		if !holds[c.ClientID] && c.RunningInfoError == nil {
			a.IdleClients = append(a.IdleClients, c.ClientID)
		}
	}
	a.MoreClientsThanQueues = realQueues > 0 && len(cids) > realQueues
	a.Matches = a.Unowned == 0 && a.OwnedTwice == 0 && a.Differs == 0 && a.OwnerUnknown == 0
	if !d.ownersKnown {
		a.Note = a.Note.And(i18n.M("group.assign.note.unreported"))
	}
	return a
}

// groupStrategy picks the allocation strategy the group's clients report. Clients of
// one group should all use the same; when they do not, the most common is used and the
// note says so. It returns "" when no reported strategy can be computed.
func groupStrategy(clients []Client) (string, i18n.Text) {
	count := map[string]int{}
	var uncomputable []string
	for _, c := range clients {
		if c.RunningInfoError != nil {
			continue
		}
		if c.Strategy == "" {
			uncomputable = append(uncomputable, c.StrategyProperty)
			continue
		}
		count[c.Strategy]++
	}
	if len(count) == 0 {
		if len(uncomputable) > 0 {
			return "", i18n.TextOf(i18n.M("group.assign.note.uncomputable", "Strategy", uncomputable[0]))
		}
		if len(clients) > 0 { // every client failed to report
			return "", i18n.TextOf(i18n.M("group.assign.note.noReports"))
		}
		return "", i18n.TextOf(i18n.M("group.assign.note.noStrategy"))
	}
	best := ""
	for _, st := range slices.Sorted(maps.Keys(count)) {
		if best == "" || count[st] > count[best] {
			best = st
		}
	}
	if len(count) > 1 || len(uncomputable) > 0 {
		return best, i18n.TextOf(i18n.M("group.assign.note.mixed", "Strategy", best))
	}
	return best, nil
}
