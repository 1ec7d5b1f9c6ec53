package groups

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// ClientInfo is one client of a group as it reports itself (GET_CONSUMER_RUNNING_INFO,
// relayed by a broker it is connected to): its settings, subscriptions, every process
// queue it holds, its rates per topic, and a thread dump when asked.
type ClientInfo struct {
	Group      string `json:"group"`
	ClientID   string `json:"clientId"`
	ClientAddr string `json:"clientAddr"`
	Language   string `json:"language"`
	Version    string `json:"version"`
	// Protocol is remoting or gRPC; KnownTo says who listed the client: "broker", or
	// "Proxy <address>" for a client only a Proxy knows.
	Protocol string `json:"protocol"`
	KnownTo  string `json:"knownTo"`
	// ConsumeType, MessageModel and ConsumeFromWhere are the group's, as the broker
	// (or Proxy) that lists the client has them.
	ConsumeType      string `json:"consumeType"`
	MessageModel     string `json:"messageModel"`
	ConsumeFromWhere string `json:"consumeFromWhere,omitempty"`
	// ConsumeMode is orderly or concurrent; "" when the client did not say.
	ConsumeMode string `json:"consumeMode,omitempty"`
	// StartedAt is when the client started (epoch ms; 0 when it did not say).
	StartedAt int64 `json:"startedAt,omitempty"`
	// Settings are the properties operators look for, in a fixed order, each with the
	// value the client reported ("" when it reported none).
	Settings []ClientSetting `json:"settings"`
	// Properties is everything the client reported, as it spelled it.
	Properties    map[string]string `json:"properties"`
	Subscriptions []Subscription    `json:"subscriptions"`
	Queues        []ProcessQueue    `json:"queues"`
	// PopQueues are the queues a 5.x POP consumer reads.
	PopQueues []PopQueue     `json:"popQueues,omitempty"`
	Topics    []TopicConsume `json:"topics"`
	// HiddenTopics counts the topics left out because the caller's rights do not let
	// them read their metadata (set by the console as it answers; 0 otherwise).
	HiddenTopics int `json:"hiddenTopics,omitempty"`
	// Jstack is the thread (Java) or goroutine (Go) dump, when asked for and sent.
	JstackAsked bool   `json:"jstackAsked"`
	Jstack      string `json:"jstack,omitempty"`
	// JstackWithheld: the dump was sent but names a topic left out by the caller's
	// rights, so it is not shown.
	JstackWithheld bool `json:"jstackWithheld,omitempty"`
	// Unavailable says why the client's own report could not be read (a gRPC client
	// behind a Proxy, a client that left); everything from the report is then empty.
	Unavailable i18n.Text `json:"unavailable,omitempty"`
	CheckedAt   time.Time `json:"checkedAt"`
}

// ClientSetting is one reported setting: its name and what it means, and the value the
// client reported (empty when it reported none), explained where the console knows more
// than the raw value says.
type ClientSetting struct {
	Name    i18n.Text `json:"name"`
	Meaning i18n.Text `json:"meaning"`
	Value   i18n.Text `json:"value"`
	// Property is the property the value came from.
	Property string `json:"property,omitempty"`
}

// ProcessQueue is a client's state for one queue it holds (its ProcessQueueInfo).
type ProcessQueue struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int    `json:"queueId"`
	rocketmq.ProcessQueueInfo
}

// PopQueue is a POP consumer's state for one queue.
type PopQueue struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int    `json:"queueId"`
	rocketmq.PopProcessQueueInfo
}

// TopicConsume is a client's rates for one topic.
type TopicConsume struct {
	Topic string `json:"topic"`
	rocketmq.ConsumeStatus
}

// ClientNotFound is the error of a client no broker or Proxy lists in the group
// (fault.NotFound, reason client_not_found).
func ClientNotFound(group, clientID string) error {
	return fault.New(fault.NotFound, "client.error.notFound", "Client", clientID, "Group", group).Because("client_not_found")
}

// clientSettings are the settings the client page names (client.setting.<id> in the
// catalogues, with .meaning where one is said), with the properties Java clients report
// them under (every field of DefaultMQPushConsumer) and Go's PROP_ ones.
var clientSettings = []struct {
	id      string
	meaning bool
	props   []string
}{
	{"listener", true, []string{"messageListener", "PROP_CONSUMEORDERLY"}},
	{"threadsMin", true, []string{"consumeThreadMin", "PROP_THREADPOOL_CORE_SIZE"}},
	{"threadsMax", false, []string{"consumeThreadMax"}},
	{"pullBatch", true, []string{"pullBatchSize"}},
	{"consumeBatch", true, []string{"consumeMessageBatchMaxSize"}},
	{"pullThreshold", true, []string{"pullThresholdForQueue"}},
	{"consumeFrom", true, []string{"consumeFromWhere"}},
	{"strategy", false, []string{"allocateMessageQueueStrategy"}},
	{"model", false, []string{"messageModel"}},
	{"maxReconsume", true, []string{"maxReconsumeTimes"}},
	{"timeout", false, []string{"consumeTimeout"}},
	{"type", false, []string{"PROP_CONSUME_TYPE"}},
}

// clientSetting is one setting of clientSettings as the client reported it.
func clientSetting(id string, meaning bool, props []string, reported map[string]string) ClientSetting {
	set := ClientSetting{Name: i18n.TextOf(i18n.M("client.setting." + id))}
	if meaning {
		set.Meaning = i18n.TextOf(i18n.M("client.setting." + id + ".meaning"))
	}
	for _, p := range props {
		if v, ok := reported[p]; ok && v != "" {
			set.Value, set.Property = i18n.TextOf(i18n.Plain(v)), p
			break
		}
	}
	v := reported[set.Property]
	switch {
	case set.Property == "PROP_CONSUMEORDERLY" && v == "true":
		set.Value = i18n.TextOf(i18n.M("client.setting.listener.orderly"))
	case set.Property == "PROP_CONSUMEORDERLY" && v == "false":
		set.Value = i18n.TextOf(i18n.M("client.setting.listener.concurrently"))
	case set.Property == "PROP_CONSUMEORDERLY":
		set.Value = nil // neither: not a listener the console can name
	case set.Property == "PROP_THREADPOOL_CORE_SIZE" && v == "-1":
		set.Value = i18n.TextOf(i18n.M("client.setting.threadsMin.goroutines"))
	}
	return set
}

// Client reads one client's running info, with a thread dump when jstack is set. A
// client no broker lists is fault.NotFound; a client that is listed but does not
// answer is a ClientInfo with Unavailable saying why.
func (s *Service) Client(ctx context.Context, group, clientID string, jstack bool) (*ClientInfo, error) {
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, clusterUnavailable(err)
	}
	ci := &ClientInfo{Group: group, ClientID: clientID, JstackAsked: jstack, CheckedAt: s.opts.Now(),
		Settings: []ClientSetting{}, Properties: map[string]string{}, Subscriptions: []Subscription{}, Queues: []ProcessQueue{}, Topics: []TopicConsume{}}
	fo := s.cluster.Fanout(ctx)
	conns := cluster.Each(fo, brokers, "connections", func(ctx context.Context, addr string) (*rocketmq.ConsumerConnection, error) {
		cc, err := s.admin.ConsumerConnections(ctx, addr, group)
		if notThere(err) {
			return nil, nil
		}
		return cc, err
	})
	failures := fo.Wait()
	via := ""
	for i, cc := range conns {
		if cc == nil {
			continue
		}
		for _, cn := range cc.Connections {
			if cn.ClientID == clientID && via == "" {
				via = brokers[i].Master
				ci.ClientAddr, ci.Language = cn.ClientAddr, cn.Language
				ci.Version, ci.Protocol, ci.KnownTo = cn.VersionName(), ProtocolRemoting, KnownToBroker
				ci.ConsumeType, ci.MessageModel, ci.ConsumeFromWhere = ConsumeTypeName(cc.ConsumeType), cc.MessageModel, cc.ConsumeFromWhere
			}
		}
	}
	if via == "" && s.fromProxies(ctx, ci) {
		return ci, nil
	}
	if via == "" {
		if len(failures) == len(brokers) && len(failures) > 0 {
			return nil, failures[0] // no broker listed the clients: as in List
		}
		return nil, ClientNotFound(group, clientID)
	}
	info, err := s.admin.ConsumerRunningInfo(ctx, via, group, clientID, jstack)
	if err != nil {
		ci.Unavailable = unavailableReason(ci, err, s.cluster.Release4(ctx, s.admin))
		return ci, nil
	}
	ci.fill(info)
	s.modes.remember(group, ci.ConsumeMode, ci.CheckedAt)
	return ci, nil
}

// fromProxies fills ci from the Proxy that lists the client, when no broker does: a
// gRPC client of a cluster-mode Proxy, or a remoting client connected through a Proxy.
// Neither can be asked for its running info.
func (s *Service) fromProxies(ctx context.Context, ci *ClientInfo) bool {
	proxied, _ := s.cluster.ProxyConsumers(ctx, s.admin, ci.Group)
	for _, pc := range proxied {
		cc := pc.Conns
		for _, cn := range cc.Connections {
			if cn.ClientID != ci.ClientID {
				continue
			}
			ci.ClientAddr, ci.Language, ci.KnownTo = cn.ClientAddr, cn.Language, "Proxy "+pc.Proxy
			ci.ConsumeType, ci.MessageModel, ci.ConsumeFromWhere = consumeTypeOf(cc, true), cc.MessageModel, cc.ConsumeFromWhere
			for topic, sd := range cc.Subscriptions {
				ci.Subscriptions = append(ci.Subscriptions, Subscription{Topic: topic, Expression: sd.SubString, ExpressionType: sd.ExpressionType})
			}
			slices.SortFunc(ci.Subscriptions, func(a, b Subscription) int { return strings.Compare(a.Topic, b.Topic) })
			if cluster.IsGRPC(cc, cn) {
				ci.Protocol = ProtocolGRPC
				// The console does not ask: no broker holds a connection to a cluster-mode
				// Proxy's gRPC client (it would answer "not online"), the Proxy's remoting port
				// does not take the request, and a local-mode Proxy relays only a thread-dump
				// request, answered with the dump alone.
				ci.Unavailable = i18n.TextOf(i18n.M("client.unavailable.grpc", "KnownTo", ci.KnownTo),
					i18n.M("group.note.grpcVersion", "Version", cn.VersionName()))
			} else {
				ci.Protocol, ci.Version = ProtocolRemoting, cn.VersionName()
				ci.Unavailable = i18n.TextOf(i18n.M("client.unavailable.proxy", "KnownTo", ci.KnownTo))
			}
			ci.JstackAsked = false // nothing was asked
			return true
		}
	}
	return false
}

// unavailableReason says why a listed client's report is missing, in a sentence;
// release4 is the brokers' version when they all run 4.x (no Proxy can be involved).
func unavailableReason(ci *ClientInfo, err error, release4 string) i18n.Text {
	// A POP client's sentence goes on after the error, so its final period goes.
	pop := release4 == "" && ci.ConsumeType == "pop"
	var why any = errMessage(err)
	if pop {
		why = strings.TrimSuffix(err.Error(), ".")
	}
	if m, ok := runningInfoFailure(err, pop); ok {
		why = m
	}
	switch {
	case release4 != "":
		return i18n.TextOf(i18n.M("client.unavailable.release4", "Error", why, "Release", release4))
	case pop:
		return i18n.TextOf(i18n.M("client.unavailable.pop", "Error", why))
	}
	return i18n.TextOf(i18n.M("client.unavailable", "Error", why))
}

// runningInfoText says why a client's running info could not be read: the catalogues'
// sentence around the broker's or the client's own error, or err as errMessage says it.
func runningInfoText(err error) i18n.Text {
	if m, ok := runningInfoFailure(err, false); ok {
		return i18n.TextOf(m)
	}
	return i18n.TextOf(errMessage(err))
}

// runningInfoFailure is err in the catalogues' words when it is a client's running info
// that could not be read: the console's sentence around the broker's or the client's own
// error, which stays as it is (without a final period when trim). ok is false for any
// other error, and for one that says more than the running info's own.
func runningInfoFailure(err error, trim bool) (m i18n.Message, ok bool) {
	var rie *rocketmq.RunningInfoError
	if !errors.As(err, &rie) || rie.Error() != err.Error() {
		return i18n.Message{}, false
	}
	var why any = i18n.M("group.runningInfo.noInfo", "Remark", strconv.Quote(rie.Remark))
	if rie.Err != nil {
		why = rie.Err.Error()
		if trim {
			why = strings.TrimSuffix(rie.Err.Error(), ".")
		}
	}
	return i18n.M("group.runningInfo.failed", "Client", strconv.Quote(rie.ClientID), "Group", strconv.Quote(rie.Group), "Via", rie.Addr, "Error", why), true
}

func (ci *ClientInfo) fill(info *rocketmq.ConsumerRunningInfo) {
	maps.Copy(ci.Properties, info.Properties)
	if v := info.ClientVersion(); v != "" {
		ci.Version = v
	}
	ci.ConsumeMode = clientConsumeMode(info)
	ci.StartedAt, _ = strconv.ParseInt(info.Properties["PROP_CONSUMER_START_TIMESTAMP"], 10, 64)
	for _, st := range clientSettings {
		ci.Settings = append(ci.Settings, clientSetting(st.id, st.meaning, st.props, info.Properties))
	}
	for _, sd := range info.Subscriptions {
		ci.Subscriptions = append(ci.Subscriptions, Subscription{Topic: sd.Topic, Expression: sd.SubString, ExpressionType: sd.ExpressionType})
	}
	slices.SortFunc(ci.Subscriptions, func(a, b Subscription) int {
		return compareQueues(rocketmq.MessageQueue{Topic: a.Topic}, rocketmq.MessageQueue{Topic: b.Topic})
	})
	for _, mq := range info.Queues() {
		ci.Queues = append(ci.Queues, ProcessQueue{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID, ProcessQueueInfo: info.MQTable[mq]})
	}
	slices.SortStableFunc(ci.Queues, func(a, b ProcessQueue) int {
		return compareQueues(rocketmq.MessageQueue{Topic: a.Topic, BrokerName: a.BrokerName, QueueID: a.QueueID},
			rocketmq.MessageQueue{Topic: b.Topic, BrokerName: b.BrokerName, QueueID: b.QueueID})
	})
	for mq, pq := range info.MQPopTable {
		ci.PopQueues = append(ci.PopQueues, PopQueue{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID, PopProcessQueueInfo: pq})
	}
	slices.SortFunc(ci.PopQueues, func(a, b PopQueue) int {
		return compareQueues(rocketmq.MessageQueue{Topic: a.Topic, BrokerName: a.BrokerName, QueueID: a.QueueID},
			rocketmq.MessageQueue{Topic: b.Topic, BrokerName: b.BrokerName, QueueID: b.QueueID})
	})
	for _, t := range slices.SortedFunc(maps.Keys(info.StatusTable), func(a, b string) int {
		return compareQueues(rocketmq.MessageQueue{Topic: a}, rocketmq.MessageQueue{Topic: b})
	}) {
		ci.Topics = append(ci.Topics, TopicConsume{Topic: t, ConsumeStatus: info.StatusTable[t]})
	}
	ci.Jstack = info.Jstack
}
