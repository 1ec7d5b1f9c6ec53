package clustertest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"rmqconsole/rocketmq"
)

// answer reads one request's header, asks the cluster and writes the answer as a 5.3.3
// NameServer or broker does. self is the address the request came to.
type answer func(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error)

// answerOf is every request the fakes answer over remoting, one entry per request code.
// Bodies follow the captured replies of real brokers (rocketmq/testdata/captured); the
// integration test TestIntegrationRemotingAnswersLikeTheBroker (package sim) compares
// them with a live broker's.
var answerOf = map[rocketmq.RequestCode]answer{
	rocketmq.CodeGetBrokerClusterInfo:       getBrokerClusterInfo,
	rocketmq.CodeGetRouteInfoByTopic:        getRouteInfoByTopic,
	rocketmq.CodeGetAllTopicListFromNameSrv: getAllTopicList,

	rocketmq.CodeGetBrokerRuntimeInfo:    getBrokerRuntimeInfo,
	rocketmq.CodeGetBrokerConfig:         getBrokerConfig,
	rocketmq.CodeGetAllTopicConfig:       getAllTopicConfig,
	rocketmq.CodeGetTopicStatsInfo:       getTopicStatsInfo,
	rocketmq.CodeGetMaxOffset:            getMaxOffset,
	rocketmq.CodeGetMinOffset:            getMinOffset,
	rocketmq.CodeSearchOffsetByTimestamp: searchOffsetByTimestamp,
	rocketmq.CodePullMessage:             pullMessage,
	rocketmq.CodeViewMessageByID:         viewMessageByID,

	rocketmq.CodeGetAllSubscriptionGroup:   getAllSubscriptionGroupConfig,
	rocketmq.CodeGetBrokerConsumeStats:     getBrokerConsumeStats,
	rocketmq.CodeGetConsumeStats:           getConsumeStats,
	rocketmq.CodeGetAllConsumerOffset:      getAllConsumerOffset,
	rocketmq.CodeQueryConsumerOffset:       queryConsumerOffset,
	rocketmq.CodeQueryTopicConsumeByWho:    queryTopicConsumeByWho,
	rocketmq.CodeQueryConsumeTimeSpan:      queryConsumeTimeSpan,
	rocketmq.CodeGetConsumerConnectionList: getConsumerConnectionList,
	rocketmq.CodeGetConsumerListByGroup:    getConsumerListByGroup,
	rocketmq.CodeGetConsumerRunningInfo:    getConsumerRunningInfo,
	rocketmq.CodePollingInfo:               pollingInfo,
}

// ---- NameServer ----------------------------------------------------------------------

func getBrokerClusterInfo(ctx context.Context, a Answers, _ string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ci, err := a.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	w.open().key("brokerAddrTable").obj()
	for _, name := range sortedNames(ci.Brokers) {
		w.key(name)
		brokerData(w, ci.Brokers[name], false)
	}
	w.end().key("clusterAddrTable").obj()
	for _, cl := range sortedNames(ci.Clusters) {
		w.key(cl).strs(ci.Clusters[cl])
	}
	return ok(w.end().close().b), nil
}

// brokerData writes a BrokerData; standard quotes the broker ids, as a NameServer does
// for clients that send acceptStandardJsonOnly (the cluster info never does).
func brokerData(w *fastjson, bd rocketmq.BrokerData, standard bool) {
	w.obj().key("brokerAddrs").obj()
	ids := make([]int64, 0, len(bd.Addrs))
	for id := range bd.Addrs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if standard {
			w.key(strconv.FormatInt(id, 10))
		} else {
			w.intKey(id)
		}
		w.str(bd.Addrs[id])
	}
	cluster := bd.Cluster
	if cluster == "" {
		cluster = "DefaultCluster"
	}
	w.end().key("brokerName").str(bd.BrokerName).key("cluster").str(cluster).key("enableActingMaster").bool(bd.EnableActingMaster).end()
}

func getRouteInfoByTopic(ctx context.Context, a Answers, _ string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	r, err := a.TopicRoute(ctx, ext["topic"])
	if err != nil {
		return nil, err
	}
	// From 4.9.4 on the NameServer quotes the broker ids for clients that ask, and for
	// every client of 4.9.4 or later.
	standard := ext["acceptStandardJsonOnly"] == "true" || req.Version >= rocketmq.VersionOrdinal4_9_4
	w := &fastjson{}
	w.open().key("brokerDatas").arr()
	for _, bd := range r.BrokerDatas {
		w.elem()
		brokerData(w, bd, standard)
	}
	w.endArr().key("filterServerTable").obj().end().key("queueDatas").arr()
	for _, qd := range r.QueueDatas {
		w.elem().obj().key("brokerName").str(qd.BrokerName).key("perm").int(int64(qd.Perm)).key("readQueueNums").int(int64(qd.ReadQueueNums)).
			key("topicSysFlag").int(int64(qd.TopicSysFlag)).key("writeQueueNums").int(int64(qd.WriteQueueNums)).end()
	}
	return ok(w.endArr().close().b), nil
}

func getAllTopicList(ctx context.Context, a Answers, _ string, req *rocketmq.Request) (*rocketmq.Response, error) {
	tl, err := a.TopicList(ctx)
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	return ok(w.open().key("topicList").strs(tl).close().b), nil
}

// ---- a broker and its topics ------------------------------------------------------------

func getBrokerRuntimeInfo(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ri, err := a.BrokerRuntimeInfo(ctx, self)
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	w.open().key("table").obj()
	for _, k := range sortedNames(ri.Table) {
		w.key(k).str(ri.Table[k])
	}
	return ok(w.end().close().b), nil
}

// getBrokerConfig answers java.util.Properties text, as MixAll.properties2String writes.
func getBrokerConfig(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	cfg, err := a.BrokerConfig(ctx, self)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, k := range sortedNames(cfg) {
		b.WriteString(k + "=" + cfg[k] + "\n")
	}
	return ok([]byte(b.String())), nil
}

func getAllTopicConfig(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	t, err := a.TopicConfigs(ctx, self)
	if err != nil {
		return nil, err
	}
	stamp := t.DataVersion.Timestamp
	if stamp == 0 {
		stamp = time.Now().UnixMilli()
	}
	w := &fastjson{}
	w.open().key("dataVersion").dataVersion(stamp).key("mappingDataVersion").dataVersion(stamp).key("topicConfigTable").obj()
	for _, name := range sortedNames(t.Topics) {
		tc := t.Topics[name]
		filter := tc.TopicFilterType
		if filter == "" {
			filter = "SINGLE_TAG"
		}
		w.key(name).obj().key("attributes").obj()
		for _, k := range sortedNames(tc.Attributes) {
			w.key(k).str(tc.Attributes[k])
		}
		w.end().key("order").bool(tc.Order).key("perm").int(int64(tc.Perm)).key("readQueueNums").int(int64(tc.ReadQueueNums)).
			key("topicFilterType").str(filter).key("topicName").str(tc.TopicName).key("topicSysFlag").int(int64(tc.TopicSysFlag)).
			key("writeQueueNums").int(int64(tc.WriteQueueNums)).end()
	}
	w.end().key("topicQueueMappingDetailMap").obj().end().key("topicQueueMappingInfoMap").obj().end()
	return ok(w.close().b), nil
}

func getTopicStatsInfo(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	st, err := a.TopicStats(ctx, self, ext["topic"])
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	w.open().key("offsetTable").obj()
	for _, mq := range sortedQueues(st.Offsets) {
		o := st.Offsets[mq]
		w.queueKey(mq).obj().key("lastUpdateTimestamp").int(o.LastUpdateTimestamp).key("maxOffset").int(o.MaxOffset).
			key("minOffset").int(o.MinOffset).end()
	}
	w.end()
	if st.HasPutTps {
		w.key("topicPutTps").double(st.PutTps)
	}
	return ok(w.close().b), nil
}

// queueOffset answers GET_MAX_OFFSET and GET_MIN_OFFSET from the topic's stats: one
// place knows a queue's offset range.
func queueOffset(ctx context.Context, a Answers, self string, req *rocketmq.Request, pick func(rocketmq.TopicOffset) int64) (*rocketmq.Response, error) {
	ext := req.ExtFields
	st, err := a.TopicStats(ctx, self, ext["topic"])
	if err != nil {
		return nil, err
	}
	id, _ := strconv.Atoi(ext["queueId"])
	var v int64
	for mq, o := range st.Offsets {
		if mq.QueueID == id {
			v = pick(o)
		}
	}
	return okHeader(map[string]string{"offset": strconv.FormatInt(v, 10)}), nil
}

func getMaxOffset(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	return queueOffset(ctx, a, self, req, func(o rocketmq.TopicOffset) int64 { return o.MaxOffset })
}

func getMinOffset(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	return queueOffset(ctx, a, self, req, func(o rocketmq.TopicOffset) int64 { return o.MinOffset })
}

// queueOf is the queue a request's header names. Requests that carry no bname (a pull)
// are on the broker at self.
func queueOf(ctx context.Context, a Answers, self string, ext map[string]string) (rocketmq.MessageQueue, error) {
	id, err := strconv.Atoi(ext["queueId"])
	if err != nil {
		return rocketmq.MessageQueue{}, fmt.Errorf("queueId %q: %w", ext["queueId"], err)
	}
	mq := rocketmq.MessageQueue{Topic: ext["topic"], BrokerName: ext["bname"], QueueID: id}
	if mq.BrokerName == "" {
		ci, err := a.ClusterInfo(ctx)
		if err != nil {
			return mq, err
		}
		for name, bd := range ci.Brokers {
			for _, addr := range bd.Addrs {
				if addr == self {
					mq.BrokerName = name
				}
			}
		}
	}
	return mq, nil
}

func searchOffsetByTimestamp(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	mq, err := queueOf(ctx, a, self, ext)
	if err != nil {
		return nil, err
	}
	ms, _ := strconv.ParseInt(ext["timestamp"], 10, 64)
	off, err := a.SearchOffset(ctx, self, mq, time.UnixMilli(ms), rocketmq.BoundaryType(ext["boundaryType"]))
	if err != nil {
		return nil, err
	}
	return okHeader(map[string]string{"offset": strconv.FormatInt(off, 10)}), nil
}

func pullMessage(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	mq, err := queueOf(ctx, a, self, ext)
	if err != nil {
		return nil, err
	}
	offset, _ := strconv.ParseInt(ext["queueOffset"], 10, 64)
	maxNums, _ := strconv.Atoi(ext["maxMsgNums"])
	r, err := a.Pull(ctx, self, mq, offset, maxNums)
	if err != nil {
		return nil, err
	}
	resp := okHeader(map[string]string{
		"nextBeginOffset":      strconv.FormatInt(r.NextBeginOffset, 10),
		"minOffset":            strconv.FormatInt(r.MinOffset, 10),
		"maxOffset":            strconv.FormatInt(r.MaxOffset, 10),
		"suggestWhichBrokerId": strconv.FormatInt(r.SuggestWhichBrokerID, 10),
		"groupSysFlag":         "0",
		"topicSysFlag":         "0",
	})
	switch r.Status {
	case rocketmq.PullNoNewMsg:
		resp.Code = rocketmq.CodePullNotFound
	case rocketmq.PullNoMatchedMsg:
		resp.Code = rocketmq.CodePullRetryImmediately
	case rocketmq.PullOffsetIllegal:
		resp.Code = rocketmq.CodePullOffsetMoved
	default:
		for _, m := range r.Messages {
			resp.Body = appendMessageRecord(resp.Body, m)
		}
	}
	return resp, nil
}

func viewMessageByID(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	offset, err := strconv.ParseInt(ext["offset"], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("offset %q: %w", ext["offset"], err)
	}
	m, err := a.ViewMessageAt(ctx, self, offset, ext["topic"])
	if err != nil {
		if errors.Is(err, rocketmq.ErrMessageNotFound) {
			return &rocketmq.Response{Code: rocketmq.CodeSystemError, Remark: "can not find message by the offset, " + ext["offset"]}, nil
		}
		return nil, err
	}
	return ok(appendMessageRecord(nil, m)), nil
}

// ---- consumer groups ---------------------------------------------------------------------

func getAllSubscriptionGroupConfig(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	t, err := a.SubscriptionGroups(ctx, self)
	if err != nil {
		return nil, err
	}
	stamp := t.DataVersion.Timestamp
	if stamp == 0 {
		stamp = time.Now().UnixMilli()
	}
	w := &fastjson{}
	w.open().key("dataVersion").dataVersion(stamp).key("forbiddenTable").obj()
	for _, g := range sortedNames(t.ForbiddenTable) {
		w.key(g).obj()
		for _, topic := range sortedNames(t.ForbiddenTable[g]) {
			w.key(topic).int(int64(t.ForbiddenTable[g][topic]))
		}
		w.end()
	}
	w.end().key("subscriptionGroupTable").obj()
	for _, name := range sortedNames(t.Groups) {
		subscriptionGroupConfig(w.key(name), t.Groups[name])
	}
	return ok(w.end().close().b), nil
}

func subscriptionGroupConfig(w *fastjson, g rocketmq.SubscriptionGroupConfig) {
	w.obj().key("attributes").obj()
	for _, k := range sortedNames(g.Attributes) {
		w.key(k).str(g.Attributes[k])
	}
	policy := string(g.GroupRetryPolicy)
	if policy == "" {
		policy = `{"type":"CUSTOMIZED"}`
	}
	w.end().key("brokerId").int(g.BrokerID).key("consumeBroadcastEnable").bool(g.ConsumeBroadcastEnable).
		key("consumeEnable").bool(g.ConsumeEnable).key("consumeFromMinEnable").bool(g.ConsumeFromMinEnable).
		key("consumeMessageOrderly").bool(g.ConsumeMessageOrderly).key("consumeTimeoutMinute").int(int64(g.ConsumeTimeoutMinute)).
		key("groupName").str(g.GroupName).key("groupRetryPolicy")
	w.b = append(w.b, policy...)
	w.key("groupSysFlag").int(int64(g.GroupSysFlag)).key("notifyConsumerIdsChangedEnable").bool(g.NotifyConsumerIdsChangedEnable).
		key("retryMaxTimes").int(int64(g.RetryMaxTimes)).key("retryQueueNums").int(int64(g.RetryQueueNums))
	if len(g.SubscriptionDataSet) > 0 {
		w.key("subscriptionDataSet").arr()
		for _, s := range g.SubscriptionDataSet {
			w.elem().obj().key("expression").str(s.Expression).key("expressionType").str(s.ExpressionType).
				key("topic").str(s.Topic).key("version").int(s.Version).end()
		}
		w.endArr()
	}
	w.key("whichBrokerWhenConsumeSlowly").int(g.WhichBrokerWhenConsumeSlowly).end()
}

// offsetTable writes a ConsumeStats' offsetTable.
func offsetTable(w *fastjson, offsets map[rocketmq.MessageQueue]rocketmq.OffsetWrapper) {
	w.obj()
	for _, mq := range sortedQueues(offsets) {
		o := offsets[mq]
		w.queueKey(mq).obj().key("brokerOffset").int(o.BrokerOffset).key("consumerOffset").int(o.ConsumerOffset).
			key("lastTimestamp").int(o.LastTimestamp).key("pullOffset").int(o.PullOffset).end()
	}
	w.end()
}

// getBrokerConsumeStats answers every group of the broker, one ConsumeStats per topic
// the group has offsets for (its rate on the first), as ConsumeStatsList does.
func getBrokerConsumeStats(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	s, err := a.BrokerConsumeStats(ctx, self)
	if err != nil {
		return nil, err
	}
	var diff, inflight int64
	w := &fastjson{}
	w.open().key("brokerAddr").str(s.BrokerAddr).key("consumeStatsList").arr()
	for _, g := range sortedNames(s.Groups) {
		cs := s.Groups[g]
		byTopic := map[string]map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}
		for mq, o := range cs.Offsets {
			if byTopic[mq.Topic] == nil {
				byTopic[mq.Topic] = map[rocketmq.MessageQueue]rocketmq.OffsetWrapper{}
			}
			byTopic[mq.Topic][mq] = o
			diff += o.Lag()
			inflight += o.PullOffset - o.ConsumerOffset
		}
		w.elem().obj().key(g).arr()
		for i, t := range sortedNames(byTopic) {
			tps := 0.0
			if i == 0 {
				tps = cs.ConsumeTps
			}
			w.elem().obj().key("consumeTps").double(tps).key("offsetTable")
			offsetTable(w, byTopic[t])
			w.end()
		}
		w.endArr().end()
	}
	return ok(w.endArr().key("totalDiff").int(diff).key("totalInflightDiff").int(inflight).close().b), nil
}

func getConsumeStats(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	cs, err := a.ConsumeStats(ctx, self, ext["consumerGroup"], ext["topic"])
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	w.open().key("consumeTps").double(cs.ConsumeTps).key("offsetTable")
	offsetTable(w, cs.Offsets)
	return ok(w.close().b), nil
}

// getAllConsumerOffset answers the broker's offset table as 5.3.3 writes it: each
// group's topics, and "topic@group" to queue id (a bare Integer key) to offset.
func getAllConsumerOffset(ctx context.Context, a Answers, self string, _ *rocketmq.Request) (*rocketmq.Response, error) {
	offs, err := a.ConsumerOffsets(ctx, self)
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	w.open().key("dataVersion").dataVersion(time.Now().UnixMilli()).key("groupTopicMap").obj()
	for _, g := range sortedNames(offs) {
		w.key(g).strs(sortedNames(offs[g]))
	}
	w.end().key("offsetTable").obj()
	for _, g := range sortedNames(offs) {
		for _, t := range sortedNames(offs[g]) {
			qs := offs[g][t]
			ids := make([]int, 0, len(qs))
			for id := range qs {
				ids = append(ids, id)
			}
			sort.Ints(ids)
			w.key(t + "@" + g).obj()
			for _, id := range ids {
				w.intKey(int64(id)).int(qs[id])
			}
			w.end()
		}
	}
	return ok(w.end().close().b), nil
}

func queryConsumerOffset(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	mq, err := queueOf(ctx, a, self, ext)
	if err != nil {
		return nil, err
	}
	off, err := a.QueryConsumerOffset(ctx, self, ext["consumerGroup"], mq)
	if errors.Is(err, rocketmq.ErrNoConsumerOffset) {
		return &rocketmq.Response{Code: rocketmq.CodeQueryNotFound, Remark: "Not found, maybe this group consumer boot first"}, nil
	}
	if err != nil {
		return nil, err
	}
	return okHeader(map[string]string{"offset": strconv.FormatInt(off, 10)}), nil
}

func queryTopicConsumeByWho(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	gs, err := a.TopicConsumerGroups(ctx, self, ext["topic"])
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	return ok(w.open().key("groupList").strs(gs).close().b), nil
}

func queryConsumeTimeSpan(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	spans, err := a.ConsumeTimeSpan(ctx, self, ext["topic"], ext["group"])
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	w.open().key("consumeTimeSpanSet").arr()
	for _, s := range spans {
		w.elem().obj().key("consumeTimeStamp").int(s.ConsumeTimeStamp).key("consumeTimeStampStr").str(javaTime(s.ConsumeTimeStamp)).
			key("delayTime").int(s.DelayTime).key("maxTimeStamp").int(s.MaxTimeStamp).key("maxTimeStampStr").str(javaTime(s.MaxTimeStamp)).
			key("messageQueue").queue(s.MessageQueue).key("minTimeStamp").int(s.MinTimeStamp).key("minTimeStampStr").str(javaTime(s.MinTimeStamp)).end()
	}
	return ok(w.endArr().close().b), nil
}

func getConsumerConnectionList(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	cc, err := a.ConsumerConnections(ctx, self, ext["consumerGroup"])
	if err != nil {
		return nil, err
	}
	w := &fastjson{}
	w.open().key("connectionSet").arr()
	for _, c := range cc.Connections {
		w.elem().obj().key("clientAddr").str(c.ClientAddr).key("clientId").str(c.ClientID).key("language").str(c.Language).
			key("version").int(int64(c.Version)).end()
	}
	w.endArr().key("consumeFromWhere").str(cc.ConsumeFromWhere).key("consumeType").str(cc.ConsumeType).
		key("messageModel").str(cc.MessageModel).key("subscriptionTable").obj()
	for _, t := range sortedNames(cc.Subscriptions) {
		s := cc.Subscriptions[t]
		w.key(t).obj().key("classFilterMode").bool(s.ClassFilterMode).key("codeSet").arr()
		for _, c := range s.CodeSet {
			w.elem().int(int64(c))
		}
		w.endArr().key("expressionType").str(s.ExpressionType).key("subString").str(s.SubString).key("subVersion").int(s.SubVersion).
			key("tagsSet").strs(s.TagsSet).key("topic").str(s.Topic).end()
	}
	return ok(w.end().close().b), nil
}

// getConsumerListByGroup answers the ids of the group's clients connected to the broker;
// a group with none is the broker's SYSTEM_ERROR.
func getConsumerListByGroup(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	group := ext["consumerGroup"]
	cc, err := a.ConsumerConnections(ctx, self, group)
	if errors.Is(err, rocketmq.ErrConsumerNotOnline) || (err == nil && len(cc.Connections) == 0) {
		return &rocketmq.Response{Code: rocketmq.CodeSystemError, Remark: "no consumer for this group, " + group}, nil
	}
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(cc.Connections))
	for _, c := range cc.Connections {
		ids = append(ids, c.ClientID)
	}
	w := &fastjson{}
	return ok(w.open().key("consumerIdList").strs(ids).close().b), nil
}

// getConsumerRunningInfo answers what a client reports through the broker; the fakes'
// clients are rocketmq-client-go clients, so the body is in their encoding (fields in
// declaration order, a MessageQueue key as topic, brokerName, queueId).
func getConsumerRunningInfo(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	group, client := ext["consumerGroup"], ext["clientId"]
	info, err := a.ConsumerRunningInfo(ctx, self, group, client, ext["jstackEnable"] == "true")
	if err != nil {
		var be *rocketmq.BrokerError
		if errors.As(err, &be) && be.Code == rocketmq.CodeConsumerNotOnline {
			return &rocketmq.Response{Code: rocketmq.CodeSystemError, Remark: fmt.Sprintf("The Consumer <%s> <%s> not online", group, client)}, nil
		}
		return nil, err
	}
	w := &fastjson{}
	w.open().key("properties").obj()
	for _, k := range sortedNames(info.Properties) {
		w.key(k).str(info.Properties[k])
	}
	w.end().key("statusTable").obj()
	for _, t := range sortedNames(info.StatusTable) {
		s := info.StatusTable[t]
		w.key(t).obj().key("pullRT").double(s.PullRT).key("pullTPS").double(s.PullTPS).key("consumeRT").double(s.ConsumeRT).
			key("consumeOKTPS").double(s.ConsumeOKTPS).key("consumeFailedTPS").double(s.ConsumeFailedTPS).
			key("consumeFailedMsgs").int(s.ConsumeFailedMsgs).end()
	}
	w.end().key("subscriptionSet").arr()
	for _, s := range info.Subscriptions {
		w.elem().obj().key("classFilterMode").bool(s.ClassFilterMode).key("topic").str(s.Topic).key("subString").str(s.SubString).
			key("tagsSet").strs(s.TagsSet).key("codeSet").arr().endArr().key("subVersion").int(s.SubVersion).
			key("expressionType").str(s.ExpressionType).end()
	}
	w.endArr().key("mqTable").obj()
	for _, mq := range sortedQueues(info.MQTable) {
		p := info.MQTable[mq]
		w.sep()
		w.obj().key("topic").str(mq.Topic).key("brokerName").str(mq.BrokerName).key("queueId").int(int64(mq.QueueID)).end()
		w.b = append(w.b, ':')
		w.obj().key("commitOffset").int(p.CommitOffset).key("cachedMsgMinOffset").int(p.CachedMsgMinOffset).
			key("cachedMsgMaxOffset").int(p.CachedMsgMaxOffset).key("cachedMsgCount").int(p.CachedMsgCount).
			key("cachedMsgSizeInMiB").int(p.CachedMsgSizeInMiB).key("transactionMsgMinOffset").int(p.TransactionMsgMinOffset).
			key("transactionMsgMaxOffset").int(p.TransactionMsgMaxOffset).key("transactionMsgCount").int(p.TransactionMsgCount).
			key("locked").bool(p.Locked).key("tryUnlockTimes").int(p.TryUnlockTimes).key("lastLockTimestamp").int(p.LastLockTimestamp).
			key("dropped").bool(p.Dropped).key("lastPullTimestamp").int(p.LastPullTimestamp).
			key("lastConsumeTimestamp").int(p.LastConsumeTimestamp).end()
	}
	return ok(w.end().key("jstack").str(info.Jstack).close().b), nil
}

func pollingInfo(ctx context.Context, a Answers, self string, req *rocketmq.Request) (*rocketmq.Response, error) {
	ext := req.ExtFields
	id, _ := strconv.Atoi(ext["queueId"])
	n, err := a.PollingInfo(ctx, self, ext["consumerGroup"], ext["topic"], id)
	if err != nil {
		return nil, err
	}
	return okHeader(map[string]string{"pollingNum": strconv.Itoa(n)}), nil
}

// sortedQueues returns a queue-keyed map's queues in Java's MessageQueue order.
func sortedQueues[V any](m map[rocketmq.MessageQueue]V) []rocketmq.MessageQueue {
	out := make([]rocketmq.MessageQueue, 0, len(m))
	for mq := range m {
		out = append(out, mq)
	}
	rocketmq.SortMessageQueues(out)
	return out
}
