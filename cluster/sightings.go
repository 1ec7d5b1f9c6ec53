package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// The NameServer forgets a broker as soon as its connection closes (a killed process) or
// about two minutes after its last heartbeat (a frozen one, or one cut off), and from then
// on the broker is simply absent from the cluster info: a list built from that alone
// shrinks without a word. So each cluster info read is compared with the broker processes
// seen before; one that was listed and is missing now is gone, and every list names it,
// until it is listed again or DefaultForgetGone passes. This memory is the console's own:
// a console started after a broker left never knew it.

// processSeen is one broker process (a broker name and id) as the cluster info listed it.
type processSeen struct {
	broker, cluster string
	id              int64
	addr            string
	seenAt          time.Time // the last cluster info that listed it
	missingSince    time.Time // the first that did not; zero while listed
}

type processKey struct {
	broker string
	id     int64
}

// noteInfo compares a cluster info read at now with the processes seen before.
func (c *Cluster) noteInfo(ci *rocketmq.ClusterInfo, now time.Time) {
	clusterOf := map[string]string{}
	for cl, names := range ci.Clusters {
		for _, n := range names {
			clusterOf[n] = cl
		}
	}
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	listed := map[processKey]bool{}
	for name, bd := range ci.Brokers {
		for id, addr := range bd.Addrs {
			if addr == "" {
				continue
			}
			k := processKey{name, id}
			listed[k] = true
			cl := cmp.Or(clusterOf[name], bd.Cluster)
			c.procs[k] = &processSeen{broker: name, cluster: cl, id: id, addr: addr, seenAt: now}
		}
	}
	addrs := map[string]bool{}
	for k, p := range c.procs {
		switch {
		case listed[k]:
		case p.missingSince.IsZero():
			p.missingSince = now
		case now.Sub(p.missingSince) > c.opts.ForgetGone:
			delete(c.procs, k)
			continue
		}
		addrs[p.addr] = true
	}
	// How processes answered is kept only for the processes still known.
	c.answersMu.Lock()
	for addr := range c.answers {
		if !addrs[addr] {
			delete(c.answers, addr)
		}
	}
	c.answersMu.Unlock()
}

// GoneProcess is a broker process (a master or a slave) that an earlier cluster info
// listed and the last one does not: stopped, killed, or cut off from the NameServer.
type GoneProcess struct {
	Broker  string
	Cluster string
	ID      int64
	Addr    string
	// SeenAt is when a cluster info last listed it; Since when one first did not.
	SeenAt time.Time
	Since  time.Time
}

// Role is "master" for broker id 0, else "slave".
func (p GoneProcess) Role() string {
	if p.ID == 0 {
		return "master"
	}
	return "slave"
}

// Message says it for a page, in the reader's language.
func (p GoneProcess) Message() i18n.Message {
	return i18n.M("cluster.gone.process", "Broker", p.Broker, "Addr", p.Addr, "ID", p.ID,
		"SeenAt", stamp(p.SeenAt), "Since", stamp(p.Since))
}

// String is Message in English.
func (p GoneProcess) String() string { return p.Message().String() }

// GoneProcesses are the broker processes gone from the NameServer's cluster info since it
// was last read, sorted by broker name and id. Whole brokers among them are in Gone too.
func (c *Cluster) GoneProcesses() []GoneProcess {
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	var out []GoneProcess
	for _, p := range c.procs {
		if !p.missingSince.IsZero() {
			out = append(out, GoneProcess{Broker: p.broker, Cluster: p.cluster, ID: p.id, Addr: p.addr, SeenAt: p.seenAt, Since: p.missingSince})
		}
	}
	slices.SortFunc(out, func(a, b GoneProcess) int {
		return cmp.Or(cmp.Compare(a.Broker, b.Broker), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Gone are the broker names of which no process is left in the NameServer's cluster info
// since it was last read, though an earlier read listed them: whatever they hold (topics'
// queues, groups' offsets) is unknown, and lists name them instead of shrinking. Sorted
// by name.
func (c *Cluster) Gone() []GoneBroker {
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	byName := map[string]*GoneBroker{}
	listed := map[string]bool{}
	for _, p := range c.procs {
		if p.missingSince.IsZero() {
			listed[p.broker] = true
			continue
		}
		g := byName[p.broker]
		if g == nil {
			g = &GoneBroker{Name: p.broker}
			byName[p.broker] = g
		}
		if p.id == 0 || g.Addr == "" {
			g.Addr = p.addr
		}
		if p.seenAt.After(g.SeenAt) {
			g.SeenAt = p.seenAt
		}
		if p.missingSince.After(g.Since) {
			g.Since = p.missingSince
		}
	}
	var out []GoneBroker
	for name, g := range byName {
		if !listed[name] {
			out = append(out, *g)
		}
	}
	slices.SortFunc(out, func(a, b GoneBroker) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// answerLog is how one broker process answered the console's requests.
type answerLog struct {
	lastAnswer time.Time // zero: never answered
	lastSilent time.Time // zero: always answered
	silent     uint64    // requests it did not answer
}

// noteAnswer records how addr of broker took a request: an answer, even an error code or
// a refusal, means the process is up; no connection or no answer in time means it is not.
// Errors of the console's own making (a call not made) say nothing of the process, nor do
// calls that are not a broker's own (a client's running info, which the broker relays and
// which the fan-out names by the client).
func (c *Cluster) noteAnswer(broker, addr string, err error) {
	var be *rocketmq.BrokerError
	var ae *rocketmq.AccessError
	answered := err == nil || errors.As(err, &be) || errors.As(err, &ae)
	if (!answered && !unanswered(err)) || !c.isProcess(broker, addr) {
		return
	}
	now := c.opts.Now()
	c.answersMu.Lock()
	defer c.answersMu.Unlock()
	l := c.answers[addr]
	if l == nil {
		l = &answerLog{}
		c.answers[addr] = l
	}
	if answered {
		l.lastAnswer = now
		return
	}
	l.lastSilent = now
	l.silent++
}

// isProcess reports whether the cluster info listed a process of broker at addr.
func (c *Cluster) isProcess(broker, addr string) bool {
	c.procsMu.Lock()
	defer c.procsMu.Unlock()
	for k, p := range c.procs {
		if k.broker == broker && p.addr == addr {
			return true
		}
	}
	return false
}

// ProcessHealth is one broker process: whether the NameServer lists it, and how it
// answered the console's own requests (every broker call of every page, list and the
// background lag collector goes through the cluster layer).
type ProcessHealth struct {
	Broker string
	ID     int64
	Addr   string
	// Registered: the last cluster info lists it; false for a process gone from it.
	Registered bool
	// Known: it was asked since the console started, or it is gone; Up says nothing
	// otherwise.
	Known bool
	// Up: the last request got an answer (an error code is an answer); false when it got
	// none (no connection, no answer in time) or the process is gone.
	Up bool
	// LastAnswer is when it last answered; zero when it never did.
	LastAnswer time.Time
	// Unanswered counts the requests it did not answer.
	Unanswered uint64
}

// Processes are every broker process the console knows, listed or gone, with how they
// answered, sorted by broker name and id. It calls no one: it reads what the last cluster
// info and the requests since said.
func (c *Cluster) Processes() []ProcessHealth {
	c.procsMu.Lock()
	ps := make([]ProcessHealth, 0, len(c.procs))
	for _, p := range c.procs {
		ps = append(ps, ProcessHealth{Broker: p.broker, ID: p.id, Addr: p.addr, Registered: p.missingSince.IsZero()})
	}
	c.procsMu.Unlock()
	c.answersMu.Lock()
	for i := range ps {
		p := &ps[i]
		l := c.answers[p.Addr]
		p.Known = !p.Registered
		if l != nil {
			p.Known = true
			p.LastAnswer, p.Unanswered = l.lastAnswer, l.silent
			p.Up = p.Registered && !l.lastAnswer.IsZero() && !l.lastAnswer.Before(l.lastSilent)
		}
	}
	c.answersMu.Unlock()
	slices.SortFunc(ps, func(a, b ProcessHealth) int {
		return cmp.Or(cmp.Compare(a.Broker, b.Broker), cmp.Compare(a.ID, b.ID))
	})
	return ps
}

// Missing returns the brokers gone from the cluster as failures of op, for lists that
// name every broker whose part is missing from their answer.
func (c *Cluster) Missing(op string) []BrokerFailure {
	var out []BrokerFailure
	for _, g := range c.Gone() {
		out = append(out, g.Failure("", op))
	}
	return out
}

// stamp is a time in the sentences of gone brokers: with its date, since the console
// names a gone broker for a day.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// goneSentence is the cluster-level sentence of a gone broker, in English.
func goneSentence(g GoneBroker) string {
	return fmt.Sprintf("was in the cluster at %s and is missing from the NameServer's cluster info since %s: "+
		"stopped, killed, or cut off from the NameServer for over two minutes, so what it holds is unknown",
		stamp(g.SeenAt), stamp(g.Since))
}
