package resets

import (
	"context"
	"errors"
	"fmt"

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
		var why string
		what := "reset"
		switch {
		case len(rows) == 0:
			// A change audited through store.AuditLog.Change (a topic, a resend): there
			// are no offsets to read back.
			what = "change (" + e.Mode + ")"
			why = "look at the cluster to see whether it took place"
		case s.admin == nil:
			why = "no cluster is configured now, so the offsets could not be read"
		case e.Cluster != s.cluster:
			why = fmt.Sprintf("the console now talks to %s, not %s, so the offsets were not read", s.cluster, e.Cluster)
		default:
			rctx, cancel := context.WithTimeout(ctx, s.recoverWait)
			found := s.readBack(rctx, e.Group, rows)
			cancel()
			for j := range rows {
				if found[j].read {
					after := found[j].offset
					rows[j].After = &after
					rows[j].Note = joinNote(rows[j].Note, "offset found when the console started again")
				} else {
					rows[j].Note = joinNote(rows[j].Note, "offset could not be read at restart: "+found[j].err)
				}
			}
			why = "the offsets shown as after were found then: compare them with the targets to see which queues were reset"
		}
		e.Result = rows
		e.Status = store.AuditInterrupted
		e.FinishedAt = now
		e.Error = fmt.Sprintf("The console stopped before this %s finished (it was killed or crashed). Marked %s, once no running console was applying it; %s.",
			what, now.UTC().Format("2006-01-02 15:04:05 UTC"), why)
		if err := s.audit.Finish(ctx, e); err != nil {
			if errors.Is(err, store.ErrAuditNotPending) {
				continue // another console sharing the database marked it first
			}
			return marked, err
		}
		s.log.Warn(what+" interrupted by a stop of the console", "audit_id", e.ID, "group", e.Group, "topics", e.Topics, "actor", e.Actor)
		marked++
	}
	return marked, nil
}
