package topics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Changer is what creating, updating and deleting topics asks RocketMQ beyond reading;
// *rocketmq.Client implements it.
type Changer interface {
	CreateTopic(ctx context.Context, addr string, tc rocketmq.TopicConfig) error
	DeleteTopicInBroker(ctx context.Context, addr, topic string) error
	DeleteTopicInNameServers(ctx context.Context, topic string) error
}

var _ Changer = (*rocketmq.Client)(nil)

// Auditor writes the audit entry around a change: pending before it, sealed with its
// outcome; *store.AuditLog implements it.
type Auditor interface {
	Change(ctx context.Context, e *store.AuditEntry, apply func(ctx context.Context) ([]store.AuditQueue, error)) error
}

var _ Auditor = (*store.AuditLog)(nil)

// The audit modes of topic changes.
const (
	ModeCreate = "topic-create"
	ModeUpdate = "topic-update"
	ModeDelete = "topic-delete"
)

// Bounds of a topic's configuration, checked before any broker is asked.
const (
	// MaxTopicLen is RocketMQ's TopicValidator limit (127 on 4.9.7 and 5.x); a longer
	// name is refused by the broker, and 5.x stores it with another message format.
	MaxTopicLen = 127
	// MaxQueueNums bounds the read and write queue counts. RocketMQ itself sets none,
	// but every queue is a consume-queue directory with its own mapped files on every
	// broker, and a consumer group balances queue by queue: 1024 queues per broker is
	// already more than any group has clients, and a typo such as 10 000 would make
	// every broker open tens of thousands of files.
	MaxQueueNums = 1024
	// DefaultQueueNums is what a new topic gets when no count is asked (as mqadmin
	// updateTopic).
	DefaultQueueNums = 8
)

// Message types a 5.x topic can be created with (its "+message.type" attribute).
var MessageTypes = []string{TypeNormal, TypeFIFO, TypeDelay, TypeTransaction}

// Who is who asks for a change, for the audit log.
type Who struct{ Actor, Addr string }

// SaveRequest creates a topic, or, with Update, changes one that exists. A nil field
// keeps what the topic has (or, for a new topic, takes the default: 8 queues, read and
// write, not ordered, normal messages).
type SaveRequest struct {
	// Update says the caller means to change an existing topic (a topic page's form,
	// PUT /api/v1/topics/{topic}). Without it the request creates the topic, and one
	// that exists is refused (Exists): a create never changes a topic. With it, a topic
	// that does not exist is refused (NotFound) rather than created.
	Update         bool   `json:"-"`
	Topic          string `json:"topic"`
	ReadQueueNums  *int   `json:"readQueueNums,omitempty"`
	WriteQueueNums *int   `json:"writeQueueNums,omitempty"`
	Perm           *int   `json:"perm,omitempty"`
	Order          *bool  `json:"order,omitempty"`
	// MessageType is normal, fifo, delay or transaction; 5.x brokers only ("" keeps it).
	MessageType string `json:"messageType,omitempty"`
	// BrokerNames or ClusterName say where; neither means every broker that has the
	// topic, or every broker of the cluster for a new topic.
	BrokerNames []string `json:"brokerNames,omitempty"`
	ClusterName string   `json:"clusterName,omitempty"`
}

// DeleteRequest deletes a topic; Confirm must repeat its name.
type DeleteRequest struct {
	Topic   string `json:"topic"`
	Confirm string `json:"confirm"`
}

// inputErr refuses a request before any broker is asked: an Invalid *fault.Error on
// field ("topic", "readQueueNums", "confirm", ...) with the API code "bad_<field>", whose
// sentence, the catalogue's id, says what is wrong and what to do.
func inputErr(field, id string, kv ...any) *fault.Error {
	return fault.InvalidField(field, id, kv...).Because("bad_" + field)
}

// Config is a topic's configuration on one broker, as the audit log records it before
// and after a change.
type Config struct {
	ReadQueueNums  int    `json:"readQueueNums"`
	WriteQueueNums int    `json:"writeQueueNums"`
	Perm           int    `json:"perm"`
	Order          bool   `json:"order"`
	MessageType    string `json:"messageType,omitempty"`
}

func configOf(tc rocketmq.TopicConfig, is5 bool) Config {
	c := Config{ReadQueueNums: tc.ReadQueueNums, WriteQueueNums: tc.WriteQueueNums, Perm: tc.Perm, Order: tc.Order}
	if is5 {
		c.MessageType = messageType(tc, true)
	}
	return c
}

// target is one broker a change goes to, with the topic's configuration there now
// (nil when it has none) and on 5.x or not.
type target struct {
	broker cluster.Broker
	before *rocketmq.TopicConfig
	is5    bool
}

// config is the topic's configuration on the target before the change, nil when it has none.
func (t target) config() *Config {
	if t.before == nil {
		return nil
	}
	return new(configOf(*t.before, t.is5))
}

// CheckName checks a topic name against RocketMQ's rules (TopicValidator) for a topic the
// console is asked to create or change.
func CheckName(topic string) error {
	switch {
	case topic == "":
		return inputErr("topic", "topics.input.name.missing")
	case len(topic) > MaxTopicLen:
		return inputErr("topic", "topics.input.name.long", "Len", len(topic), "Max", MaxTopicLen)
	}
	if fe := fault.As(cluster.CheckName("topic", topic)); fe != nil {
		return fe.On("topic").Because("bad_topic")
	}
	return nil
}

// refuseSystem says why the console does not change a topic RocketMQ keeps for itself.
// what is "save" (create or change) or "delete".
func refuseSystem(ci *rocketmq.ClusterInfo, topic, what string) error {
	switch {
	case rocketmq.IsRetryTopic(topic):
		return inputErr("topic", "topics.input.retry."+what, "Topic", topic, "Group", strings.TrimPrefix(topic, rocketmq.RetryTopicPrefix))
	case rocketmq.IsDLQTopic(topic):
		return inputErr("topic", "topics.input.dlq."+what, "Topic", topic, "Group", strings.TrimPrefix(topic, rocketmq.DLQTopicPrefix))
	case ci.IsSystemTopic(topic):
		return inputErr("topic", "topics.input.system."+what, "Topic", topic)
	}
	return nil
}

// checkSave checks everything that needs no broker.
func checkSave(r SaveRequest) error {
	if err := CheckName(r.Topic); err != nil {
		return err
	}
	for _, q := range []struct {
		field string
		n     *int
	}{{"readQueueNums", r.ReadQueueNums}, {"writeQueueNums", r.WriteQueueNums}} {
		if q.n != nil && (*q.n < 1 || *q.n > MaxQueueNums) {
			return inputErr(q.field, "topics.input.queues."+q.field, "N", *q.n, "Max", MaxQueueNums)
		}
	}
	if r.Perm != nil && *r.Perm != rocketmq.PermRead && *r.Perm != rocketmq.PermWrite && *r.Perm != rocketmq.PermRead|rocketmq.PermWrite {
		return inputErr("perm", "topics.input.perm", "Perm", *r.Perm)
	}
	if r.MessageType != "" && !slices.Contains(MessageTypes, r.MessageType) {
		return inputErr("messageType", "topics.input.type", "Type", freetext.Quote(r.MessageType))
	}
	if len(r.BrokerNames) > 0 && r.ClusterName != "" {
		return inputErr("brokerNames", "topics.input.both")
	}
	for _, b := range r.BrokerNames {
		if !cluster.ValidName(b) {
			return inputErr("brokerNames", "topics.input.broker.bad", "Broker", freetext.Quote(b))
		}
	}
	if r.ClusterName != "" && !cluster.ValidName(r.ClusterName) {
		return inputErr("clusterName", "topics.input.cluster.bad", "Cluster", freetext.Quote(r.ClusterName))
	}
	return nil
}

// targets resolves where a save goes: the named brokers, the named cluster's, the brokers
// that have the topic, or (a new topic) every broker of the only cluster.
func (s *Service) targets(ctx context.Context, ci *rocketmq.ClusterInfo, r SaveRequest) ([]cluster.Broker, error) {
	all, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]cluster.Broker{}
	for _, b := range all {
		byName[b.Name] = b
	}
	var out []cluster.Broker
	switch {
	case len(r.BrokerNames) > 0:
		for _, n := range r.BrokerNames {
			b, ok := byName[n]
			if !ok {
				return nil, inputErr("brokerNames", "topics.input.broker.unknown", "Broker", n, "Brokers", strings.Join(slices.Sorted(maps.Keys(byName)), ", "))
			}
			if !slices.ContainsFunc(out, func(o cluster.Broker) bool { return o.Name == n }) {
				out = append(out, b)
			}
		}
	case r.ClusterName != "":
		names, ok := ci.Clusters[r.ClusterName]
		if !ok {
			return nil, inputErr("clusterName", "topics.input.cluster.unknown", "Cluster", r.ClusterName, "Clusters", strings.Join(slices.Sorted(maps.Keys(ci.Clusters)), ", "))
		}
		for _, n := range names {
			if b, ok := byName[n]; ok {
				out = append(out, b)
			}
		}
	default:
		route, err := s.cluster.Route(ctx, r.Topic)
		switch {
		case err == nil:
			out = route.Brokers
		case errors.Is(err, rocketmq.ErrTopicNotFound):
			if r.Update {
				return nil, NotFound(r.Topic)
			}
			if len(ci.Clusters) > 1 {
				return nil, inputErr("clusterName", "topics.input.cluster.which", "N", len(ci.Clusters),
					"Clusters", strings.Join(slices.Sorted(maps.Keys(ci.Clusters)), ", "), "Topic", r.Topic)
			}
			out = all
		default:
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b cluster.Broker) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// readTargets reads the topic's configuration and the version of each target broker's
// master, and what also reads there (nil: nothing more), in the same round. A broker
// without a master, or one that does not answer, refuses the change before anything is
// changed: a change must know what it changes.
func (s *Service) readTargets(ctx context.Context, topic string, brokers []cluster.Broker, also func(ctx context.Context, i int, addr string) error) ([]target, error) {
	out := make([]target, len(brokers))
	f := s.cluster.Fanout(ctx)
	for i, b := range brokers {
		out[i].broker = b
		f.GoTopic(b, topic, opTopicConfigOne, func(ctx context.Context, addr string) error {
			t, err := s.admin.TopicConfigs(ctx, addr)
			if err != nil {
				return err
			}
			v, err := s.admin.BrokerVersion(ctx, addr)
			if err != nil {
				return err
			}
			if also != nil {
				if err := also(ctx, i, addr); err != nil {
					return err
				}
			}
			if tc, ok := t.Topics[topic]; ok {
				out[i].before = &tc
			}
			out[i].is5 = v.Is5()
			return nil
		})
	}
	if fails := f.Wait(); len(fails) > 0 {
		return nil, changeRefused(topic, fails)
	}
	return out, nil
}

// changeRefused refuses a change because a broker it concerns could not be read first;
// nothing was changed. It is the brokers' failure, answered as theirs (502, 504 when the
// first did not answer in time), and wraps them.
func changeRefused(topic string, fails []BrokerFailure) error {
	parts := make([]string, len(fails))
	errs := make([]error, len(fails))
	for i, f := range fails {
		parts[i], errs[i] = f.String(), f
	}
	reason := cluster.FailureError
	if fails[0].Code() == cluster.FailureTimeout {
		reason = cluster.FailureTimeout
	}
	return fault.Wrap(errors.Join(errs...), fault.Unavailable, "topics.refused", "Topic", topic,
		"Failures", strings.Join(parts, "; ")).Because(reason)
}

// Saved is the outcome of a save or delete: the audit entry, sealed.
type Saved struct {
	Entry *store.AuditEntry
	// Created is set when no broker had the topic before.
	Created bool
}

// Save creates the topic on its brokers, or, asked to update it (r.Update), changes it
// where it is and adds it where it is not yet, keeping what was not asked to change. A
// create of a topic that exists, or an update of one that does not, is refused before
// anything is changed (Exists, NotFound). Bad input is an Invalid *fault.Error, a system
// topic too, and nothing reaches a broker; otherwise the change is written to the audit
// log first (with every broker's configuration before and after) and each broker is one
// row of its outcome.
func (s *Service) Save(ctx context.Context, who Who, r SaveRequest) (*Saved, error) {
	ci, err := s.checkChange(ctx, r.Topic, "save", checkSave(r))
	if err != nil {
		return nil, err
	}
	ts, model, err := s.saveTargets(ctx, ci, r)
	if err != nil {
		return nil, err
	}
	p := planSave(r, ts, model)
	e := s.entry(who, p.mode, r.Topic, p.params(r))
	err = s.opts.Audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		return s.sendSave(ctx, r.Topic, ts, p), nil
	})
	s.forgetList()
	if err != nil {
		return nil, err
	}
	return &Saved{Entry: e, Created: p.mode == ModeCreate}, nil
}

// checkChange refuses a change (what is "save" or "delete") before any broker is asked:
// bad input (inputErr, what the request's own checks found), no audit log to record it,
// a topic RocketMQ keeps for itself. It returns the cluster info the change goes on with.
func (s *Service) checkChange(ctx context.Context, topic, what string, inputErr error) (*rocketmq.ClusterInfo, error) {
	if inputErr != nil {
		return nil, inputErr
	}
	if s.opts.Audit == nil || s.changer == nil {
		return nil, errNoAudit()
	}
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return nil, err
	}
	if err := refuseSystem(ci, topic, what); err != nil {
		return nil, err
	}
	return ci, nil
}

// saveTargets reads every broker a save goes to, and the configuration a broker that
// does not have the topic yet takes (model, nil for a new topic). A create of a topic
// that exists, an update of one that does not, and a message type for a 4.x broker are
// refused here, before anything is changed.
func (s *Service) saveTargets(ctx context.Context, ci *rocketmq.ClusterInfo, r SaveRequest) ([]target, *rocketmq.TopicConfig, error) {
	brokers, err := s.targets(ctx, ci, r)
	if err != nil {
		return nil, nil, err
	}
	if len(brokers) == 0 {
		return nil, nil, inputErr("clusterName", "topics.input.cluster.empty", "Cluster", r.ClusterName, "Topic", r.Topic)
	}
	ts, err := s.readTargets(ctx, r.Topic, brokers, nil)
	if err != nil {
		return nil, nil, err
	}
	// A broker that does not have the topic yet gets what the others have, so adding a
	// broker to a topic does not change its shape.
	var model *rocketmq.TopicConfig
	for _, t := range ts {
		if t.before != nil {
			model = t.before
			break
		}
	}
	routed := model != nil
	if model == nil {
		if model, routed, err = s.configElsewhere(ctx, r.Topic, ts); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case routed && !r.Update:
		return nil, nil, Exists(r.Topic)
	case !routed && r.Update:
		return nil, nil, NotFound(r.Topic)
	}
	var old []string
	for _, t := range ts {
		if r.MessageType != "" && !t.is5 {
			old = append(old, t.broker.Name)
		}
	}
	if len(old) > 0 {
		return nil, nil, inputErr("messageType", "topics.input.type.4x", "Brokers", strings.Join(old, ", "))
	}
	return ts, model, nil
}

// savePlan is what a save sends each target broker, and the configuration before and
// after on each, as the audit entry records them.
type savePlan struct {
	mode   string
	send   []rocketmq.TopicConfig
	before map[string]*Config
	after  map[string]Config
}

// planSave works out each target's configuration after the save: what it has (or the
// model, or the defaults) with what r asks to change.
func planSave(r SaveRequest, ts []target, model *rocketmq.TopicConfig) savePlan {
	p := savePlan{mode: ModeCreate, send: make([]rocketmq.TopicConfig, len(ts)), before: map[string]*Config{}, after: map[string]Config{}}
	if r.Update {
		p.mode = ModeUpdate
	}
	for i, t := range ts {
		p.before[t.broker.Name] = t.config()
		tc, msgType := configAfter(r, t, model)
		p.send[i] = tc
		a := configOf(tc, t.is5)
		if t.is5 && msgType == "" && t.before != nil {
			a.MessageType = p.before[t.broker.Name].MessageType
		}
		p.after[t.broker.Name] = a
	}
	return p
}

// configAfter is the configuration a save sends target t, and the message type it sets
// ("" for none).
func configAfter(r SaveRequest, t target, model *rocketmq.TopicConfig) (rocketmq.TopicConfig, string) {
	tc := rocketmq.TopicConfig{TopicName: r.Topic, ReadQueueNums: DefaultQueueNums, WriteQueueNums: DefaultQueueNums,
		Perm: rocketmq.PermRead | rocketmq.PermWrite, TopicFilterType: "SINGLE_TAG"}
	switch {
	case t.before != nil:
		tc = *t.before
	case model != nil:
		tc = *model
	}
	msgType := strings.ToUpper(r.MessageType)
	if msgType == "" && t.before == nil && model != nil {
		msgType = model.MessageType() // a broker added to the topic gets its type
	}
	tc.TopicName = r.Topic
	if r.ReadQueueNums != nil {
		tc.ReadQueueNums = *r.ReadQueueNums
	}
	if r.WriteQueueNums != nil {
		tc.WriteQueueNums = *r.WriteQueueNums
	}
	if r.Perm != nil {
		tc.Perm = *r.Perm
	}
	if r.Order != nil {
		tc.Order = *r.Order
	}
	// Only the attribute asked for is sent: 5.x refuses to be sent again attributes
	// it does not let change (queue.type), and keeps those not named.
	tc.Attributes = nil
	if msgType != "" && t.is5 {
		tc.Attributes = map[string]string{"+message.type": msgType}
	}
	return tc, msgType
}

// params is what the audit entry records of the save: the request, and every broker's
// configuration before and after.
func (p savePlan) params(r SaveRequest) []byte {
	b, _ := json.Marshal(struct {
		SaveRequest
		Before map[string]*Config `json:"before"`
		After  map[string]Config  `json:"after"`
	}{r, p.before, p.after})
	return b
}

// sendSave sends each target its configuration, one row of the audit entry per broker.
func (s *Service) sendSave(ctx context.Context, topic string, ts []target, p savePlan) []store.AuditQueue {
	rows := make([]store.AuditQueue, len(ts))
	f := s.cluster.Fanout(ctx)
	for i, t := range ts {
		rows[i] = store.AuditQueue{Topic: topic, BrokerName: t.broker.Name, BrokerAddr: t.broker.Master, Method: "UPDATE_AND_CREATE_TOPIC",
			Note: describeChange(p.before[t.broker.Name], p.after[t.broker.Name])}
		f.GoTopic(t.broker, topic, "create or update topic", func(ctx context.Context, addr string) error {
			return s.changer.CreateTopic(ctx, addr, p.send[i])
		})
	}
	markFailures(rows, f.Wait())
	return rows
}

// markFailures writes each failed broker's failure into its row.
func markFailures(rows []store.AuditQueue, fails []BrokerFailure) {
	for _, fl := range fails {
		for i := range rows {
			if rows[i].BrokerName == fl.Broker && len(rows[i].Error) == 0 {
				rows[i].Error = i18n.PlainText(fl.Reason())
			}
		}
	}
}

// describeChange says in a few words what a save does on one broker.
func describeChange(before *Config, after Config) i18n.Text {
	if before == nil {
		return i18n.TextOf(i18n.M("topic.audit.created", "Read", after.ReadQueueNums, "Write", after.WriteQueueNums, "Perm", PermString(after.Perm)))
	}
	var ch []i18n.Message
	if before.ReadQueueNums != after.ReadQueueNums {
		ch = append(ch, i18n.M("topic.audit.read_queues", "Before", before.ReadQueueNums, "After", after.ReadQueueNums))
	}
	if before.WriteQueueNums != after.WriteQueueNums {
		ch = append(ch, i18n.M("topic.audit.write_queues", "Before", before.WriteQueueNums, "After", after.WriteQueueNums))
	}
	if before.Perm != after.Perm {
		ch = append(ch, i18n.M("topic.audit.perm", "Before", PermString(before.Perm), "After", PermString(after.Perm)))
	}
	if before.Order != after.Order {
		ch = append(ch, i18n.M("topic.audit.order", "Before", strconv.FormatBool(before.Order), "After", strconv.FormatBool(after.Order)))
	}
	if before.MessageType != after.MessageType && after.MessageType != "" {
		var was any = before.MessageType
		if before.MessageType == "" {
			was = i18n.M("topic.audit.no_type")
		}
		ch = append(ch, i18n.M("topic.audit.type", "Before", was, "After", after.MessageType))
	}
	if len(ch) == 0 {
		return i18n.TextOf(i18n.M("topic.audit.unchanged"))
	}
	t := i18n.TextOf(i18n.M("topic.audit.updated"))
	for i, m := range ch {
		if i < len(ch)-1 {
			m = i18n.M("topic.audit.item", "Change", m) // followed by the next, after a comma
		}
		t = t.And(m)
	}
	return t
}

// Delete deletes the topic on every broker that has it, then its route on every
// NameServer. The name must be confirmed, and system, retry and dead-letter topics are
// refused, before any broker is asked; the change is written to the audit log first,
// with each broker's configuration before. A broker that fails is named in its row, and
// the NameServers keep the route then, so the topic stays visible where it still is.
func (s *Service) Delete(ctx context.Context, who Who, r DeleteRequest) (*Saved, error) {
	if _, err := s.checkChange(ctx, r.Topic, "delete", checkDelete(r)); err != nil {
		return nil, err
	}
	route, err := s.cluster.Route(ctx, r.Topic)
	if errors.Is(err, rocketmq.ErrTopicNotFound) {
		return nil, NotFound(r.Topic)
	}
	if err != nil {
		return nil, err
	}
	ts, err := s.readTargets(ctx, r.Topic, route.Brokers, nil)
	if err != nil {
		return nil, err
	}
	before := map[string]*Config{}
	for _, t := range ts {
		before[t.broker.Name] = t.config()
	}
	params, _ := json.Marshal(struct {
		Topic  string             `json:"topic"`
		Before map[string]*Config `json:"before"`
		After  map[string]*Config `json:"after"`
	}{r.Topic, before, map[string]*Config{}})
	e := s.entry(who, ModeDelete, r.Topic, params)
	err = s.opts.Audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		return s.sendDelete(ctx, r.Topic, ts)
	})
	s.forgetList()
	if err != nil {
		return nil, err
	}
	return &Saved{Entry: e}, nil
}

// checkDelete checks what needs no broker: the name, and that it was typed again.
func checkDelete(r DeleteRequest) error {
	if err := CheckName(r.Topic); err != nil {
		return err
	}
	if r.Confirm != r.Topic {
		if r.Confirm == "" {
			return inputErr("confirm", "topics.input.confirm.missing", "Topic", r.Topic)
		}
		return inputErr("confirm", "topics.input.confirm.wrong", "Typed", freetext.Quote(r.Confirm), "Topic", r.Topic)
	}
	return nil
}

// sendDelete deletes the topic on each target broker, then, when every one did, its
// route on every NameServer; one row of the audit entry per broker.
func (s *Service) sendDelete(ctx context.Context, topic string, ts []target) ([]store.AuditQueue, error) {
	rows := make([]store.AuditQueue, len(ts))
	f := s.cluster.Fanout(ctx)
	for i, t := range ts {
		rows[i] = store.AuditQueue{Topic: topic, BrokerName: t.broker.Name, BrokerAddr: t.broker.Master, Method: "DELETE_TOPIC_IN_BROKER", Note: i18n.TextOf(i18n.M("topic.audit.deleted"))}
		f.GoTopic(t.broker, topic, "delete topic", func(ctx context.Context, addr string) error {
			return s.changer.DeleteTopicInBroker(ctx, addr, topic)
		})
	}
	fails := f.Wait()
	markFailures(rows, fails)
	if len(fails) > 0 {
		return rows, fmt.Errorf("the NameServers keep topic %s's route, since %d of %d brokers still have it; delete it again once they answer", topic, len(fails), len(rows))
	}
	if err := s.changer.DeleteTopicInNameServers(ctx, topic); err != nil {
		return rows, fmt.Errorf("deleted on every broker, but not from every NameServer: %w", err)
	}
	for i := range rows {
		rows[i].Note = i18n.TextOf(i18n.M("topic.audit.route_deleted"))
	}
	return rows, nil
}

// ReasonNoAudit is the API code of a change refused because the console has no audit
// log to write it to (Unavailable): it makes none.
const ReasonNoAudit = "audit_unavailable"

func errNoAudit() error {
	return fault.New(fault.Unavailable, "topic.change.noaudit").Because(ReasonNoAudit)
}

func (s *Service) entry(who Who, mode, topic string, params []byte) *store.AuditEntry {
	return &store.AuditEntry{StartedAt: s.opts.Now(), Actor: who.Actor, ActorAddr: who.Addr, Cluster: s.opts.NameServers,
		Topics: []string{topic}, Mode: mode, Params: params}
}

// forgetList drops the cached list, so the next one shows the change.
func (s *Service) forgetList() {
	s.listMu.Lock()
	s.list = nil
	s.listMu.Unlock()
}

// BrokerPlace is a broker a topic can be placed on, for the create and update forms.
type BrokerPlace struct {
	Name    string `json:"brokerName"`
	Cluster string `json:"cluster"`
	// Is5 is set when its master runs 5.x (message types); false when it runs 4.x or
	// could not be asked.
	Is5 bool `json:"is5"`
}

// Placement lists the cluster's brokers (by name) with their cluster and version.
func (s *Service) Placement(ctx context.Context) ([]BrokerPlace, error) {
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	f := s.cluster.Fanout(ctx)
	out := cluster.Each(f, brokers, "version", func(ctx context.Context, addr string) (BrokerPlace, error) {
		v, err := s.admin.BrokerVersion(ctx, addr)
		return BrokerPlace{Is5: v.Is5()}, err
	})
	f.Wait()
	for i, b := range brokers {
		out[i].Name, out[i].Cluster = b.Name, b.Cluster
	}
	return out, nil
}

// configElsewhere is the topic's configuration on a broker of its route that the save
// does not go to (the topic exists, and the save adds brokers to it), nil when that
// broker cannot be read; routed says whether the NameServers have a route for the topic
// at all, that is whether it exists.
func (s *Service) configElsewhere(ctx context.Context, topic string, ts []target) (tc *rocketmq.TopicConfig, routed bool, err error) {
	route, err := s.cluster.Route(ctx, topic)
	if errors.Is(err, rocketmq.ErrTopicNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	for _, b := range route.Brokers {
		if b.Master == "" || slices.ContainsFunc(ts, func(t target) bool { return t.broker.Name == b.Name }) {
			continue
		}
		t, err := s.admin.TopicConfigs(ctx, b.Master)
		if err != nil {
			continue
		}
		if tc, ok := t.Topics[topic]; ok {
			return &tc, true, nil
		}
	}
	return nil, true, nil
}
