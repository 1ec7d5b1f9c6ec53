package resets

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Copy is what a ModeGroup plan copies: the other group, and the queues it has no
// committed offset on (left where they are).
type Copy struct {
	FromGroup string
	NoOffset  []rocketmq.MessageQueue
}

// sources are what targets come from besides the queue itself: the entry an undo
// restores, the other group's offsets a copy takes.
type sources struct {
	undo *undoSource
	from map[rocketmq.MessageQueue]QueueState
	msg  *Message
}

// readFrom reads group's committed offsets on the queues, one read per broker and
// topic, as a snapshot reads the group being reset.
func (s *Service) readFrom(ctx context.Context, group string, queues []QueueState) (map[rocketmq.MessageQueue]QueueState, error) {
	type part struct{ addr, topic string }
	parts := map[part][]rocketmq.MessageQueue{}
	for _, q := range queues {
		k := part{q.Addr, q.Queue.Topic}
		parts[k] = append(parts[k], q.Queue)
	}
	out := map[rocketmq.MessageQueue]QueueState{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs []error
	for k, mqs := range parts {
		wg.Go(func() {
			qs, err := s.readQueues(ctx, group, k.topic, k.addr, mqs)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, wrapf(err, "read the offsets of group %q on topic %q at %s to copy them", group, k.topic, k.addr))
				return
			}
			for _, q := range qs {
				out[q.Queue] = q
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}

// collect names the plan's queues the other group has no offset on; a plan where it
// has none at all copies nothing and is refused.
func (c *Copy) collect(p *Plan) error {
	for _, q := range p.Queues {
		if len(q.Note) > 0 && q.Note[len(q.Note)-1].ID == "resets.note.copy_none" {
			c.NoOffset = append(c.NoOffset, q.Queue)
		}
	}
	if len(c.NoOffset) == len(p.Queues) {
		return fault.InvalidField("fromGroup", "resets.input.from_group.nothing", "From", c.FromGroup, "Topics", strings.Join(p.Topics, ", "))
	}
	return nil
}

// warnings say where the offsets come from, and which queues are left alone.
func (c *Copy) warnings() []i18n.Message {
	w := []i18n.Message{i18n.M("resets.warn.copy", "From", c.FromGroup)}
	if len(c.NoOffset) > 0 {
		parts := make([]string, len(c.NoOffset))
		for i, q := range c.NoOffset {
			parts[i] = q.Topic + " " + q.BrokerName + "/" + strconv.Itoa(q.QueueID)
		}
		w = append(w, i18n.M("resets.warn.copy_none", "N", len(c.NoOffset), "From", c.FromGroup, "Queues", strings.Join(parts, ", ")))
	}
	return w
}
