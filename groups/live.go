package groups

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/live"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Reader reads one group's state; *Service implements it.
type Reader interface {
	Detail(ctx context.Context, group string) (*Detail, error)
}

// EventStore keeps rebalance history; *store.Store implements it.
type EventStore interface {
	AddRebalanceEvents(ctx context.Context, events []store.RebalanceEvent) error
	RebalanceEvents(ctx context.Context, group string, limit int, before time.Time) ([]store.RebalanceEvent, error)
}

// Update is what one tick of a watched group produced. The renderer turns it into the
// bytes every viewer of the group receives, once per language among them.
type Update struct {
	// Detail is the group now; on a failed tick it is the last good one (or nil) and Err
	// says what failed.
	Detail *Detail
	Err    error
	// Events are the rebalances seen this tick; Recent the newest RecentEvents, newest
	// first (stored ones included).
	Events []Event
	Recent []Event
	// Reloaded: events were recorded since the last tick (by this watcher or by the
	// collector's sweep) and Recent and Days were read back from the store: the
	// timeline, its rebalances and the daily sums are redrawn together.
	Reloaded bool
	// Days are the stored daily sums of moves (nil when the store has none to give).
	Days []store.RebalanceDay
	// History is the lag seen while watched; Sample this tick's total.
	History *History
	Sample  LagSample
	// Full asks for everything (a viewer just joined, or the first tick); otherwise
	// only what changed: ChangedQueues (rows whose values changed), QueuesReshaped (rows
	// came or went: redraw the table), ClientsChanged, AssignmentChanged.
	Full              bool
	ChangedQueues     []rocketmq.MessageQueue
	QueuesReshaped    bool
	ClientsChanged    bool
	AssignmentChanged bool
}

// Frame is one update as it goes to a viewer: websocket messages, sent in order. Each
// message is parsed and swapped on its own, so table rows travel in a message of their
// own (rows after other elements would not parse as rows).
type Frame = live.Frame

// Renderer turns an update into a frame in the language ctx carries (i18n.From). Live
// calls it once per update and language among the group's viewers, however many viewers
// read that language, and sends the same bytes to each of them.
type Renderer interface {
	Render(ctx context.Context, u *Update) (Frame, error)
}

// ViewSep separates, in the language a viewer watches in (WatchIn, Open), the language
// tag from a view: viewers of one group who may see different parts of it (the
// console's rights by topic) are sent frames rendered apart, once per language and view.
const ViewSep = "\x00"

type viewKey struct{}

// ViewOf is the view the frame being rendered is for ("" when the viewers named none).
func ViewOf(ctx context.Context) string {
	v, _ := ctx.Value(viewKey{}).(string)
	return v
}

// RenderFunc adapts a function to Renderer.
type RenderFunc func(ctx context.Context, u *Update) (Frame, error)

// Render calls f.
func (f RenderFunc) Render(ctx context.Context, u *Update) (Frame, error) { return f(ctx, u) }

// Defaults of LiveOptions.
const (
	DefaultPollInterval = time.Second
	DefaultLinger       = 5 * time.Second
	DefaultViewerBuffer = 16
	// RecentEvents is how many events a watcher keeps for new viewers.
	RecentEvents = 50
)

// LiveOptions tune Live. Zero values take the defaults.
type LiveOptions struct {
	// Interval is the poll interval of each watched group.
	Interval time.Duration
	// Linger is how long a watcher keeps polling after its last viewer left, so a page
	// reload does not restart it (and lose its lag history).
	Linger time.Duration
	// ViewerBuffer is how many frames a viewer may fall behind before it is dropped;
	// a slow viewer never holds up the others.
	ViewerBuffer int
	// Timeout bounds one tick's reads.
	Timeout  time.Duration
	Renderer Renderer
	// Store keeps events across restarts; nil keeps them only in memory.
	Store EventStore
	Log   *slog.Logger
	// MaxGroups bounds how many groups are watched at once (0: no bound); a viewer of
	// another group is refused with ErrTooManyGroups while that many are.
	MaxGroups int
	// Known, when set, is asked before a group's first viewer starts its watcher: a
	// group it answers fault.NotFound for is not watched (Service.Known).
	Known func(ctx context.Context, group string) error
	// Rebalances is the log the watchers feed, shared with the lag collector's
	// RebalanceSweep so a rebalance both see is recorded once; nil makes one over Store.
	Rebalances *RebalanceLog
}

// Live is the live group view: package live's hub runs one watcher per watched group
// (one poll per tick whatever the number of viewers, slow viewers dropped); each
// watcher diffs the group's state into rebalance events, stores them, and renders a
// full frame on its first tick and only what changed after.
type Live struct {
	reader Reader
	opts   LiveOptions
	hub    *live.Hub

	// kept holds the lag history of groups nobody watches any more, newest last in
	// keptOrder, so a page opened again shows the lag it showed before.
	keptMu    sync.Mutex
	kept      map[string]*history
	keptOrder []string
}

// ErrLiveClosed is returned by Watch after Close.
var ErrLiveClosed = live.ErrClosed

// ErrTooManyGroups is returned by Open for a group not watched yet while
// LiveOptions.MaxGroups groups are.
var ErrTooManyGroups = live.ErrTooManyKeys

// NewLive returns a Live that reads groups through reader.
func NewLive(reader Reader, opts LiveOptions) *Live {
	if opts.Interval <= 0 {
		opts.Interval = DefaultPollInterval
	}
	if opts.Linger <= 0 {
		opts.Linger = DefaultLinger
	}
	if opts.ViewerBuffer <= 0 {
		opts.ViewerBuffer = DefaultViewerBuffer
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Renderer == nil {
		opts.Renderer = RenderFunc(func(context.Context, *Update) (Frame, error) { return nil, nil })
	}
	if opts.Rebalances == nil {
		opts.Rebalances = NewRebalanceLog(opts.Store, opts.Log)
	}
	l := &Live{reader: reader, opts: opts, kept: map[string]*history{}}
	l.hub = live.NewSources(l.start, live.Options{Interval: opts.Interval, Timeout: opts.Timeout,
		Linger: opts.Linger, Buffer: opts.ViewerBuffer, MaxKeys: opts.MaxGroups, Log: opts.Log})
	return l
}

// Interval returns the poll interval.
func (l *Live) Interval() time.Duration { return l.opts.Interval }

// Rebalances is the log the watchers feed (LiveOptions.Rebalances).
func (l *Live) Rebalances() *RebalanceLog { return l.opts.Rebalances }

// Watching reports whether someone watches group now: its watcher reads it every poll.
func (l *Live) Watching(group string) bool { return l.hub.Watching(group) }

// Viewer is one subscriber to a group's frames. Read C until it is closed: it closes
// when the viewer is dropped for being slow, or when Live shuts down.
type Viewer = live.Viewer

// Watch subscribes to a group's frames, starting its watcher when it is the first viewer.
// The first frame the viewer receives renders everything. Its frames are in English.
func (l *Live) Watch(group string) (*Viewer, error) { return l.WatchIn(group, "") }

// WatchIn is Watch for a viewer reading lang (an i18n language tag, "" for English):
// each tick is rendered once per language among the group's viewers.
func (l *Live) WatchIn(group, lang string) (*Viewer, error) { return l.hub.WatchIn(group, lang) }

// Open is WatchIn for a viewer who names the group: a group not watched yet is watched
// only when there is room (fault.Busy wrapping ErrTooManyGroups) and the cluster knows
// it (fault.NotFound when it does not), so a name nobody uses starts no watcher polling
// the brokers every tick. A group being watched costs nothing to check. Each refusal's
// sentence says why this view is not live.
func (l *Live) Open(ctx context.Context, group, lang string) (*Viewer, error) {
	if !l.hub.Watching(group) {
		if l.opts.MaxGroups > 0 && l.hub.Watchers() >= l.opts.MaxGroups {
			return nil, l.tooMany() // before asking the brokers anything
		}
		if l.opts.Known != nil {
			if err := l.opts.Known(ctx, group); fault.Is(err, fault.NotFound) {
				return nil, fault.Wrap(err, fault.NotFound, "group.live.notfound", "Group", group).Because("group_not_found")
			}
		}
	}
	v, err := l.hub.WatchIn(group, lang)
	if errors.Is(err, ErrTooManyGroups) { // another viewer took the last place meanwhile
		return nil, l.tooMany()
	}
	return v, err
}

// tooMany refuses a group not watched yet while MaxGroups are.
func (l *Live) tooMany() error {
	return fault.Wrap(ErrTooManyGroups, fault.Busy, "group.live.toomany", "Count", i18n.Count(l.opts.MaxGroups)).
		Because("too_many_groups_watched")
}

// MaxGroups is how many groups are watched at once at most (0: no bound).
func (l *Live) MaxGroups() int { return l.opts.MaxGroups }

// Snapshot is a watched group's latest state.
type Snapshot struct {
	Detail  *Detail
	History *History
	Recent  []Event
}

// Latest returns the latest state of a group being watched, when it is fresher than two
// poll intervals, so a page opened on a watched group costs the cluster nothing.
func (l *Live) Latest(group string) (*Snapshot, bool) {
	src, ok := l.hub.Source(group)
	if !ok {
		return nil, false
	}
	s := src.(*watch).latest.Load()
	if s == nil || time.Since(s.Detail.CheckedAt) > 2*l.opts.Interval+l.opts.Timeout {
		return nil, false
	}
	return s, true
}

// Stats counts what Live is doing, for metrics.
type Stats = live.Stats

// Stats returns current counts.
func (l *Live) Stats() Stats { return l.hub.Stats() }

// Close stops every watcher, closes every viewer and waits for the goroutines to end.
func (l *Live) Close() { l.hub.Close() }

// watch is one watched group, the hub's Source for it. The hub calls Poll and CatchUp
// from one goroutine, which owns the tracker, the history and rendering.
type watch struct {
	l      *Live
	group  string
	loaded bool

	// latest is the last good tick's state, nil before one; only Poll stores it.
	latest atomic.Pointer[Snapshot]

	history *history
	recent  []Event
	days    []store.RebalanceDay
	// stored is the log's count of recordings the timeline reflects.
	stored uint64
	// fullFrames are the catch-up frames of the latest state, rendered once per language.
	fullFrames map[string]Frame
}

// start makes the watcher of a group, with the lag history it had when last watched.
func (l *Live) start(group string) live.Source {
	l.keptMu.Lock()
	hist := l.kept[group]
	if hist != nil {
		delete(l.kept, group)
		l.keptOrder = slices.DeleteFunc(l.keptOrder, func(g string) bool { return g == group })
		hist.gap(time.Now())
	} else {
		hist = newHistory()
	}
	l.keptMu.Unlock()
	l.opts.Log.Debug("watching group", "group", group)
	return &watch{l: l, group: group, history: hist}
}

// Stopped keeps the history for the group's next viewer.
func (w *watch) Stopped() {
	w.l.opts.Log.Debug("stopped watching group", "group", w.group)
	w.l.keep(w.group, w.history)
}

// loadRecent reads the stored timeline, so a restarted console shows what it saw before.
func (w *watch) loadRecent(ctx context.Context) {
	if w.l.opts.Store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	stored, err := w.l.opts.Store.RebalanceEvents(ctx, w.group, RecentEvents, time.Time{})
	if err != nil {
		w.l.opts.Log.Warn("read rebalance history", "group", w.group, "err", err)
		return
	}
	w.recent = EventsFromStore(stored)
	w.days = w.readDays(ctx)
}

// readDays reads the stored daily sums when the store keeps them; nil otherwise. It runs
// within loadRecent's deadline.
func (w *watch) readDays(ctx context.Context) []store.RebalanceDay {
	ds, ok := w.l.opts.Store.(RebalanceDaysStore)
	if !ok {
		return nil
	}
	days, err := ds.RebalanceDays(ctx, w.group, CostSince(time.Now()))
	if err != nil {
		w.l.opts.Log.Warn("read rebalance days", "group", w.group, "err", err)
		return nil
	}
	return days
}

// Poll reads the group and renders the tick: a full frame the first time, only what
// changed after, and a status frame when the read failed.
func (w *watch) Poll(ctx context.Context) live.Tick {
	if !w.loaded {
		w.loaded = true
		w.stored = w.l.opts.Rebalances.storedCount(w.group)
		w.loadRecent(ctx)
	}
	d, err := w.l.reader.Detail(ctx, w.group)
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return live.Tick{} // stopping
	}
	u := &Update{Recent: w.recent}
	prev := w.latest.Load()
	if err != nil {
		if fault.Is(err, fault.NotFound) {
			// A group no broker knows has no client and no queue yet: the first client
			// to come joins, and the queues it takes are assignments.
			w.l.opts.Rebalances.missing(w.group)
		}
		u.Err = err
		if prev != nil {
			u.Detail, u.History = prev.Detail, prev.History
		}
		w.l.opts.Log.Debug("watch tick failed", "group", w.group, "err", err)
		return live.Tick{Render: w.renderer(u), Send: live.SendStatus}
	}
	events := w.l.opts.Rebalances.observe(ctx, d)
	if n := w.l.opts.Rebalances.storedCount(w.group); n != w.stored {
		// Events were recorded, here or by the collector's sweep: the timeline, its sums
		// and the daily sums are read back from the store, so all three say the same.
		w.stored = n
		if w.l.opts.Store != nil {
			w.loadRecent(ctx)
			u.Reloaded = true
		} else {
			w.recent = append(append([]Event(nil), reversed(events)...), w.recent...)
			if len(w.recent) > RecentEvents {
				w.recent = w.recent[:RecentEvents]
			}
		}
	}
	u.Detail, u.Events, u.Recent, u.Days = d, events, w.recent, w.days
	u.Sample = w.history.add(d)
	u.History = w.history.snapshot()
	send := live.SendDelta
	if prev == nil {
		u.Full, send = true, live.SendFull
	} else {
		diff(prev.Detail, d, u, u.History)
	}
	w.fullFrames = nil
	w.latest.Store(&Snapshot{Detail: d, History: u.History, Recent: w.recent})
	return live.Tick{Render: w.renderer(u), Send: send}
}

// CatchUp renders everything as of the latest good tick in English.
func (w *watch) CatchUp() Frame { return w.CatchUpIn("") }

// CatchUpIn renders everything as of the latest good tick, for viewers reading lang that
// just joined; once per language and tick.
func (w *watch) CatchUpIn(lang string) Frame {
	s := w.latest.Load()
	if s == nil {
		return nil // the first good tick serves them
	}
	if f, ok := w.fullFrames[lang]; ok {
		return f
	}
	u := &Update{Detail: s.Detail, Recent: s.Recent, Days: w.days, History: s.History, Full: true}
	if n := len(u.History.Totals); n > 0 {
		u.Sample = u.History.Totals[n-1]
	}
	if w.fullFrames == nil {
		w.fullFrames = map[string]Frame{}
	}
	f := w.render(u, lang)
	w.fullFrames[lang] = f
	return f
}

// renderer renders u in the language the hub asks for.
func (w *watch) renderer(u *Update) func(lang string) Frame {
	return func(lang string) Frame { return w.render(u, lang) }
}

func (w *watch) render(u *Update, lang string) Frame {
	tag, view, _ := strings.Cut(lang, ViewSep)
	ctx := context.WithValue(i18n.With(context.Background(), i18n.Match(tag)), viewKey{}, view)
	b, err := w.l.opts.Renderer.Render(ctx, u)
	if err != nil {
		w.l.opts.Log.Error("render live group frame", "group", w.group, "lang", lang, "err", err)
		return nil
	}
	return b
}

// KeptHistories is how many unwatched groups' lag history Live keeps in memory (each
// at most TotalSamples): the groups looked at most recently.
const KeptHistories = 64

// keep holds a stopped watcher's history for the next viewer of its group.
func (l *Live) keep(group string, h *history) {
	l.keptMu.Lock()
	defer l.keptMu.Unlock()
	l.kept[group] = h
	l.keptOrder = append(l.keptOrder, group)
	if len(l.keptOrder) > KeptHistories {
		delete(l.kept, l.keptOrder[0])
		l.keptOrder = l.keptOrder[1:]
	}
}

// diff fills u with what changed between two snapshots. A row also counts as changed
// while its lag history is moving (its sparkline slides) and when its sparkline first
// becomes drawable; a row whose lag has been flat for a while is left alone.
func diff(prev, cur *Detail, u *Update, h *History) {
	if len(prev.Queues) != len(cur.Queues) {
		u.QueuesReshaped = true
	} else {
		for i := range cur.Queues {
			a, b := prev.Queues[i], cur.Queues[i]
			if a.Queue() != b.Queue() {
				u.QueuesReshaped = true
				u.ChangedQueues = nil
				break
			}
			if !reflect.DeepEqual(a, b) || sparklineMoves(h.Queues[b.Queue()]) {
				u.ChangedQueues = append(u.ChangedQueues, b.Queue())
			}
		}
	}
	u.ClientsChanged = !reflect.DeepEqual(prev.Clients, cur.Clients)
	u.AssignmentChanged = !reflect.DeepEqual(prev.Assignment, cur.Assignment)
}

// sparklineMoves reports whether a queue's sparkline looks different from the last
// tick's: it just got its second sample, or its window holds more than one value.
func sparklineMoves(values []float64) bool {
	if len(values) == 2 {
		return true
	}
	for i := 1; i < len(values); i++ {
		a, b := values[i-1], values[i]
		if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			return true
		}
	}
	return false
}

func reversed(events []Event) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		out[len(events)-1-i] = e
	}
	return out
}

// EventsToStore converts events for the store.
func EventsToStore(group string, events []Event) []store.RebalanceEvent {
	out := make([]store.RebalanceEvent, len(events))
	for i, e := range events {
		out[i] = store.RebalanceEvent{Group: group, At: e.At, Kind: e.Kind, ClientID: e.ClientID, Topic: e.Topic,
			BrokerName: e.BrokerName, QueueID: e.QueueID, From: e.From, To: e.To, UnownedMs: e.UnownedMs,
			DuplicatesAtRisk: e.DuplicatesAtRisk, UnlockedMs: e.UnlockedMs}
	}
	return out
}

// EventsFromStore converts stored events, keeping their order.
func EventsFromStore(stored []store.RebalanceEvent) []Event {
	out := make([]Event, len(stored))
	for i, e := range stored {
		out[i] = Event{At: e.At, Kind: e.Kind, ClientID: e.ClientID, Topic: e.Topic, BrokerName: e.BrokerName,
			QueueID: e.QueueID, From: e.From, To: e.To, UnownedMs: e.UnownedMs,
			DuplicatesAtRisk: e.DuplicatesAtRisk, UnlockedMs: e.UnlockedMs}
	}
	return out
}
