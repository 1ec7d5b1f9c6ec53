package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// The modes of the entries that record who read what: a read is no change, but the
// question "who read this message?" is answered from the same log, chained the same way.
const (
	// ReadBodyMode: one message's body shown or downloaded (its page, the row that opens
	// under a search result, the API's answer for one message).
	ReadBodyMode = "read-body"
	// ReadListMode: an API answer listing messages with their bodies: one entry for the
	// whole answer, naming the query and how many messages it carried.
	ReadListMode = "read-list"
	// ExportMode: a search exported as a file (CSV or JSON), with how many rows it had.
	ExportMode = "export"
)

// ReadModes are the modes of AuditKindReads.
var ReadModes = []string{ReadBodyMode, ReadListMode, ExportMode}

// IsReadMode reports whether an entry of mode records a read.
func IsReadMode(mode string) bool { return slices.Contains(ReadModes, mode) }

// Read is one read of message bodies, for the audit log.
type Read struct {
	// Mode is ReadBodyMode, ReadListMode or ExportMode.
	Mode             string
	Actor, ActorAddr string
	// Cluster is the NameServer list asked.
	Cluster string
	Topic   string
	// MsgID and OffsetMsgID name the message of a ReadBodyMode read.
	MsgID, OffsetMsgID string
	// Query is what was asked (a list or an export): the search's parameters.
	Query map[string]string
	// Rows is how many messages the answer or the file carried.
	Rows int
	// Format is an export's (csv or json), or how a body was shown (page, row, file, api).
	Format string
	At     time.Time
}

// RecordRead appends the read as a finished entry of its own: one insert, sealed into
// the chain like every other entry. The caller decides what a failure means for its
// answer; the error says the database failed (store.ErrUnavailable) or why.
func (l *AuditLog) RecordRead(ctx context.Context, r Read) error {
	if !IsReadMode(r.Mode) {
		return fmt.Errorf("record read: mode %q is not a read", r.Mode)
	}
	params := map[string]any{"rows": r.Rows}
	if r.MsgID != "" {
		params["msgId"] = r.MsgID
	}
	if r.OffsetMsgID != "" {
		params["offsetMsgId"] = r.OffsetMsgID
	}
	if len(r.Query) > 0 {
		params["query"] = r.Query
	}
	if r.Format != "" {
		params["format"] = r.Format
	}
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("record read of topic %q: %w", r.Topic, err)
	}
	at := r.At
	if at.IsZero() {
		at = time.Now()
	}
	e := &AuditEntry{StartedAt: at, FinishedAt: at, Actor: r.Actor, ActorAddr: r.ActorAddr, Cluster: r.Cluster,
		Mode: r.Mode, Params: b, Status: AuditApplied}
	if r.Topic != "" {
		e.Topics = []string{r.Topic}
	}
	if err := l.Record(ctx, e); err != nil {
		return fmt.Errorf("record read of topic %q: %w", r.Topic, failed(err))
	}
	return nil
}
