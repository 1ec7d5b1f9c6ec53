package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
)

// AuditStatus is where an audit entry stands. Only pending changes, once, to one of the
// others.
type AuditStatus string

// The statuses of an audit entry.
const (
	// AuditPending: written before any broker was asked to change anything; the outcome
	// is not known yet.
	AuditPending AuditStatus = "pending"
	// AuditApplied: every queue was reset and read back at its target.
	AuditApplied AuditStatus = "applied"
	// AuditPartial: some queues reached their target, others did not.
	AuditPartial AuditStatus = "partial"
	// AuditFailed: no queue reached its target.
	AuditFailed AuditStatus = "failed"
	// AuditRefused: the attempt was refused (bad input, a conflict, permissions) and
	// nothing was changed.
	AuditRefused AuditStatus = "refused"
	// AuditInterrupted: the console stopped between the pending write and the outcome;
	// marked at the next start with the offsets found then.
	AuditInterrupted AuditStatus = "interrupted"
)

// AuditStatuses lists every status, for filters.
var AuditStatuses = []AuditStatus{AuditPending, AuditApplied, AuditPartial, AuditFailed, AuditRefused, AuditInterrupted}

// Valid reports whether s is a known status.
func (s AuditStatus) Valid() bool {
	for _, v := range AuditStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// AuditQueue is one queue of a reset: where it was, where it was meant to go, and where it
// was found afterwards.
type AuditQueue struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int    `json:"queueId"`
	BrokerAddr string `json:"brokerAddr,omitempty"`
	// Before is the group's committed offset when the reset was applied (in a plan: when
	// it was previewed).
	Before int64 `json:"before"`
	// Target is the offset the reset moves the group to.
	Target    int64 `json:"target"`
	MinOffset int64 `json:"minOffset"`
	MaxOffset int64 `json:"maxOffset"`
	// Method names how the broker was asked (see package resets).
	Method string `json:"method,omitempty"`
	// After is the committed offset read back after the reset; nil when it could not be
	// read (or in a plan).
	After *int64 `json:"after"`
	// Note explains a clamped target or how After came about.
	Note i18n.Text `json:"note,omitempty"`
	// Error says why this queue did not reach its target (empty when it did).
	Error i18n.Text `json:"error"`
}

// AuditBroker is one broker a reset goes through and how.
type AuditBroker struct {
	Name    string `json:"brokerName"`
	Addr    string `json:"addr"`
	Version string `json:"version,omitempty"`
	Method  string `json:"method,omitempty"`
}

// AuditPlan is the plan an operator confirmed, stored whole in the pending entry.
type AuditPlan struct {
	Hash      string        `json:"hash,omitempty"`
	PlannedAt time.Time     `json:"plannedAt,omitzero"`
	Online    bool          `json:"online"`
	Clients   []string      `json:"clients,omitempty"`
	Brokers   []AuditBroker `json:"brokers,omitempty"`
	Queues    []AuditQueue  `json:"queues,omitempty"`
	// Warnings are what the preview said would happen, one sentence each.
	Warnings []i18n.Text `json:"warnings,omitempty"`
}

// AuditEntry is one reset attempt.
type AuditEntry struct {
	ID int64
	// Seq is the entry's position in the hash chain; 0 while pending.
	Seq        int64
	StartedAt  time.Time
	FinishedAt time.Time // zero while pending
	Duration   time.Duration
	Actor      string
	ActorAddr  string
	// Cluster is the NameServer list the console was talking to.
	Cluster string
	// ClusterName is the configured cluster ("" for entries written before clusters
	// had names: the default cluster's).
	ClusterName string
	Group       string
	Topics      []string
	Mode        string
	// Params is the request as asked, JSON.
	Params json.RawMessage
	Reason string
	Plan   AuditPlan
	// Result is every queue's before, target and after; empty while pending and for
	// refusals that never got to a plan.
	Result []AuditQueue
	Status AuditStatus
	// Error says what went wrong or why the attempt was refused (empty when nothing did).
	Error    i18n.Text
	PrevHash string
	Hash     string
}

// Queues returns the result when there is one, else the planned queues.
func (e *AuditEntry) Queues() []AuditQueue {
	if len(e.Result) > 0 {
		return e.Result
	}
	return e.Plan.Queues
}

// ErrAuditNotPending is Finish's answer for an entry that is not pending (any more):
// another console sharing the database finished it first.
var ErrAuditNotPending = errors.New("audit entry is not pending")

// AuditBusyError is why Begin refused an entry: its group (or, for a change that is not
// about a group, its topics) already has a pending entry, the change in flight. Begin
// answers it as the cause of a fault.Conflict.
type AuditBusyError struct {
	Group string
	// Topics are the busy entry's topics when Group is "".
	Topics []string
	// Holder is the pending entry, zero when it could not be read.
	Holder AuditEntry
}

func (e *AuditBusyError) Error() string {
	what := fmt.Sprintf("group %q: a reset of this group is already in progress", e.Group)
	if e.Group == "" {
		what = fmt.Sprintf("topic %q: a change of this topic is already in progress", strings.Join(e.Topics, ", "))
	}
	if e.Holder.ID == 0 {
		return what
	}
	return fmt.Sprintf("%s (audit entry %d, started by %s at %s)", what,
		e.Holder.ID, e.Holder.Actor, e.Holder.StartedAt.UTC().Format(time.RFC3339))
}

// busy is e as the conflict Begin answers, in a sentence naming what holds the group or
// topic.
func (e *AuditBusyError) busy() *fault.Error {
	id, kv := "audit.busy.group", []any{"Group", e.Group}
	if e.Group == "" {
		id, kv = "audit.busy.topic", []any{"Topic", strings.Join(e.Topics, ", ")}
	}
	if h := e.Holder; h.ID != 0 {
		id, kv = id+".held", append(kv, "ID", h.ID, "Actor", h.Actor, "At", h.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	return fault.Wrap(e, fault.Conflict, id, kv...)
}

// ChangeAuditor is what a service that changes a cluster needs of the audit log: the
// entry around each change (pending before it, sealed with its outcome) and the record
// of a change refused. *AuditLog implements it; tests give a service one that fails.
type ChangeAuditor interface {
	Change(ctx context.Context, e *AuditEntry, apply func(ctx context.Context) ([]AuditQueue, error)) error
	Record(ctx context.Context, e *AuditEntry) error
}

var _ ChangeAuditor = (*AuditLog)(nil)

// AuditLog reads and appends audit entries. It never deletes an entry and changes an entry
// only once: pending to its outcome.
type AuditLog struct {
	db      *gorm.DB
	dialect Dialect
	// replica is written on the entries this process starts, so that the crash
	// reconciler of another console leaves them alone while this one lives.
	replica string
	// cluster is written on the entries this log begins and records (Store.ForCluster);
	// defaultCluster owns the entries without one.
	cluster, defaultCluster string
	// timeout bounds each call, as the store's (Store.SetTimeout).
	timeout time.Duration
}

// Audit returns the store's audit log.
func (s *Store) Audit() *AuditLog {
	return &AuditLog{db: s.DB, dialect: s.dialect, replica: s.replica, cluster: s.cluster, defaultCluster: s.defaultCluster,
		timeout: s.timeout}
}

// deadline bounds one call of the log, as Store.deadline does.
func (l *AuditLog) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, orDefault(l.timeout))
}

// ofCluster narrows q to the entries of cluster name: an entry without a cluster name
// is the default cluster's.
func (l *AuditLog) ofCluster(q *gorm.DB, name string) *gorm.DB {
	if name == l.defaultCluster {
		return q.Where("cluster_name IN ?", []string{name, ""})
	}
	return q.Where("cluster_name = ?", name)
}

// auditRow is the table row; JSON columns stay text so the hash covers exactly what is
// stored.
type auditRow struct {
	ID         int64 `gorm:"primaryKey"`
	StartedAt  string
	FinishedAt string
	Actor      string
	ActorAddr  string
	Cluster    string
	// ClusterName is hashed only when set (auditHashV2), so entries written before
	// clusters had names keep their hashes.
	ClusterName string
	GroupName   string
	Topics      string
	Mode        string
	Params      string
	Reason      string
	Plan        string
	Result      string
	Status      string
	Error       string
	DurationMs  int64
	Seq         *int64
	PrevHash    string
	Hash        string
	// Replica is the console that wrote the entry (operational, outside the hash).
	Replica string
}

func (auditRow) TableName() string { return "audit_entries" }

// auditTimeLayout is fixed-width UTC, so comparing the text compares the times.
const auditTimeLayout = "2006-01-02T15:04:05.000000000Z"

func fmtAuditTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(auditTimeLayout)
}

func parseAuditTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(auditTimeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// genesisHash is the prev_hash of the first entry of the chain.
var genesisHash = strings.Repeat("0", 64)

// contentHash is the SHA-256 of every column but hash itself, in a fixed order, prev_hash
// included: changing any entry changes its hash and breaks the link from the next one.
func (r *auditRow) contentHash() string {
	var seq int64
	if r.Seq != nil {
		seq = *r.Seq
	}
	fields := []any{
		"rmqconsole-audit-v1", seq, r.PrevHash, r.ID, r.StartedAt, r.FinishedAt, r.Actor, r.ActorAddr,
		r.Cluster, r.GroupName, r.Topics, r.Mode, r.Params, r.Reason, r.Plan, r.Result, r.Status,
		r.Error, r.DurationMs,
	}
	if r.ClusterName != "" {
		// v2 adds the cluster's name. An entry's version follows from its content: setting
		// or clearing the name later changes the material, so it breaks the hash either way.
		fields[0] = "rmqconsole-audit-v2"
		fields = append(fields, r.ClusterName)
	}
	material, _ := json.Marshal(fields)
	sum := sha256.Sum256(material)
	return hex.EncodeToString(sum[:])
}

func jsonText(v any, empty string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if string(b) == "null" {
		return empty, nil
	}
	return string(b), nil
}

func toRow(e *AuditEntry) (*auditRow, error) {
	r := &auditRow{
		ID: e.ID, StartedAt: fmtAuditTime(e.StartedAt), FinishedAt: fmtAuditTime(e.FinishedAt),
		Actor: e.Actor, ActorAddr: e.ActorAddr, Cluster: e.Cluster, ClusterName: e.ClusterName, GroupName: e.Group, Mode: e.Mode,
		Reason: e.Reason, Status: string(e.Status), Error: storedText(e.Error), DurationMs: e.Duration.Milliseconds(),
		PrevHash: e.PrevHash, Hash: e.Hash, Params: "{}",
	}
	if e.Seq > 0 {
		seq := e.Seq
		r.Seq = &seq
	}
	var err error
	topics := e.Topics
	if topics == nil {
		topics = []string{}
	}
	if r.Topics, err = jsonText(topics, "[]"); err != nil {
		return nil, err
	}
	if len(e.Params) > 0 {
		if !json.Valid(e.Params) {
			return nil, fmt.Errorf("params are not JSON")
		}
		r.Params = string(e.Params)
	}
	if r.Plan, err = jsonText(storePlan(e.Plan), "{}"); err != nil {
		return nil, err
	}
	if r.Result, err = jsonText(storeQueues(e.Result), "[]"); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *auditRow) entry() AuditEntry {
	e := AuditEntry{
		ID: r.ID, StartedAt: parseAuditTime(r.StartedAt), FinishedAt: parseAuditTime(r.FinishedAt),
		Duration: time.Duration(r.DurationMs) * time.Millisecond, Actor: r.Actor, ActorAddr: r.ActorAddr,
		Cluster: r.Cluster, ClusterName: r.ClusterName, Group: r.GroupName, Mode: r.Mode, Params: json.RawMessage(r.Params),
		Reason: r.Reason, Status: AuditStatus(r.Status), Error: i18n.Decode(r.Error), PrevHash: r.PrevHash, Hash: r.Hash,
	}
	if r.Seq != nil {
		e.Seq = *r.Seq
	}
	// The columns were written by this package from these types; a row edited by hand
	// that no longer decodes still shows its other fields (and fails verification).
	_ = json.Unmarshal([]byte(r.Topics), &e.Topics)
	var plan storedPlan
	_ = json.Unmarshal([]byte(r.Plan), &plan)
	e.Plan = plan.read()
	var result []storedQueue
	_ = json.Unmarshal([]byte(r.Result), &result)
	e.Result = readQueues(result)
	return e
}

// storedText is t as an entry keeps it: i18n.Encode's form, so that it is read later in
// its reader's language; plain text (old entries, a broker's words) as it is, so that
// entries written before sentences were kept as messages read the same. A sentence
// that cannot be encoded (a value no catalogue could say later) is kept as its English:
// the entry is written either way.
func storedText(t i18n.Text) string {
	if len(t) == 0 {
		return ""
	}
	if len(t) == 1 {
		if s, ok := i18n.PlainOf(t[0]); ok && !strings.HasPrefix(s, "[{") {
			return s
		}
	}
	s, err := i18n.Encode(t)
	if err != nil {
		return t.String()
	}
	return s
}

// storedQueue and storedPlan are an AuditQueue and an AuditPlan as a row's JSON holds
// them: their sentences as storedText writes them, under the fields' own names, so a
// row keeps the shape entries have always had.
type storedQueue struct {
	AuditQueue
	Note  string `json:"note,omitempty"`
	Error string `json:"error"`
}

type storedPlan struct {
	AuditPlan
	Queues   []storedQueue `json:"queues,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
}

func storeQueues(qs []AuditQueue) []storedQueue {
	out := make([]storedQueue, len(qs))
	for i, q := range qs {
		out[i] = storedQueue{AuditQueue: q, Note: storedText(q.Note), Error: storedText(q.Error)}
	}
	return out
}

func readQueues(sqs []storedQueue) []AuditQueue {
	if sqs == nil {
		return nil
	}
	out := make([]AuditQueue, len(sqs))
	for i, sq := range sqs {
		out[i] = sq.AuditQueue
		out[i].Note, out[i].Error = i18n.Decode(sq.Note), i18n.Decode(sq.Error)
	}
	return out
}

func storePlan(p AuditPlan) storedPlan {
	sp := storedPlan{AuditPlan: p}
	if p.Queues != nil {
		sp.Queues = storeQueues(p.Queues)
	}
	for _, w := range p.Warnings {
		sp.Warnings = append(sp.Warnings, storedText(w))
	}
	return sp
}

func (sp storedPlan) read() AuditPlan {
	p := sp.AuditPlan
	p.Queues = readQueues(sp.Queues)
	p.Warnings = nil
	for _, w := range sp.Warnings {
		p.Warnings = append(p.Warnings, i18n.Decode(w))
	}
	return p
}

// nextID returns the id the next row gets; the id is known before the row is written
// because a sealed entry's hash covers it. Neither database ever reuses an id. Called
// inside a write transaction.
func nextID(tx *gorm.DB, d Dialect) (int64, error) {
	q := `SELECT MAX(
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'audit_entries'), 0),
		COALESCE((SELECT MAX(id) FROM audit_entries), 0)) + 1`
	if d == Postgres {
		q = `SELECT nextval(pg_get_serial_sequence('audit_entries', 'id'))`
	}
	var id int64
	err := tx.Raw(q).Scan(&id).Error
	return id, err
}

// lockChain makes the appends to the hash chain one at a time, in the database, for as
// long as tx lasts: two consoles sharing it must not both read the same head and seal
// two entries at one position. SQLite needs nothing here: its write transactions are
// immediate, so they already queue behind one another. On PostgreSQL a transaction-level
// advisory lock queues them; the head is read after it is granted, so it sees every
// append committed before.
func lockChain(tx *gorm.DB, d Dialect) error {
	if d != Postgres {
		return nil
	}
	return tx.Exec(`SELECT pg_advisory_xact_lock(?)`, auditChainLock).Error
}

// auditChainLock is the advisory lock key of the audit chain ("rmqaudit" in ASCII).
const auditChainLock int64 = 0x726d7161756469

// chainHead returns the seq and hash of the last entry in the chain (0 and the genesis
// hash when empty). Called inside a write transaction.
func chainHead(tx *gorm.DB) (int64, string, error) {
	var head struct {
		Seq  int64
		Hash string
	}
	err := tx.Raw(`SELECT seq, hash FROM audit_entries WHERE seq IS NOT NULL ORDER BY seq DESC LIMIT 1`).Scan(&head).Error
	if err != nil {
		return 0, "", err
	}
	if head.Seq == 0 {
		return 0, genesisHash, nil
	}
	return head.Seq, head.Hash, nil
}

// seal gives r its place at the end of the chain and its hash.
func seal(tx *gorm.DB, d Dialect, r *auditRow) error {
	if err := lockChain(tx, d); err != nil {
		return fmt.Errorf("wait for the audit chain: %w", err)
	}
	seq, prev, err := chainHead(tx)
	if err != nil {
		return err
	}
	seq++
	r.Seq = &seq
	r.PrevHash = prev
	r.Hash = r.contentHash()
	return nil
}

// Begin writes e as a pending entry and sets its ID. It fails with a fault.Conflict (its
// cause an *AuditBusyError) when the group already has a pending entry: at most one reset of a group is in flight
// (and, for an entry without a group, one change of its topics).
func (l *AuditLog) Begin(ctx context.Context, e *AuditEntry) error {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	if e.Status == "" {
		e.Status = AuditPending
	}
	if e.Status != AuditPending {
		return fmt.Errorf("begin audit entry for group %q: status %q, want pending", e.Group, e.Status)
	}
	e.Seq, e.PrevHash, e.Hash = 0, "", ""
	e.ClusterName = l.cluster
	r, err := toRow(e)
	if err != nil {
		return fmt.Errorf("begin audit entry for group %q: %w", e.Group, err)
	}
	r.Replica = l.replica
	err = l.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		id, err := nextID(tx, l.dialect)
		if err != nil {
			return err
		}
		r.ID = id
		return tx.Create(r).Error
	})
	if err != nil {
		if isUniqueViolation(err) {
			busy := &AuditBusyError{Group: e.Group, Topics: e.Topics}
			q := l.db.WithContext(ctx).Where("cluster_name = ? AND group_name = ? AND status = ?", r.ClusterName, e.Group, AuditPending)
			if e.Group == "" {
				q = q.Where("topics = ?", r.Topics)
			}
			var holder auditRow
			if q.Take(&holder).Error == nil {
				busy.Holder = holder.entry()
			}
			return busy.busy()
		}
		return fmt.Errorf("write pending audit entry for group %q: %w", e.Group, err)
	}
	e.ID = r.ID
	return nil
}

func isUniqueViolation(err error) bool {
	return errors.Is(err, gorm.ErrDuplicatedKey) || strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// Finish records the outcome of a pending entry (status, result, error, finish time) and
// seals it into the hash chain. The entry's other fields are those written by Begin.
func (l *AuditLog) Finish(ctx context.Context, e *AuditEntry) error {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	if e.Status == AuditPending || !e.Status.Valid() {
		return fmt.Errorf("finish audit entry %d: status %q is not an outcome", e.ID, e.Status)
	}
	if e.FinishedAt.IsZero() {
		e.FinishedAt = time.Now()
	}
	e.Duration = e.FinishedAt.Sub(e.StartedAt)
	err := l.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var stored auditRow
		if err := tx.Where("id = ?", e.ID).Take(&stored).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return fault.New(fault.NotFound, "audit.no_entry", "ID", e.ID)
			}
			return err
		}
		if stored.Status != string(AuditPending) {
			return fmt.Errorf("%w (it is %s)", ErrAuditNotPending, stored.Status)
		}
		upd, err := toRow(e)
		if err != nil {
			return err
		}
		// Everything written by Begin stays as stored; only the outcome is added.
		r := stored
		r.FinishedAt, r.Result, r.Status, r.Error, r.DurationMs = upd.FinishedAt, upd.Result, upd.Status, upd.Error, upd.DurationMs
		if err := seal(tx, l.dialect, &r); err != nil {
			return err
		}
		res := tx.Model(&auditRow{}).Where("id = ? AND status = ?", r.ID, AuditPending).Updates(map[string]any{
			"finished_at": r.FinishedAt, "result": r.Result, "status": r.Status, "error": r.Error,
			"duration_ms": r.DurationMs, "seq": r.Seq, "prev_hash": r.PrevHash, "hash": r.Hash,
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return ErrAuditNotPending
		}
		*e = r.entry()
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish audit entry %d of group %q: %w", e.ID, e.Group, err)
	}
	return nil
}

// Change is how the console changes a cluster other than by a reset (a topic created or
// deleted, a message resent): e is written pending before apply runs, so no change
// happens without its entry, and is then finished with apply's outcome. apply returns
// one row per thing it changed (a broker, a message), each with its Error ("" when done),
// and an error when it could not go on. The status follows: applied when every row is
// done, partial when some are, failed otherwise; refused when the error wraps
// ErrChangeRefused. Change returns an error only when the entry could not be written:
// Begin's conflict or the database's error before apply ran (nothing was changed), or,
// when finishing, an Unavailable *fault.Error (ReasonUnrecorded) saying that the change
// was made and its outcome not recorded.
func (l *AuditLog) Change(ctx context.Context, e *AuditEntry, apply func(ctx context.Context) ([]AuditQueue, error)) error {
	e.Status = AuditPending
	if err := l.Begin(ctx, e); err != nil {
		return err
	}
	rows, err := apply(ctx)
	e.Result, e.Status, e.Error = rows, changeStatus(rows, err), nil
	if err != nil {
		e.Error = ErrorText(err)
	}
	e.FinishedAt = time.Time{}
	// The change has happened: its outcome is written even when the caller has gone.
	if err := l.Finish(context.WithoutCancel(ctx), e); err != nil {
		return unrecorded(e, err)
	}
	return nil
}

// ErrorText is err as an entry keeps it: the sentences of the fault errors it is made of
// as their catalogue messages, so that the entry reads in its reader's language; any
// other error, or one wrapped in more words, as its English.
func ErrorText(err error) i18n.Text {
	fes := fault.All(err)
	if len(fes) == 0 || err.Error() != fes.Error() {
		return i18n.PlainText(err.Error())
	}
	t := make(i18n.Text, len(fes))
	for i, fe := range fes {
		t[i] = fe.Msg
	}
	return t
}

// RefusalText is what the entry of a change refused before it began keeps of why:
// "Refused: " and why's sentences (see ErrorText), or, when that is longer than max
// characters in English, the English cut to max.
func RefusalText(why error, max int) i18n.Text {
	t := i18n.TextOf(i18n.M("audit.refused_because", "Why", ErrorText(why)))
	if s := t.String(); utf8.RuneCountInString(s) > max {
		return i18n.PlainText(freetext.Cut(s, max))
	}
	return t
}

// ReasonUnrecorded is the API code of a change that was made but whose outcome could not
// be written to the audit log: its entry stays pending, and is marked interrupted, with
// what is then found, at the console's next start (on a shared database, by another
// console once this one stops). Unlike a failure before the change, something was changed.
const ReasonUnrecorded = "audit_unrecorded"

// unrecorded is the failure to finish entry e with err, said to who asked for the change.
func unrecorded(e *AuditEntry, err error) error {
	return fault.Wrap(err, fault.Unavailable, "audit.unrecorded", "ID", e.ID, "Error", err.Error()).Because(ReasonUnrecorded)
}

// ErrChangeRefused, wrapped in the error a Change's apply returns, records the change as
// refused: once its entry was pending, apply found it must not go on (what it previewed
// no longer holds) and changed nothing.
var ErrChangeRefused = errors.New("refused at apply")

func changeStatus(rows []AuditQueue, err error) AuditStatus {
	if errors.Is(err, ErrChangeRefused) {
		return AuditRefused
	}
	done := 0
	for _, r := range rows {
		if len(r.Error) == 0 {
			done++
		}
	}
	switch {
	case done > 0 && done == len(rows) && err == nil:
		return AuditApplied
	case done > 0:
		return AuditPartial
	default:
		return AuditFailed
	}
}

// Record appends an entry that is finished from the start (a refused attempt), sealed
// into the chain. It sets e's ID, Seq and hashes.
func (l *AuditLog) Record(ctx context.Context, e *AuditEntry) error {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	return l.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return l.recordTx(tx, e) })
}

// recordTx is Record inside tx, so another change and its audit entry commit together.
func (l *AuditLog) recordTx(tx *gorm.DB, e *AuditEntry) error {
	if e.Status == AuditPending || !e.Status.Valid() {
		return fmt.Errorf("record audit entry for group %q: status %q is not an outcome", e.Group, e.Status)
	}
	if e.FinishedAt.IsZero() {
		e.FinishedAt = time.Now()
	}
	if e.StartedAt.IsZero() {
		e.StartedAt = e.FinishedAt
	}
	e.Duration = e.FinishedAt.Sub(e.StartedAt)
	e.ClusterName = l.cluster
	r, err := toRow(e)
	if err != nil {
		return fmt.Errorf("record audit entry for group %q: %w", e.Group, err)
	}
	r.Replica = l.replica
	err = func() error {
		id, err := nextID(tx, l.dialect)
		if err != nil {
			return err
		}
		r.ID = id
		if err := seal(tx, l.dialect, r); err != nil {
			return err
		}
		return tx.Create(r).Error
	}()
	if err != nil {
		return fmt.Errorf("record %s audit entry for group %q: %w", e.Status, e.Group, err)
	}
	*e = r.entry()
	return nil
}

// Get returns one entry, or a fault.NotFound when no entry has that id.
func (l *AuditLog) Get(ctx context.Context, id int64) (*AuditEntry, error) {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	var r auditRow
	if err := l.db.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, fault.New(fault.NotFound, "audit.no_entry", "ID", id)
		}
		return nil, fmt.Errorf("read audit entry %d: %w", id, err)
	}
	e := r.entry()
	return &e, nil
}

// Pending returns every pending entry of the log's cluster, oldest first.
func (l *AuditLog) Pending(ctx context.Context) ([]AuditEntry, error) {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	var rows []auditRow
	if err := l.ofCluster(l.db.WithContext(ctx), l.cluster).Where("status = ?", AuditPending).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read pending audit entries: %w", err)
	}
	out := make([]AuditEntry, len(rows))
	for i := range rows {
		out[i] = rows[i].entry()
	}
	return out, nil
}

// SignInMode is the mode of the entries that record sign-ins (package auth writes
// them): they belong to the console, not to a cluster.
const SignInMode = "sign-in"

// What an audit list shows (AuditFilter.Kind).
const (
	// AuditKindChanges: what was attempted against the clusters (resets, topic and
	// message changes, their refusals): the list as it always was.
	AuditKindChanges = ""
	// AuditKindSignIns: sign-ins, successful or not, whatever the cluster.
	AuditKindSignIns = "sign-in"
	// AuditKindReads: message bodies read and messages exported (ReadModes).
	AuditKindReads = "read"
	// AuditKindAll: every kind.
	AuditKindAll = "all"
)

// AuditKinds lists every kind, for filters.
var AuditKinds = []string{AuditKindChanges, AuditKindSignIns, AuditKindReads, AuditKindAll}

// AuditFilter selects entries. Empty fields match everything.
type AuditFilter struct {
	// Kind chooses changes (the default), sign-ins, reads or all of them (AuditKind*).
	Kind string
	// Cluster is a configured cluster's name ("": every cluster). Sign-ins belong to
	// no cluster and are listed whatever it is.
	Cluster string
	Group   string
	Topic   string
	Actor   string
	Status  AuditStatus
	// HideRefused leaves out refused attempts, keeping what reached the cluster.
	HideRefused bool
	// Since and Until bound the start time (inclusive, exclusive).
	Since, Until time.Time
	// BeforeID pages back: only entries with a smaller id.
	BeforeID int64
	// Limit caps the entries returned (default AuditDefaultLimit, at most 1000).
	Limit int
}

// AuditDefaultLimit is how many entries List returns when the filter sets no limit.
const AuditDefaultLimit = 100

// List returns the entries that match f, newest first, and whether more matched than
// the limit.
func (l *AuditLog) List(ctx context.Context, f AuditFilter) ([]AuditEntry, bool, error) {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	limit := f.Limit
	if limit <= 0 {
		limit = AuditDefaultLimit
	}
	limit = min(limit, 1000)
	q := l.matching(ctx, f)
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	var rows []auditRow
	if err := q.Order("id DESC").Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, false, fmt.Errorf("list audit entries: %w", err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	out := make([]AuditEntry, len(rows))
	for i := range rows {
		out[i] = rows[i].entry()
	}
	return out, more, nil
}

// Count is how many entries match f on every page: its BeforeID and Limit do not count.
// One COUNT over the filter's indexed columns, so that a list can say "50 of 1,234".
func (l *AuditLog) Count(ctx context.Context, f AuditFilter) (int64, error) {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	var n int64
	if err := l.matching(ctx, f).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count audit entries: %w", err)
	}
	return n, nil
}

// matching selects the entries f's filters keep, before paging.
func (l *AuditLog) matching(ctx context.Context, f AuditFilter) *gorm.DB {
	q := l.db.WithContext(ctx).Model(&auditRow{})
	clusters := l.db.Where("1 = 1")
	if f.Cluster != "" {
		clusters = l.ofCluster(l.db, f.Cluster)
	}
	switch f.Kind {
	case AuditKindSignIns:
		q = q.Where("mode = ?", SignInMode)
	case AuditKindReads:
		q = q.Where("mode IN ?", ReadModes).Where(clusters)
	case AuditKindAll:
		q = q.Where(clusters.Or("mode = ?", SignInMode))
	default:
		q = q.Where("mode NOT IN ?", append([]string{SignInMode}, ReadModes...)).Where(clusters)
	}
	if f.Group != "" {
		q = q.Where("group_name = ?", f.Group)
	}
	if f.Topic != "" {
		q = q.Where(l.dialect.jsonArrayHas("audit_entries.topics"), f.Topic)
	}
	if f.Actor != "" {
		q = q.Where("actor = ?", f.Actor)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.HideRefused {
		q = q.Where("status <> ?", AuditRefused)
	}
	if !f.Since.IsZero() {
		q = q.Where("started_at >= ?", fmtAuditTime(f.Since))
	}
	if !f.Until.IsZero() {
		q = q.Where("started_at < ?", fmtAuditTime(f.Until))
	}
	return q
}

// ChainProblem is one place where the chain does not hold.
type ChainProblem struct {
	ID     int64  `json:"id"`
	Seq    int64  `json:"seq,omitempty"`
	Reason string `json:"reason"`
}

// ChainReport is the outcome of verifying the audit log's hash chain.
type ChainReport struct {
	Intact bool `json:"intact"`
	// Sealed counts the entries in the chain; Pending those still in flight.
	Sealed  int `json:"sealed"`
	Pending int `json:"pending"`
	// Head is the hash of the last entry: write it down elsewhere to detect later that
	// the newest entries were removed.
	Head     string         `json:"head"`
	Problems []ChainProblem `json:"problems,omitempty"`
}

// Verify recomputes every sealed entry's hash and checks each links to the one before,
// that their positions have no gap, and that no finished entry is outside the chain.
func (l *AuditLog) Verify(ctx context.Context) (*ChainReport, error) {
	ctx, cancel := l.deadline(ctx)
	defer cancel()
	rep := &ChainReport{Head: genesisHash}
	add := func(r *auditRow, format string, args ...any) {
		p := ChainProblem{ID: r.ID, Reason: fmt.Sprintf(format, args...)}
		if r.Seq != nil {
			p.Seq = *r.Seq
		}
		rep.Problems = append(rep.Problems, p)
	}
	rows, err := l.db.WithContext(ctx).Model(&auditRow{}).Where("seq IS NOT NULL").Order("seq").Rows()
	if err != nil {
		return nil, fmt.Errorf("verify audit chain: %w", err)
	}
	defer rows.Close()
	prev, want := genesisHash, int64(1)
	for rows.Next() {
		var r auditRow
		if err := l.db.ScanRows(rows, &r); err != nil {
			return nil, fmt.Errorf("verify audit chain: %w", err)
		}
		rep.Sealed++
		if *r.Seq != want {
			add(&r, "entry %d is at chain position %d where %d was expected: entries %d to %d are missing", r.ID, *r.Seq, want, want, *r.Seq-1)
		}
		if r.PrevHash != prev {
			add(&r, "entry %d does not link to the entry before it (prev_hash %s, previous hash %s)", r.ID, freetext.Cut(r.PrevHash, hashShown), freetext.Cut(prev, hashShown))
		}
		if got := r.contentHash(); got != r.Hash {
			add(&r, "entry %d was changed after it was written (hash %s, content hashes to %s)", r.ID, freetext.Cut(r.Hash, hashShown), freetext.Cut(got, hashShown))
		}
		if r.Status == string(AuditPending) {
			add(&r, "entry %d is in the chain but marked pending", r.ID)
		}
		prev, want = r.Hash, *r.Seq+1
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("verify audit chain: %w", failed(err))
	}
	rep.Head = prev
	var loose []auditRow
	if err := l.db.WithContext(ctx).Where("seq IS NULL").Order("id").Find(&loose).Error; err != nil {
		return nil, fmt.Errorf("verify audit chain: %w", err)
	}
	for i := range loose {
		if loose[i].Status == string(AuditPending) {
			rep.Pending++
			continue
		}
		add(&loose[i], "entry %d is %s but not in the chain", loose[i].ID, loose[i].Status)
	}
	rep.Intact = len(rep.Problems) == 0
	return rep, nil
}

// hashShown is how much of a hash a problem quotes: its first 12 characters and an
// ellipsis, enough to tell two apart.
const hashShown = 13

// OpenReadOnly opens an existing database file without changing it: no migrations, and
// every write fails. `rmqconsole audit verify` uses it so checking never alters the
// evidence. Like Open, it keeps WAL's index in the heap (see pragmas).
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if IsPostgresURL(path) {
		return openPostgres(ctx, path, true)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?vfs=unix-excl&mode=ro&_busy_timeout=5000"
	db, err := gorm.Open(sqliteDialect{&sqlite.Dialector{DSN: dsn}}, &gorm.Config{Logger: logger.Discard, TranslateError: true})
	if err != nil {
		return nil, fmt.Errorf("open database %s read-only: %w", path, inUse(err))
	}
	sqlDB, err := db.DB()
	if err == nil {
		err = reportFailures(db)
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s read-only: %w", path, err)
	}
	s := &Store{DB: db, sql: sqlDB, dialect: SQLite, replica: newReplicaID(), timeout: DefaultTimeout}
	if err := s.Ping(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open database %s read-only: %w", path, inUse(err))
	}
	return s, nil
}
