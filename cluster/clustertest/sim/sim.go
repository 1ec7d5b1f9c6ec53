// Package sim is a RocketMQ cluster of any size, simulated: up to 64 brokers, 100 000
// consumer groups and 50 000 topics answering the console's requests, without storing
// them. Every answer is computed when asked from the cluster's Shape and formulas over
// the names (which broker a topic lives on, how fast it grows, how far each group lags),
// so the simulation's memory does not grow with the cluster and the same request gets
// the same answer, moving only as time passes (offsets grow at each topic's put rate).
//
// It implements clustertest.Answers; clustertest.Remoting serves it to the real console
// over RocketMQ remoting (see dev/cmd/rmqfake).
//
// The make-up, in RocketMQ's words: the brokers form clusters of BrokersPerCluster
// brokers; a topic is created on every broker of one cluster (as `mqadmin updateTopic -c`
// does), topic i on cluster i mod the cluster count, with QueuesPerBroker queues on each.
// Group j consumes topic j mod Topics and has its subscription group on that topic's
// brokers; the first HotGroups groups also consume the hot topic (on the first cluster),
// a topic many groups share, as a message page at its worst sees. Every OnlineEvery-th
// group has ClientsPerGroup rocketmq-client-go clients online, holding its queues by the
// default allocation, with a retry topic of one queue per broker. Brokers also carry the
// system topics and groups a 5.3.3 broker creates for itself.
package sim

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

// Shape is the size and make-up of a simulated cluster. Zero fields take the defaults.
type Shape struct {
	Brokers           int
	BrokersPerCluster int // default 4
	Topics            int
	Groups            int
	QueuesPerBroker   int // default 4
	// HotGroups consume the hot topic besides their own; default Groups/10.
	HotGroups int
	// OnlineEvery: every OnlineEvery-th group is online (default 4).
	OnlineEvery     int
	ClientsPerGroup int // default 2
	// Prefix starts every name: <prefix>-topic-00000, <prefix>-group-000000, <prefix>-hot.
	Prefix string // default "scale"
}

func (s Shape) withDefaults() Shape {
	if s.Brokers <= 0 {
		s.Brokers = 1
	}
	if s.BrokersPerCluster <= 0 {
		s.BrokersPerCluster = 4
	}
	if s.QueuesPerBroker <= 0 {
		s.QueuesPerBroker = 4
	}
	if s.Topics <= 0 {
		s.Topics = 1
	}
	if s.HotGroups <= 0 {
		s.HotGroups = s.Groups / 10
	}
	s.HotGroups = min(s.HotGroups, s.Groups)
	if s.OnlineEvery <= 0 {
		s.OnlineEvery = 4
	}
	if s.ClientsPerGroup <= 0 {
		s.ClientsPerGroup = 2
	}
	if s.Prefix == "" {
		s.Prefix = "scale"
	}
	return s
}

// String names the shape as the benchmarks print it.
func (s Shape) String() string {
	s = s.withDefaults()
	return fmt.Sprintf("%dx%dgx%dt", s.Brokers, s.Groups, s.Topics)
}

// Cluster is a simulated cluster. It is safe for concurrent use; nothing in it changes
// after New.
type Cluster struct {
	shape    Shape
	clusters int
	addrs    []string // broker i's master address
	byAddr   map[string]int
	born     time.Time // when every queue started filling
	now      func() time.Time
}

var _ clustertest.Answers = (*Cluster)(nil)

// New returns a cluster of shape whose brokers listen at addrs (one per broker, in
// order; see clustertest.Remoting.Listen).
func New(shape Shape, addrs []string) *Cluster {
	shape = shape.withDefaults()
	if len(addrs) != shape.Brokers {
		panic(fmt.Sprintf("sim: %d broker addresses for %d brokers", len(addrs), shape.Brokers))
	}
	c := &Cluster{shape: shape, addrs: addrs, byAddr: map[string]int{}, now: time.Now,
		clusters: (shape.Brokers + shape.BrokersPerCluster - 1) / shape.BrokersPerCluster}
	for i, a := range addrs {
		c.byAddr[a] = i
	}
	c.born = c.now().Add(-7 * 24 * time.Hour).Truncate(time.Second)
	return c
}

// Shape is the cluster's shape, defaults filled in.
func (c *Cluster) Shape() Shape { return c.shape }

// ---- names ------------------------------------------------------------------------------

// hot is the hot topic's index: one past the last topic.
func (c *Cluster) hot() int { return c.shape.Topics }

// TopicName is topic i's name (i == Topics: the hot topic).
func (c *Cluster) TopicName(i int) string {
	if i == c.hot() {
		return c.shape.Prefix + "-hot"
	}
	return fmt.Sprintf("%s-topic-%05d", c.shape.Prefix, i)
}

// GroupName is group j's name.
func (c *Cluster) GroupName(j int) string { return fmt.Sprintf("%s-group-%06d", c.shape.Prefix, j) }

// BrokerName is broker i's name.
func BrokerName(i int) string { return fmt.Sprintf("broker-%03d", i) }

// ClusterName is cluster k's name.
func ClusterName(k int) string { return fmt.Sprintf("cluster-%02d", k) }

func (c *Cluster) topicIndex(name string) (int, bool) {
	if name == c.shape.Prefix+"-hot" {
		return c.hot(), true
	}
	s, ok := strings.CutPrefix(name, c.shape.Prefix+"-topic-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0 && i < c.shape.Topics && c.TopicName(i) == name
}

func (c *Cluster) groupIndex(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, c.shape.Prefix+"-group-")
	if !ok {
		return 0, false
	}
	j, err := strconv.Atoi(s)
	return j, err == nil && j >= 0 && j < c.shape.Groups && c.GroupName(j) == name
}

func brokerIndex(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "broker-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && BrokerName(i) == name
}

// ---- placement --------------------------------------------------------------------------

func (c *Cluster) clusterOfBroker(b int) int { return b / c.shape.BrokersPerCluster }

// clusterOfTopic: topic i lives on cluster i mod clusters; the hot topic on the first.
func (c *Cluster) clusterOfTopic(i int) int {
	if i == c.hot() {
		return 0
	}
	return i % c.clusters
}

func (c *Cluster) topicOn(i, b int) bool { return c.clusterOfTopic(i) == c.clusterOfBroker(b) }

// brokersOfCluster are the broker indexes of cluster k.
func (c *Cluster) brokersOfCluster(k int) []int {
	var out []int
	for b := k * c.shape.BrokersPerCluster; b < min((k+1)*c.shape.BrokersPerCluster, c.shape.Brokers); b++ {
		out = append(out, b)
	}
	return out
}

// ownTopic is the topic group j consumes; hot reports whether it consumes the hot one too.
func (c *Cluster) ownTopic(j int) int  { return j % c.shape.Topics }
func (c *Cluster) hotGroup(j int) bool { return j < c.shape.HotGroups }
func (c *Cluster) online(j int) bool   { return j%c.shape.OnlineEvery == 0 }

// topicsOf are the topics group j consumes (retry topic aside).
func (c *Cluster) topicsOf(j int) []int {
	if c.hotGroup(j) {
		return []int{c.ownTopic(j), c.hot()}
	}
	return []int{c.ownTopic(j)}
}

// groupOn reports whether group j has its subscription group on broker b: on the brokers
// of the topics it consumes.
func (c *Cluster) groupOn(j, b int) bool {
	return c.topicOn(c.ownTopic(j), b) || (c.hotGroup(j) && c.topicOn(c.hot(), b))
}

// eachGroupOn calls f with every group on broker b, in order.
func (c *Cluster) eachGroupOn(b int, f func(j int)) {
	for j := range c.shape.Groups {
		if c.groupOn(j, b) {
			f(j)
		}
	}
}

// consumers are the groups of topic i, in order.
func (c *Cluster) consumers(i int) []int {
	var out []int
	if i == c.hot() {
		for j := range c.shape.HotGroups {
			out = append(out, j)
		}
		return out
	}
	for j := i; j < c.shape.Groups; j += c.shape.Topics {
		out = append(out, j)
	}
	return out
}

// ---- the queues: formulas over time -------------------------------------------------------

// splitmix is a fixed hash of the numbers that name a thing, so every answer about it is
// the same each time.
func splitmix(vs ...int) uint64 {
	var x uint64 = 0x9E3779B97F4A7C15
	for _, v := range vs {
		x ^= uint64(v) + 0x9E3779B97F4A7C15 + (x << 6) + (x >> 2)
		x ^= x >> 30
		x *= 0xBF58476D1CE4E5B9
		x ^= x >> 27
		x *= 0x94D049BB133111EB
		x ^= x >> 31
	}
	return x
}

// rate is how many messages per second each queue of topic i gets: most topics are
// quiet, some busy; the hot topic is busy.
func (c *Cluster) rate(i int) float64 {
	if i == c.hot() {
		return 10
	}
	return [...]float64{0.001, 0.01, 0.1, 1, 10}[splitmix(i)%5]
}

// maxOffset is the queue's max offset now: every message put since born at the topic's
// rate. Queues are indexed by topic, broker and queue id; retry topics hold nothing.
func (c *Cluster) maxOffset(i int, now time.Time) int64 {
	return int64(now.Sub(c.born).Seconds() * c.rate(i))
}

// storeTime is when the message at offset o of a queue of topic i was stored (epoch ms).
func (c *Cluster) storeTime(i int, o int64) int64 {
	return c.born.UnixMilli() + int64(float64(o)*1000/c.rate(i))
}

// lag is how many messages group j has not consumed in a queue: most queues are caught
// up or nearly, one in five lags by up to 5 000.
func (c *Cluster) lag(j, i, b, q int) int64 {
	h := splitmix(j, i, b, q)
	if h%5 != 0 {
		return int64(h % 3)
	}
	return int64((h >> 8) % 5000)
}

// consumerOffset is group j's committed offset on a queue of topic i.
func (c *Cluster) consumerOffset(j, i, b, q int, now time.Time) int64 {
	return max(0, c.maxOffset(i, now)-c.lag(j, i, b, q))
}

func (c *Cluster) queue(i, b, q int) rocketmq.MessageQueue {
	return rocketmq.MessageQueue{Topic: c.TopicName(i), BrokerName: BrokerName(b), QueueID: q}
}

// clientIDs are the ids of group j's clients, sorted.
func (c *Cluster) clientIDs(j int) []string {
	if !c.online(j) {
		return nil
	}
	out := make([]string, c.shape.ClientsPerGroup)
	for k := range out {
		out[k] = fmt.Sprintf("10.%d.%d.%d@%d", j>>16&255, j>>8&255, j&255, k+1)
	}
	return out
}

// ---- messages ----------------------------------------------------------------------------

// commitLogOffset is where the message at offset o of a queue sits in its broker's commit
// log; it names the topic, queue and offset, so a message is read back from it alone.
// It stays below 2^52, which the console takes for a commit-log offset rather than a
// unique key's bytes: 16 bits of topic, 8 of queue, 24 of queue offset (a week at the
// busiest rate is 6 million).
func commitLogOffset(i, q int, o int64) int64 { return int64(i+1)<<32 | int64(q)<<24 | o }

func splitCommitLogOffset(clo int64) (i, q int, o int64) {
	return int(clo>>32) - 1, int(clo >> 24 & 0xFF), clo & 0xFFFFFF
}

// message is the message at offset o of a queue of topic i on broker b.
func (c *Cluster) message(i, b, q int, o int64) *rocketmq.Message {
	topic := c.TopicName(i)
	stored := c.storeTime(i, o)
	body := fmt.Sprintf(`{"orderId":%d,"topic":%q,"queue":%d,"note":"a simulated message of a simulated cluster"}`, o, topic, q)
	uniq := fmt.Sprintf("0A000001%08X%016X", splitmix(i, b, q)&0xFFFFFFFF, uint64(stored)<<16|uint64(o&0xFFFF))
	return &rocketmq.Message{
		Topic: topic, QueueID: q, QueueOffset: o, CommitLogOffset: commitLogOffset(i, q, o),
		BornTimestamp: stored - 3, StoreTimestamp: stored,
		BornHost:  netip.MustParseAddrPort("10.0.0.9:40000"),
		StoreHost: netip.MustParseAddrPort(c.addrs[b]),
		Properties: map[string]string{rocketmq.PropertyTags: "TagA", rocketmq.PropertyKeys: "order-" + strconv.FormatInt(o, 10),
			rocketmq.PropertyUniqueKey: uniq, "CLUSTER": ClusterName(c.clusterOfBroker(b)), "MSG_REGION": "DefaultRegion", "TRACE_ON": "true"},
		Body: []byte(body),
	}
}

// MessageID is the offsetMsgId of the message at offset o of queue q of topic i (Topics:
// the hot topic) on broker b.
func (c *Cluster) MessageID(i, b, q int, o int64) string {
	return rocketmq.OffsetMsgID{StoreHost: netip.MustParseAddrPort(c.addrs[b]), CommitLogOffset: commitLogOffset(i, q, o)}.String()
}

// HotMessageID is the offsetMsgId of a message of the hot topic stored an hour ago.
func (c *Cluster) HotMessageID() string {
	return c.MessageID(c.hot(), 0, 0, c.maxOffset(c.hot(), c.now())-36000)
}

// HotTopic is the hot topic's name.
func (c *Cluster) HotTopic() string { return c.TopicName(c.hot()) }

// OnlineGroup is the name of a group with clients online.
func (c *Cluster) OnlineGroup() string { return c.GroupName(0) }

// brokerAt is the broker listening at addr.
func (c *Cluster) brokerAt(addr string) (int, error) {
	b, ok := c.byAddr[addr]
	if !ok {
		return 0, &rocketmq.ConnError{Addr: addr, Err: fmt.Errorf("no simulated broker listens there")}
	}
	return b, nil
}
