package rocketmq

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// ConsumeQueueEntry is one entry of a queue's consume queue: where the message
// with that queue offset lies in the broker's commit log.
type ConsumeQueueEntry struct {
	PhysicOffset int64 `json:"physicOffset"`
	PhysicSize   int   `json:"physicSize"`
	TagsCode     int64 `json:"tagsCode"`
}

// ConsumeQueue is an answer of QUERY_CONSUME_QUEUE.
type ConsumeQueue struct {
	Entries []ConsumeQueueEntry `json:"queueData"`
	// MinQueueIndex and MaxQueueIndex are the queue's offsets: the oldest kept
	// and the one the next message gets.
	MinQueueIndex int64 `json:"minQueueIndex"`
	MaxQueueIndex int64 `json:"maxQueueIndex"`
}

// QueryConsumeQueue reads up to count consume-queue entries of mq from
// offset index (QUERY_CONSUME_QUEUE), an admin request every broker role
// answers, slaves included.
func (c *Client) QueryConsumeQueue(ctx context.Context, addr string, mq MessageQueue, index int64, count int) (*ConsumeQueue, error) {
	ext := map[string]string{"topic": mq.Topic, "queueId": itoa(mq.QueueID), "index": i64toa(index), "count": itoa(count)}
	resp, err := c.call(ctx, addr, CodeQueryConsumeQueue, ext, nil)
	if err != nil {
		return nil, fmt.Errorf("consume queue of %s from %d on %s: %w", mq, index, addr, err)
	}
	body, err := NormalizeJSON(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("consume queue of %s from %d on %s: %w", mq, index, addr, err)
	}
	var cq ConsumeQueue
	if err := json.Unmarshal(body, &cq); err != nil {
		return nil, fmt.Errorf("consume queue of %s from %d on %s: %w", mq, index, addr, err)
	}
	return &cq, nil
}

// pullRejected reports whether a PULL_MESSAGE answer is the broker refusing
// pulls altogether: a 5.x slave without slaveReadEnable answers SYSTEM_BUSY
// "[REJECTREQUEST]system busy, start flow control for a while" to every pull
// (4.9.7 slaves serve them).
func pullRejected(resp *command) bool {
	return ResponseCode(resp.Code) == CodeSystemBusy && strings.Contains(resp.Remark, "[REJECTREQUEST]")
}

// readConsumeQueue answers a pull the broker refused by reading the same
// offsets another way: the consume-queue entries from offset, then each
// message from the commit log at its physical offset. The broker holds the
// same messages; it only will not serve them to a pull.
func (c *Client) readConsumeQueue(ctx context.Context, addr string, mq MessageQueue, offset int64, maxNums int) (*PullResult, error) {
	cq, err := c.QueryConsumeQueue(ctx, addr, mq, offset, maxNums)
	if err != nil {
		return nil, fmt.Errorf("pull %s from offset %d on %s (refused; read through the consume queue): %w", mq, offset, addr, err)
	}
	r := &PullResult{MinOffset: cq.MinQueueIndex, MaxOffset: cq.MaxQueueIndex, ViaConsumeQueue: true}
	switch {
	case offset >= cq.MaxQueueIndex:
		r.Status, r.NextBeginOffset = PullNoNewMsg, offset
		return r, nil
	case offset < cq.MinQueueIndex:
		r.Status, r.NextBeginOffset = PullOffsetIllegal, cq.MinQueueIndex
		return r, nil
	case len(cq.Entries) == 0:
		r.Status, r.NextBeginOffset = PullNoNewMsg, offset
		return r, nil
	}
	r.Status = PullFound
	for _, e := range cq.Entries {
		m, err := c.ViewMessageAt(ctx, addr, e.PhysicOffset, mq.Topic)
		if err != nil {
			return nil, fmt.Errorf("pull %s from offset %d on %s (refused; read through the consume queue): %w", mq, offset, addr, err)
		}
		r.Messages = append(r.Messages, m)
	}
	r.NextBeginOffset = offset + int64(len(cq.Entries))
	if last := r.Messages[len(r.Messages)-1].QueueOffset; last >= offset {
		r.NextBeginOffset = last + 1
	}
	return r, nil
}
