package auditstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"rmqconsole/cluster"
	"rmqconsole/rocketmq"
)

// ProducerGroup is the producer group the console sends the audit records as.
const ProducerGroup = "rmqconsole_audit"

// Tag is the tag of every audit record's message.
const Tag = "audit"

// Sender is what the topic sink needs of the cluster (*rocketmq.Client).
type Sender interface {
	SendMessage(ctx context.Context, addr string, mq rocketmq.MessageQueue, producerGroup string, m rocketmq.OutgoingMessage) (*rocketmq.SendResult, error)
}

// Router reads a topic's route (*cluster.Cluster).
type Router interface {
	Route(ctx context.Context, topic string) (*cluster.Route, error)
}

// Topic sends each record as one message (body the record's JSON, tag Tag, keys its
// chain position and entry id) to the first writable queue of the topic, so that one
// queue holds the chain in order.
type Topic struct {
	// ClusterName names the configured cluster, for the cursor's name.
	ClusterName string
	Topic       string
	Router      Router
	Sender      Sender
}

// Name is the cursor's name.
func (t *Topic) Name() string { return "topic " + t.ClusterName + "/" + t.Topic }

// Deliver sends recs one after the other; the first that is not stored stops it.
func (t *Topic) Deliver(ctx context.Context, recs []Record) error {
	route, err := t.Router.Route(ctx, t.Topic)
	if err != nil {
		return fmt.Errorf("route of audit topic %s: %w", t.Topic, err)
	}
	qs := route.Raw().WriteQueues()
	if len(qs) == 0 {
		return fmt.Errorf("audit topic %s has no writable queue on a master", t.Topic)
	}
	q := qs[0]
	b, _ := route.Broker(q.BrokerName)
	for _, r := range recs {
		body, err := json.Marshal(r)
		if err != nil {
			return err
		}
		seq, id := strconv.FormatInt(r.Seq, 10), strconv.FormatInt(r.ID, 10)
		m := rocketmq.OutgoingMessage{Topic: t.Topic, Body: body, Properties: map[string]string{
			rocketmq.PropertyUniqueKey: rocketmq.NewUniqueKey(), rocketmq.PropertyTags: Tag,
			rocketmq.PropertyKeys: "seq-" + seq + " id-" + id, "AUDIT_SEQ": seq, "AUDIT_HASH": r.Hash, "AUDIT_PREV_HASH": r.PrevHash,
		}}
		res, err := t.Sender.SendMessage(ctx, b.Master, q, ProducerGroup, m)
		if err != nil {
			return fmt.Errorf("send audit record %d to %s: %w", r.Seq, t.Topic, err)
		}
		if res.Status != rocketmq.SendOK {
			// Stored, but not flushed or replicated in time: sent again, as a duplicate.
			return fmt.Errorf("send audit record %d to %s: the broker answered %s", r.Seq, t.Topic, res.Status)
		}
	}
	return nil
}
