package cluster

import (
	"time"

	"rmqconsole/rocketmq"
)

// maxSeenGroups bounds the memory of online clients: far more groups than a cluster has.
const maxSeenGroups = 200_000

// SeenConsumers is a consumer group's online clients as a broker listed them (the
// connection list) at At. Conns is nil when no client was online.
type SeenConsumers struct {
	Conns *rocketmq.ConsumerConnection
	// Proxy is the remoting address of the Proxy that listed the clients when no
	// broker knew them (gRPC clients); "" when a broker listed them.
	Proxy string
	At    time.Time
}

// Online reports whether a client was connected.
func (s SeenConsumers) Online() bool { return s.Conns != nil && len(s.Conns.Connections) > 0 }

// Consumers returns the last connection list noted for group, however old.
//
// Listing a group's clients is one request per group: the only broker request that
// answers for every group at once (GET_BROKER_CONSUME_STATS) says nothing of clients.
// Services that show many groups (the group list, a message's consumers) ask for a
// bounded number per request and remember the answers here, so each page and the other
// services start from what was last seen.
func (c *Cluster) Consumers(group string) (SeenConsumers, bool) {
	c.consumersMu.Lock()
	defer c.consumersMu.Unlock()
	s, ok := c.consumers[group]
	return s, ok
}

// NoteConsumers remembers a group's connection list (nil: no client online), read at at.
func (c *Cluster) NoteConsumers(group string, conns *rocketmq.ConsumerConnection, at time.Time) {
	c.NoteSeen(group, SeenConsumers{Conns: conns, At: at})
}

// NoteSeen remembers a group's clients as s says (a Proxy's list, for gRPC clients).
func (c *Cluster) NoteSeen(group string, s SeenConsumers) {
	at := s.At
	c.consumersMu.Lock()
	defer c.consumersMu.Unlock()
	if old, ok := c.consumers[group]; ok && old.At.After(at) {
		return
	}
	if _, ok := c.consumers[group]; !ok && len(c.consumers) >= maxSeenGroups {
		for g := range c.consumers { // forget any one: a cluster never has this many groups
			delete(c.consumers, g)
			break
		}
	}
	c.consumers[group] = s
}
