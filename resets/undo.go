package resets

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Undo is what an undo plan takes back: the audit entry undone and, queue by queue,
// what changed since that reset. The plan moves every queue it found back to its
// "before" offset; these lists say where that is not the clean reversal it looks like.
type Undo struct {
	// AuditID is the entry undone.
	AuditID int64
	// Topics are the entry's topics.
	Topics []string
	// Actor and At say who applied the reset undone, and when.
	Actor string
	At    time.Time
	// Moved are queues whose committed offset is no longer the one the reset left
	// (someone consumed or reset again since): undoing also takes that back.
	Moved []UndoQueue
	// Unstored are queues whose "before" offset is below the queue's min offset now
	// (the messages were deleted): they go to the oldest message kept instead.
	Unstored []UndoQueue
	// Missing are queues of the entry the brokers no longer have or did not answer
	// for: they are left alone.
	Missing []UndoQueue
}

// UndoQueue is one queue of the reset undone, as recorded and as found now.
type UndoQueue struct {
	Queue rocketmq.MessageQueue
	// Before is the offset the entry recorded before its reset; After what it read
	// back (nil when it could not).
	Before int64
	After  *int64
	// Current and Min are the queue as read now (zero for a missing queue).
	Current, Min int64
}

// UndoOf is the audit entry an entry undoes, 0 when it is not an undo.
func UndoOf(e *store.AuditEntry) int64 {
	if Mode(e.Mode) != ModeUndo {
		return 0
	}
	var p struct {
		AuditID int64 `json:"auditId"`
	}
	if json.Unmarshal(e.Params, &p) != nil {
		return 0
	}
	return p.AuditID
}

// Undoable reports whether an entry's reset can be undone: it reached the brokers
// (applied, or partial) and recorded every queue's offset before it.
func Undoable(e *store.AuditEntry) bool {
	return Mode(e.Mode).Valid() && len(e.Result) > 0 &&
		(e.Status == store.AuditApplied || e.Status == store.AuditPartial)
}

// checkUndo is Check's part for ModeUndo: the entry is named, and the reset is the
// entry's whole reset (its topics and queues come from the entry).
func checkUndo(errs *fault.List, r Request) {
	if r.AuditID <= 0 {
		errs.Invalid("auditId", "resets.input.undo.no_entry")
	}
	if r.Topic != "" {
		errs.Invalid("topic", "resets.input.undo.scope")
	} else if r.OneQueue() || r.BrokerName != "" {
		errs.Invalid("queueId", "resets.input.undo.scope")
	}
}

// undoSource is the audit entry an undo plan restores, read before any broker is asked.
type undoSource struct {
	entry *store.AuditEntry
}

// undoSource reads and checks the entry req undoes: it exists, was written on this
// cluster for req's group, and is an applied or partial reset.
func (s *Service) undoSource(ctx context.Context, req Request) (*undoSource, error) {
	e, err := s.audit.Get(ctx, req.AuditID)
	switch {
	case fault.Is(err, fault.NotFound):
		return nil, fault.InvalidField("auditId", "resets.input.undo.unknown", "ID", req.AuditID)
	case err != nil:
		return nil, wrapf(err, "read audit entry %d to undo it", req.AuditID)
	case !Mode(e.Mode).Valid():
		return nil, fault.InvalidField("auditId", "resets.input.undo.not_reset", "ID", e.ID)
	case !Undoable(e):
		return nil, fault.InvalidField("auditId", "resets.input.undo.status", "ID", e.ID, "Status", string(e.Status))
	case e.Cluster != s.nameServers:
		return nil, fault.InvalidField("auditId", "resets.input.undo.other_cluster", "ID", e.ID, "Then", e.Cluster, "Now", s.nameServers)
	case e.Group != req.Group:
		return nil, fault.InvalidField("auditId", "resets.input.undo.other_group", "ID", e.ID, "Group", e.Group, "Asked", req.Group)
	}
	return &undoSource{entry: e}, nil
}

// topic is the topic to read the group's offsets on: the entry's one topic, or every
// topic of the group.
func (u *undoSource) topic() string {
	if len(u.entry.Topics) == 1 {
		return u.entry.Topics[0]
	}
	return ""
}

// queues picks the entry's queues out of the snapshot and says how each stands.
func (u *undoSource) queues(snap *Snapshot) ([]QueueState, *Undo) {
	e := u.entry
	undo := &Undo{AuditID: e.ID, Topics: e.Topics, Actor: e.Actor, At: e.StartedAt}
	var out []QueueState
	for _, r := range e.Result {
		mq := rocketmq.MessageQueue{Topic: r.Topic, BrokerName: r.BrokerName, QueueID: r.QueueID}
		uq := UndoQueue{Queue: mq, Before: r.Before, After: r.After}
		q, ok := snap.Queue(mq)
		if !ok {
			undo.Missing = append(undo.Missing, uq)
			continue
		}
		uq.Current, uq.Min = q.Current, q.Min
		if r.After == nil || *r.After != q.Current {
			undo.Moved = append(undo.Moved, uq)
		}
		if r.Before < q.Min {
			undo.Unstored = append(undo.Unstored, uq)
		}
		out = append(out, q)
	}
	return out, undo
}

// before is the offset the entry recorded before its reset on mq.
func (u *undoSource) before(mq rocketmq.MessageQueue) int64 {
	for _, r := range u.entry.Result {
		if r.Topic == mq.Topic && r.BrokerName == mq.BrokerName && r.QueueID == mq.QueueID {
			return r.Before
		}
	}
	return 0
}

// undoNote says on a queue's row that it moved since the reset undone.
func undoNote(undo *Undo, mq rocketmq.MessageQueue) i18n.Message {
	for _, m := range undo.Moved {
		if m.Queue == mq {
			if m.After == nil {
				return i18n.M("resets.note.undo_unread", "ID", undo.AuditID)
			}
			return i18n.M("resets.note.undo_moved", "ID", undo.AuditID, "After", *m.After, "Now", m.Current)
		}
	}
	return i18n.Message{}
}

// undoWarnings say what an undo does and where it is not a clean reversal.
func undoWarnings(u *Undo) []i18n.Message {
	w := []i18n.Message{i18n.M("resets.warn.undo", "ID", u.AuditID, "Actor", u.Actor,
		"At", u.At.UTC().Format("2006-01-02 15:04:05 UTC"), "Topics", strings.Join(u.Topics, ", "))}
	names := func(qs []UndoQueue) string {
		parts := make([]string, len(qs))
		for i, q := range qs {
			parts[i] = q.Queue.Topic + " " + q.Queue.BrokerName + "/" + strconv.Itoa(q.Queue.QueueID)
		}
		return strings.Join(parts, ", ")
	}
	if len(u.Moved) > 0 {
		w = append(w, i18n.M("resets.warn.undo_moved", "N", len(u.Moved), "Queues", names(u.Moved)))
	}
	if len(u.Unstored) > 0 {
		w = append(w, i18n.M("resets.warn.undo_unstored", "N", len(u.Unstored), "Queues", names(u.Unstored)))
	}
	if len(u.Missing) > 0 {
		w = append(w, i18n.M("resets.warn.undo_missing", "N", len(u.Missing), "Queues", names(u.Missing)))
	}
	return w
}
