package groups

import (
	"time"

	"rmqconsole/rocketmq"
)

// Offsets are a group's broker and committed offsets at one read of the group list:
// what consume and produce rates, and progress, are worked out from.
type Offsets struct {
	At     time.Time
	Queues map[rocketmq.MessageQueue][2]int64 // broker offset, consumer offset
}

// OffsetsOf takes g's offsets read at at: the queues whose two offsets are known.
func OffsetsOf(g Summary, at time.Time) Offsets {
	o := Offsets{At: at, Queues: make(map[rocketmq.MessageQueue][2]int64, len(g.Queues))}
	for _, q := range g.Queues {
		if q.BrokerOffset != nil && q.ConsumerOffset != nil {
			o.Queues[q.Queue()] = [2]int64{*q.BrokerOffset, *q.ConsumerOffset}
		}
	}
	return o
}

// Advanced is how many messages were produced to and consumed from the queues both reads
// saw, between them, and how many queues that is. A queue whose offset went back (a
// reset, a recreated queue) counts 0 rather than a negative number.
func Advanced(from, to Offsets) (produced, consumed int64, common int) {
	for mq, now := range to.Queues {
		was, ok := from.Queues[mq]
		if !ok {
			continue
		}
		common++
		produced += max(0, now[0]-was[0])
		consumed += max(0, now[1]-was[1])
	}
	return produced, consumed, common
}
