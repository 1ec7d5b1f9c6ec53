package handlers

import (
	"context"

	"github.com/gin-gonic/gin"

	"rmqconsole/freetext"
	"rmqconsole/lookup"
	"rmqconsole/store"
)

// ReadAudit records who read message bodies and exported messages: each such answer
// is one audit entry (store.ReadModes), written before the answer goes out.
type ReadAudit struct {
	// Log is the cluster's audit log (*store.AuditLog).
	Log interface {
		RecordRead(ctx context.Context, r store.Read) error
	}
	// NameServers is the cluster's NameServer list, as the entries name it.
	NameServers string
	// Unrecorded hears a read the database did not take (for /metrics); may be nil.
	Unrecorded func(err error)
}

// UnrecordedHeader names, on an answer, the failure to record it in the audit log.
const UnrecordedHeader = "X-Audit-Unrecorded"

// readQueryMax bounds each parameter of the query a read's entry repeats.
const readQueryMax = 256

// record writes the read to the audit log, waiting no longer than the store's bound as
// every audit write does. A database that fails does not fail the answer (the reader
// may be on call, the body already fetched): the failure is logged, counted on
// /metrics and named on the answer in UnrecordedHeader.
func (a *ReadAudit) record(h *Env, c *gin.Context, r store.Read) {
	if a == nil || a.Log == nil {
		return
	}
	r.Actor, r.ActorAddr, r.Cluster = Actor(c), c.ClientIP(), a.NameServers
	// The read happened: it is recorded even when the reader has gone.
	err := a.Log.RecordRead(context.WithoutCancel(c.Request.Context()), r)
	if err == nil {
		return
	}
	h.Log.Error("record a read in the audit log", "mode", r.Mode, "topic", r.Topic, "actor", r.Actor, "err", err)
	if a.Unrecorded != nil {
		a.Unrecorded(err)
	}
	c.Header(UnrecordedHeader, freetext.Cut(err.Error(), 300))
}

// recordBody records that one message's body was shown, as how (page, row, file, api).
func (h *Messages) recordBody(c *gin.Context, m lookup.Message, how string) {
	h.Reads.record(h.Env, c, store.Read{Mode: store.ReadBodyMode, Topic: m.Topic, MsgID: m.MsgID(), OffsetMsgID: m.OffsetMsgID(),
		Rows: 1, Format: how})
}

// recordList records an answer that listed rows messages with their bodies: mode is
// store.ReadListMode or store.ExportMode, format the file's (csv, json) or "api".
func (h *Messages) recordList(c *gin.Context, mode, topic, format string, rows int) {
	q := map[string]string{}
	for k, vs := range c.Request.URL.Query() {
		if len(vs) > 0 && vs[0] != "" {
			q[freetext.Cut(k, 64)] = freetext.Cut(vs[0], readQueryMax)
		}
	}
	h.Reads.record(h.Env, c, store.Read{Mode: mode, Topic: topic, Query: q, Rows: rows, Format: format})
}
