// Package resets moves consumer groups' offsets safely: Plan previews every queue's
// current and target offset without changing anything, Apply writes the audit entry
// first, asks the brokers, reads every offset back and records the outcome.
//
// How each broker is asked (Method):
//   - reset-queue: brokers from 5.1 with server-side reset on (the default from 5.2) get
//     one INVOKE_BROKER_TO_RESET_OFFSET per queue with its exact target. It works with the
//     group online or offline; online clients are redirected on their next pull.
//   - reset-timestamp: older brokers (4.x, 5.0, 5.1 with server-side reset off) can only
//     reset an online group through its clients, by timestamp, for every queue of a topic.
//     Plans that need per-queue targets are refused for an online group on such brokers.
//   - update-offset: when no client is online (CONSUMER_NOT_ONLINE), the targets are
//     written with UPDATE_CONSUMER_OFFSET per queue, as mqadmin does.
//
// When a preview is stale (the rule Apply uses to re-preview instead of applying): after
// the pending audit entry is written, Apply reads every queue again and refuses, with a
// fresh preview, when
//   - a queue's committed offset is lower than at preview time (someone reset it back),
//   - it changed at all while the group had no client online (nothing consumed it),
//   - it is past the queue's max offset (consumption cannot explain that),
//   - a target is no longer within the queue's [min, max] (messages were deleted),
//   - the queues or the way a broker would be asked changed (route, broker version, the
//     group came online or went offline on an older broker), or
//   - the preview is older than PreviewTTL.
//
// A committed offset that moved forward, up to the max offset, while clients were online
// is what consumption does; the confirmed targets are then applied as shown and the audit
// entry records the offsets read at apply time as "before".
package resets

import (
	"context"
	"fmt"
	"log/slog"
	"time"
	_ "time/tzdata" // time zones typed in forms resolve even where the OS has no zoneinfo

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Admin is what resets ask the brokers; *rocketmq.Client implements it. Brokers and
// routes come from the cluster layer.
type Admin interface {
	cluster.Client
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
	ConsumeStats(ctx context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error)
	TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error)
	QueryConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue) (int64, error)
	SearchOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue, t time.Time, boundary rocketmq.BoundaryType) (int64, error)
	Pull(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int) (*rocketmq.PullResult, error)
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
	BrokerConfig(ctx context.Context, addr string) (map[string]string, error)
	ResetOffset(ctx context.Context, addr string, req rocketmq.ResetOffsetRequest) (map[rocketmq.MessageQueue]int64, error)
	UpdateConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue, offset int64) error
	// TopicConsumerGroups lists the groups consuming a topic, for a reset of the groups
	// matching a pattern.
	TopicConsumerGroups(ctx context.Context, addr, topic string) ([]string, error)
}

// AuditLog is where resets are recorded; *store.AuditLog implements it.
type AuditLog interface {
	Begin(ctx context.Context, e *store.AuditEntry) error
	Finish(ctx context.Context, e *store.AuditEntry) error
	Record(ctx context.Context, e *store.AuditEntry) error
	// Get reads one entry (a fault.NotFound when none has the id), for undo.
	Get(ctx context.Context, id int64) (*store.AuditEntry, error)
	// Orphaned returns the pending entries no running console is applying any more.
	Orphaned(ctx context.Context) ([]store.AuditEntry, error)
}

// Rejected is what an apply that was refused for the group's state leaves the one who
// confirmed it: a fresh preview to check (nil when none could be made), the audit entry
// recording the refusal (0 when it was only counted) and, for offsets that moved since
// the preview, how they moved. It is the cause of Apply's fault.Conflict.
type Rejected struct {
	Fresh   *Plan
	EntryID int64
	Reasons []i18n.Message
}

func (r *Rejected) Error() string {
	if r.EntryID == 0 {
		return "apply refused"
	}
	return fmt.Sprintf("apply refused, recorded as audit entry %d", r.EntryID)
}

// reject is a refused apply: a conflict said by say, with what the caller needs to go on.
func reject(say i18n.Message, r *Rejected) error {
	return &fault.Error{Code: fault.Conflict, Msg: say, Err: r}
}

// errNoCluster is the answer of a service the console made without a NameServer.
func errNoCluster() error {
	return fault.New(fault.Unavailable, "reset.no_cluster.api").Because("no_cluster")
}

// Who is the person making a request, for the audit log.
type Who struct {
	Actor string
	Addr  string
}

// Config configures a Service.
type Config struct {
	Admin Admin
	Audit AuditLog
	// NameServers names the cluster in audit entries: the NameServer list.
	NameServers string
	// Cluster is the console's view of the cluster, shared with the other services; nil
	// builds one over the Admin.
	Cluster *cluster.Cluster
	Log     *slog.Logger
	// Now is the clock (tests set it).
	Now func() time.Time
	// Settle is how long Apply waits after the last broker answered before reading the
	// offsets back (default 1 s).
	Settle time.Duration
	// VerifyWait bounds how long Apply keeps re-reading offsets that are not at their
	// target yet, for resets that clients commit asynchronously (default 5 s).
	VerifyWait time.Duration
	// PreviewTTL is how long a preview can be applied (default 15 min).
	PreviewTTL time.Duration
	// Previews keeps previews where every console sharing the database finds them; nil
	// keeps them in this process (one console per database).
	Previews PreviewStore
	// RecoverWait bounds how long RecoverInterrupted reads one entry's offsets
	// (default 20 s). The console runs it before serving, so a frozen broker
	// delays the start by at most this much per entry left pending.
	RecoverWait time.Duration
	// AfterPending runs right after the pending audit entry is written and before any
	// broker is asked anything. Only tests set it (see server/testhooks.go,
	// built with -tags rmqc_testhooks), to stop the process at exactly that point.
	AfterPending func(ctx context.Context, e *store.AuditEntry)
	// Finder finds the message a ModeMessage reset starts from; nil refuses that mode.
	Finder Finder
	// RefusalWindow is the window of RefusalsPerWindow (default RefusalWindow; tests
	// shorten it).
	RefusalWindow time.Duration
}

// Service plans, applies and verifies offset resets.
type Service struct {
	admin        Admin
	cluster      *cluster.Cluster
	audit        AuditLog
	nameServers  string // the NameServer list, as audit entries name the cluster
	log          *slog.Logger
	now          func() time.Time
	settle       time.Duration
	verifyWait   time.Duration
	previewTTL   time.Duration
	recoverWait  time.Duration
	afterPending func(ctx context.Context, e *store.AuditEntry)
	previews     previewKeeper[*Plan]
	several      previewKeeper[*SeveralPlan]
	refusals     *refusalLimiter
	finder       Finder
}

// New returns a Service.
func New(cfg Config) *Service {
	s := &Service{
		admin: cfg.Admin, audit: cfg.Audit, nameServers: cfg.NameServers, log: cfg.Log, now: cfg.Now,
		settle: cfg.Settle, verifyWait: cfg.VerifyWait, previewTTL: cfg.PreviewTTL, afterPending: cfg.AfterPending,
		recoverWait: cfg.RecoverWait, finder: cfg.Finder,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.cluster = cfg.Cluster
	if s.cluster == nil && cfg.Admin != nil {
		s.cluster = cluster.New(cfg.Admin, cluster.Options{})
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.settle <= 0 {
		s.settle = time.Second
	}
	if s.verifyWait <= 0 {
		s.verifyWait = 5 * time.Second
	}
	if s.recoverWait <= 0 {
		s.recoverWait = 20 * time.Second
	}
	if s.previewTTL <= 0 {
		s.previewTTL = 15 * time.Minute
	}
	s.previews = newPreviewCache[*Plan](s.previewTTL, 500)
	s.several = newPreviewCache[*SeveralPlan](s.previewTTL, 100)
	if cfg.Previews != nil {
		s.previews = &sharedPreviews[*Plan]{db: cfg.Previews, ttl: s.previewTTL, log: s.log, encode: encodePlan, decode: decodePlan}
		s.several = &sharedPreviews[*SeveralPlan]{db: cfg.Previews, ttl: s.previewTTL, log: s.log, kind: "several/",
			encode: encodeSeveralPlan, decode: decodeSeveralPlan}
	}
	if cfg.RefusalWindow <= 0 {
		cfg.RefusalWindow = RefusalWindow
	}
	s.refusals = newRefusalLimiter(cfg.RefusalWindow)
	return s
}

// Close writes the refusals still only counted (see RefusalsPerWindow).
func (s *Service) Close() { s.refusals.flush(s) }

func wrapf(err error, format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// errorMessage is err said for the person who asked: a fault's own sentence, a broker's
// failure in the cluster layer's words, any other error as it says itself.
func errorMessage(err error) i18n.Message {
	if fe := fault.As(err); fe != nil {
		return fe.Msg
	}
	if m, ok := cluster.ErrorMessage(err).(i18n.Message); ok {
		return m
	}
	return i18n.Plain(err.Error())
}
