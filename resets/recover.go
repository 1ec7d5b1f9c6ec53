package resets

import (
	"context"
	"errors"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// RecoverInterrupted finishes every entry left pending by a console that is gone (this
// console's previous run, or another console sharing the database whose heartbeat
// stopped: it was killed or crashed between writing the entry and recording the
// outcome) as interrupted, with each queue's committed offset as found now, so the log
// says where the group ended up. An entry a running console is applying is never
// touched. It returns how many entries it marked.
func (s *Service) RecoverInterrupted(ctx context.Context) (int, error) {
	pending, err := s.audit.Orphaned(ctx)
	if err != nil {
		return 0, err
	}
	marked := 0
	for i := range pending {
		e := &pending[i]
		rows := append([]store.AuditQueue(nil), e.Plan.Queues...)
		now := s.now()
		what := i18n.M("resets.interrupted.reset")
		var why i18n.Message
		switch {
		case len(rows) == 0:
			// A change audited through store.AuditLog.Change (a topic, a resend): there
			// are no offsets to read back.
			what = i18n.M("resets.interrupted.change", "Mode", e.Mode)
			why = i18n.M("resets.interrupted.look")
		case s.admin == nil:
			why = i18n.M("resets.interrupted.no_cluster")
		case e.Cluster != s.nameServers:
			why = i18n.M("resets.interrupted.other_cluster", "Now", s.nameServers, "Then", e.Cluster)
		default:
			rctx, cancel := context.WithTimeout(ctx, s.recoverWait)
			found := s.readBack(rctx, e.Group, rows)
			cancel()
			for j := range rows {
				if found[j].read {
					after := found[j].offset
					rows[j].After = &after
					rows[j].Note = joinNote(rows[j].Note, i18n.M("resets.note.found_at_restart"))
				} else {
					rows[j].Note = joinNote(rows[j].Note, i18n.M("resets.note.unread_at_restart", "Error", found[j].err))
				}
			}
			why = i18n.M("resets.interrupted.compare")
		}
		e.Result = rows
		e.Status = store.AuditInterrupted
		e.FinishedAt = now
		e.Error = i18n.TextOf(i18n.M("resets.interrupted", "What", what, "At", now.UTC().Format("2006-01-02 15:04:05 UTC"), "Why", why))
		if err := s.audit.Finish(ctx, e); err != nil {
			if errors.Is(err, store.ErrAuditNotPending) {
				continue // another console sharing the database marked it first
			}
			return marked, err
		}
		s.log.Warn(what.String()+" interrupted by a stop of the console", "audit_id", e.ID, "group", e.Group, "topics", e.Topics, "actor", e.Actor)
		marked++
	}
	return marked, nil
}
