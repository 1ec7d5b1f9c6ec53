package rocketmq

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Queue permission bits (PermName).
const (
	PermRead  = 4
	PermWrite = 2
)

// BrokerData is one broker group: a name and the addresses of its members
// by broker id (0 is the master).
type BrokerData struct {
	Cluster            string           `json:"cluster"`
	BrokerName         string           `json:"brokerName"`
	Addrs              map[int64]string `json:"brokerAddrs"`
	ZoneName           string           `json:"zoneName,omitempty"`           // 5.x
	EnableActingMaster bool             `json:"enableActingMaster,omitempty"` // 5.x
}

// MasterAddr returns the master's address (broker id 0). A 5.x group under
// controller mode can lack id 0 for a while; then the member with the
// smallest id stands in, as Java clients do. ok is false for a group with no
// address at all.
func (b BrokerData) MasterAddr() (addr string, ok bool) {
	if a, ok := b.Addrs[0]; ok && a != "" {
		return a, true
	}
	ids := make([]int64, 0, len(b.Addrs))
	for id := range b.Addrs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if a := b.Addrs[id]; a != "" {
			return a, true
		}
	}
	return "", false
}

// ClusterInfo is the NameServer's view of the clusters (GET_BROKER_CLUSTER_INFO).
type ClusterInfo struct {
	// Brokers maps broker name to the broker group.
	Brokers map[string]BrokerData `json:"brokerAddrTable"`
	// Clusters maps cluster name to its broker names.
	Clusters map[string][]string `json:"clusterAddrTable"`
}

// BrokerNames returns every broker name, sorted.
func (ci *ClusterInfo) BrokerNames() []string { return sortedKeys(ci.Brokers) }

// ClusterInfo asks a NameServer for every cluster and broker it knows.
func (c *Client) ClusterInfo(ctx context.Context) (*ClusterInfo, error) {
	resp, err := c.callNameServer(ctx, CodeGetBrokerClusterInfo, nil)
	if err != nil {
		return nil, fmt.Errorf("cluster info: %w", err)
	}
	ci, err := decodeClusterInfo(resp)
	if err != nil {
		return nil, fmt.Errorf("cluster info: %w", err)
	}
	return ci, nil
}

// decodeClusterInfo reads a GET_BROKER_CLUSTER_INFO answer, each cluster's brokers sorted.
func decodeClusterInfo(resp *command) (*ClusterInfo, error) {
	var ci ClusterInfo
	if err := decodeBody(resp.Body, &ci); err != nil {
		return nil, err
	}
	for _, names := range ci.Clusters {
		sort.Strings(names)
	}
	return &ci, nil
}

// TopicList returns the name of every topic the NameServer knows, system,
// %RETRY% and %DLQ% topics included, sorted.
func (c *Client) TopicList(ctx context.Context) ([]string, error) {
	resp, err := c.callNameServer(ctx, CodeGetAllTopicListFromNameSrv, nil)
	if err != nil {
		return nil, fmt.Errorf("topic list: %w", err)
	}
	var tl struct {
		TopicList []string `json:"topicList"`
	}
	if err := decodeBody(resp.Body, &tl); err != nil {
		return nil, fmt.Errorf("topic list: %w", err)
	}
	sort.Strings(tl.TopicList)
	return tl.TopicList, nil
}

// QueueData is a topic's queue configuration on one broker group.
type QueueData struct {
	BrokerName     string `json:"brokerName"`
	ReadQueueNums  int    `json:"readQueueNums"`
	WriteQueueNums int    `json:"writeQueueNums"`
	Perm           int    `json:"perm"`
	TopicSysFlag   int    `json:"topicSysFlag"`
}

// TopicQueueMappingInfo describes a 5.x static topic's logical queues on one
// broker.
type TopicQueueMappingInfo struct {
	Topic       string      `json:"topic"`
	Scope       string      `json:"scope"`
	TotalQueues int         `json:"totalQueues"`
	BrokerName  string      `json:"bname"`
	Epoch       int64       `json:"epoch"`
	Dirty       bool        `json:"dirty"`
	CurrIDMap   map[int]int `json:"currIdMap"`
}

// TopicRoute is where a topic lives (GET_ROUTEINFO_BY_TOPIC).
type TopicRoute struct {
	Topic          string                           `json:"-"`
	OrderTopicConf string                           `json:"orderTopicConf,omitempty"`
	QueueDatas     []QueueData                      `json:"queueDatas"`
	BrokerDatas    []BrokerData                     `json:"brokerDatas"`
	FilterServers  map[string][]string              `json:"filterServerTable,omitempty"`
	QueueMappings  map[string]TopicQueueMappingInfo `json:"topicQueueMappingByBroker,omitempty"` // 5.x static topics
}

// ReadQueues returns the topic's readable queues (readQueueNums per broker
// with read permission) in Java's MessageQueue order: the queues consumers
// share out and offsets exist for.
func (r *TopicRoute) ReadQueues() []MessageQueue {
	var out []MessageQueue
	for _, qd := range r.QueueDatas {
		if qd.Perm&PermRead == 0 {
			continue
		}
		for i := 0; i < qd.ReadQueueNums; i++ {
			out = append(out, MessageQueue{Topic: r.Topic, BrokerName: qd.BrokerName, QueueID: i})
		}
	}
	SortMessageQueues(out)
	return out
}

// Broker returns the broker group of that name.
func (r *TopicRoute) Broker(brokerName string) (BrokerData, bool) {
	for _, b := range r.BrokerDatas {
		if b.BrokerName == brokerName {
			return b, true
		}
	}
	return BrokerData{}, false
}

// MasterAddr returns the master address of a broker group of the route.
func (r *TopicRoute) MasterAddr(brokerName string) (string, bool) {
	b, ok := r.Broker(brokerName)
	if !ok {
		return "", false
	}
	return b.MasterAddr()
}

// MasterAddrs returns the master address of every broker group of the
// route, by broker name.
func (r *TopicRoute) MasterAddrs() map[string]string {
	out := make(map[string]string, len(r.BrokerDatas))
	for _, b := range r.BrokerDatas {
		if a, ok := b.MasterAddr(); ok {
			out[b.BrokerName] = a
		}
	}
	return out
}

// TopicRoute returns the topic's route. Routes are cached for
// Config.RouteTTL (a few seconds) and shared by concurrent callers; a topic
// the NameServer does not know gives an error matching ErrTopicNotFound.
// The returned route must not be modified.
func (c *Client) TopicRoute(ctx context.Context, topic string) (*TopicRoute, error) {
	if c.routeTTL > 0 {
		c.routeMu.Lock()
		cr, ok := c.routes[topic]
		c.routeMu.Unlock()
		if ok && time.Now().Before(cr.expires) {
			return cr.route, nil
		}
	}
	resp, err := c.callNameServer(ctx, CodeGetRouteInfoByTopic, map[string]string{
		"topic":                  topic,
		"acceptStandardJsonOnly": "true",
	})
	if err != nil {
		c.InvalidateRoute(topic)
		return nil, fmt.Errorf("route of topic %q: %w", topic, err)
	}
	r := &TopicRoute{Topic: topic}
	if err := decodeBody(resp.Body, r); err != nil {
		return nil, fmt.Errorf("route of topic %q: %w", topic, err)
	}
	sort.Slice(r.QueueDatas, func(i, j int) bool { return r.QueueDatas[i].BrokerName < r.QueueDatas[j].BrokerName })
	sort.Slice(r.BrokerDatas, func(i, j int) bool { return r.BrokerDatas[i].BrokerName < r.BrokerDatas[j].BrokerName })
	if c.routeTTL > 0 {
		c.routeMu.Lock()
		c.routes[topic] = cachedRoute{route: r, expires: time.Now().Add(c.routeTTL)}
		c.routeMu.Unlock()
	}
	return r, nil
}

// InvalidateRoute forgets the cached route of a topic, so the next
// TopicRoute asks the NameServer again. Broker operations on a topic call
// it themselves when a broker cannot be reached or no longer has the topic.
func (c *Client) InvalidateRoute(topic string) {
	c.routeMu.Lock()
	delete(c.routes, topic)
	c.routeMu.Unlock()
}

// invalidateOnError drops the topic's route after errors that suggest it is
// stale: a broker that cannot be reached or that does not know the topic.
func (c *Client) invalidateOnError(topic string, err error) {
	if err == nil || topic == "" {
		return
	}
	var ce *ConnError
	var te *TimeoutError
	if errors.As(err, &ce) || errors.As(err, &te) || errors.Is(err, ErrTopicNotFound) {
		c.InvalidateRoute(topic)
	}
}
