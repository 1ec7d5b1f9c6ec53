package groups

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

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
// bytes every viewer of the group receives.
type Update struct {
	// Detail is the group now; on a failed tick it is the last good one (or nil) and Err
	// says what failed.
	Detail *Detail
	Err    error
	// Events are the rebalances seen this tick; Recent the newest RecentEvents, newest
	// first (stored ones included).
	Events []Event
	Recent []Event
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
type Frame [][]byte

// Renderer turns an update into a frame. Live calls it once per update, however many
// viewers the group has, and sends the same bytes to each.
type Renderer interface {
	Render(u *Update) (Frame, error)
}

// RenderFunc adapts a function to Renderer.
type RenderFunc func(u *Update) (Frame, error)

// Render calls f.
func (f RenderFunc) Render(u *Update) (Frame, error) { return f(u) }

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
}

// Live runs one watcher per watched group: started by the group's first viewer, stopped
// shortly after its last one leaves. Each watcher polls the group, diffs the result into
// rebalance events, stores them, renders one frame and fans it out to every viewer.
type Live struct {
	reader Reader
	opts   LiveOptions

	mu      sync.Mutex
	watches map[string]*watch
	// kept holds the lag history of groups nobody watches any more, newest last in
	// keptOrder, so a page opened again shows the lag it showed before.
	kept      map[string]*history
	keptOrder []string
	closed    bool
	wg        sync.WaitGroup

	ticks   atomic.Uint64
	dropped atomic.Uint64
}

// ErrLiveClosed is returned by Watch after Close.
var ErrLiveClosed = errors.New("live group view is shutting down")

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
		opts.Renderer = RenderFunc(func(*Update) (Frame, error) { return nil, nil })
	}
	return &Live{reader: reader, opts: opts, watches: map[string]*watch{}, kept: map[string]*history{}}
}

// Interval returns the poll interval.
func (l *Live) Interval() time.Duration { return l.opts.Interval }

// Viewer is one subscriber to a group's frames. Read C until it is closed: it closes
// when the viewer is dropped for being slow, or when Live shuts down.
type Viewer struct {
	C  <-chan Frame
	ch chan Frame
	w  *watch

	// guarded by w.mu
	needFull bool
	closed   bool
	dropped  bool
}

// Dropped reports whether the viewer was dropped for falling behind.
func (v *Viewer) Dropped() bool {
	v.w.mu.Lock()
	defer v.w.mu.Unlock()
	return v.dropped
}

// Close unsubscribes the viewer. It is safe to call more than once.
func (v *Viewer) Close() { v.w.remove(v) }

// Watch subscribes to a group's frames, starting its watcher when it is the first viewer.
// The first frame the viewer receives renders everything.
func (l *Live) Watch(group string) (*Viewer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, ErrLiveClosed
	}
	w := l.watches[group]
	if w == nil {
		w = l.start(group)
	}
	ch := make(chan Frame, l.opts.ViewerBuffer)
	v := &Viewer{C: ch, ch: ch, w: w, needFull: true}
	w.mu.Lock()
	w.viewers[v] = true
	if w.linger != nil {
		w.linger.Stop()
		w.linger = nil
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return v, nil
}

// Snapshot is a watched group's latest state.
type Snapshot struct {
	Detail  *Detail
	History *History
	Recent  []Event
}

// Latest returns the latest state of a group being watched, when it is fresher than two
// poll intervals, so a page opened on a watched group costs the cluster nothing.
func (l *Live) Latest(group string) (*Snapshot, bool) {
	l.mu.Lock()
	w := l.watches[group]
	l.mu.Unlock()
	if w == nil {
		return nil, false
	}
	s := w.latest.Load()
	if s == nil || time.Since(s.Detail.CheckedAt) > 2*l.opts.Interval+l.opts.Timeout {
		return nil, false
	}
	return s, true
}

// Stats counts what Live is doing, for metrics.
type Stats struct {
	Watchers int
	Viewers  int
	Ticks    uint64
	Dropped  uint64
}

// Stats returns current counts.
func (l *Live) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := Stats{Watchers: len(l.watches), Ticks: l.ticks.Load(), Dropped: l.dropped.Load()}
	for _, w := range l.watches {
		w.mu.Lock()
		st.Viewers += len(w.viewers)
		w.mu.Unlock()
	}
	return st
}

// Close stops every watcher, closes every viewer and waits for the goroutines to end.
func (l *Live) Close() {
	l.mu.Lock()
	l.closed = true
	for g, w := range l.watches {
		w.cancel()
		delete(l.watches, g)
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// watch is one watched group. Its run goroutine owns the tracker, the history and
// rendering; mu guards the viewer set.
type watch struct {
	l      *Live
	group  string
	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{}

	mu      sync.Mutex
	viewers map[*Viewer]bool
	linger  *time.Timer

	// latest is the last good tick's state, nil before one; only run stores it.
	latest atomic.Pointer[Snapshot]

	// owned by run
	tracker   *tracker
	history   *history
	recent    []Event
	fullFrame Frame
}

// start must be called with l.mu held.
func (l *Live) start(group string) *watch {
	ctx, cancel := context.WithCancel(context.Background())
	hist := l.kept[group]
	if hist != nil {
		delete(l.kept, group)
		l.keptOrder = slices.DeleteFunc(l.keptOrder, func(g string) bool { return g == group })
		hist.gap(time.Now())
	} else {
		hist = newHistory()
	}
	w := &watch{l: l, group: group, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1),
		viewers: map[*Viewer]bool{}, tracker: newTracker(), history: hist}
	l.watches[group] = w
	l.wg.Add(1)
	go w.run()
	l.opts.Log.Debug("watching group", "group", group)
	return w
}

func (w *watch) run() {
	defer w.l.wg.Done()
	defer w.closeViewers()
	w.loadRecent()
	t := time.NewTicker(w.l.opts.Interval)
	defer t.Stop()
	w.tick()
	for {
		select {
		case <-w.ctx.Done():
			w.l.opts.Log.Debug("stopped watching group", "group", w.group)
			return
		case <-t.C:
			w.tick()
		case <-w.wake:
			w.serveNewViewers()
		}
	}
}

// loadRecent reads the stored timeline, so a restarted console shows what it saw before.
func (w *watch) loadRecent() {
	if w.l.opts.Store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(w.ctx, 5*time.Second)
	defer cancel()
	stored, err := w.l.opts.Store.RebalanceEvents(ctx, w.group, RecentEvents, time.Time{})
	if err != nil {
		w.l.opts.Log.Warn("read rebalance history", "group", w.group, "err", err)
		return
	}
	w.recent = EventsFromStore(stored)
}

func (w *watch) tick() {
	w.l.ticks.Add(1)
	ctx, cancel := context.WithTimeout(w.ctx, w.l.opts.Timeout)
	d, err := w.l.reader.Detail(ctx, w.group)
	cancel()
	if w.ctx.Err() != nil {
		return
	}
	u := &Update{Recent: w.recent}
	prev := w.latest.Load()
	if err != nil {
		u.Err = err
		if prev != nil {
			u.Detail, u.History = prev.Detail, prev.History
		}
		w.l.opts.Log.Debug("watch tick failed", "group", w.group, "err", err)
		w.broadcast(w.render(u), sendStatus)
		return
	}
	events := w.tracker.observe(d)
	if len(events) > 0 {
		w.store(events)
		w.recent = append(append([]Event(nil), reversed(events)...), w.recent...)
		if len(w.recent) > RecentEvents {
			w.recent = w.recent[:RecentEvents]
		}
	}
	u.Detail, u.Events, u.Recent = d, events, w.recent
	u.Sample = w.history.add(d)
	u.History = w.history.snapshot()
	first := prev == nil
	if first {
		u.Full = true
	} else {
		diff(prev.Detail, d, u, u.History)
	}
	w.fullFrame = nil
	w.latest.Store(&Snapshot{Detail: d, History: u.History, Recent: w.recent})
	mode := sendDelta
	if first {
		mode = sendFull
	}
	w.broadcast(w.render(u), mode)
	w.serveNewViewers()
}

// serveNewViewers sends the full frame to viewers that joined since the last tick.
func (w *watch) serveNewViewers() {
	s := w.latest.Load()
	if s == nil {
		return // the first tick serves them
	}
	w.mu.Lock()
	waiting := 0
	for v := range w.viewers {
		if v.needFull {
			waiting++
		}
	}
	w.mu.Unlock()
	if waiting == 0 {
		return
	}
	if w.fullFrame == nil {
		u := &Update{Detail: s.Detail, Recent: s.Recent, History: s.History, Full: true}
		if n := len(u.History.Totals); n > 0 {
			u.Sample = u.History.Totals[n-1]
		}
		w.fullFrame = w.render(u)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for v := range w.viewers {
		if v.needFull {
			v.needFull = false
			w.sendLocked(v, w.fullFrame)
		}
	}
}

func (w *watch) render(u *Update) Frame {
	b, err := w.l.opts.Renderer.Render(u)
	if err != nil {
		w.l.opts.Log.Error("render live group frame", "group", w.group, "err", err)
		return nil
	}
	return b
}

// How a frame goes out.
type sendMode int

const (
	// sendDelta: only to viewers that already had a full frame (a delta means nothing
	// without it).
	sendDelta sendMode = iota
	// sendFull: to everyone; the frame renders everything.
	sendFull
	// sendStatus: to everyone; the frame only says how the watch is going.
	sendStatus
)

// broadcast sends a frame to the viewers the mode says.
func (w *watch) broadcast(frame Frame, mode sendMode) {
	if frame == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for v := range w.viewers {
		if v.needFull && mode == sendDelta {
			continue
		}
		if mode == sendFull {
			v.needFull = false
		}
		w.sendLocked(v, frame)
	}
}

// sendLocked queues a frame for v, dropping v when its buffer is full.
func (w *watch) sendLocked(v *Viewer, frame Frame) {
	select {
	case v.ch <- frame:
	default:
		v.dropped = true
		w.l.dropped.Add(1)
		w.l.opts.Log.Info("dropped a slow viewer of group", "group", w.group, "buffer", cap(v.ch))
		w.removeLocked(v)
	}
}

func (w *watch) remove(v *Viewer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.removeLocked(v)
}

// removeLocked closes v and, when it was the last viewer, schedules the watcher's stop.
func (w *watch) removeLocked(v *Viewer) {
	if v.closed {
		return
	}
	v.closed = true
	close(v.ch)
	delete(w.viewers, v)
	if len(w.viewers) == 0 && w.linger == nil && w.ctx.Err() == nil {
		w.linger = time.AfterFunc(w.l.opts.Linger, func() { w.l.stopIfIdle(w) })
	}
}

// stopIfIdle stops w if nobody started watching it again meanwhile.
func (l *Live) stopIfIdle(w *watch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.viewers) == 0 && l.watches[w.group] == w {
		delete(l.watches, w.group)
		w.cancel()
		l.keep(w.group, w.history)
	}
}

// KeptHistories is how many unwatched groups' lag history Live keeps in memory (each
// at most TotalSamples): the groups looked at most recently.
const KeptHistories = 64

// keep holds a stopped watcher's history for the next viewer of its group; l.mu held.
func (l *Live) keep(group string, h *history) {
	l.kept[group] = h
	l.keptOrder = append(l.keptOrder, group)
	if len(l.keptOrder) > KeptHistories {
		delete(l.kept, l.keptOrder[0])
		l.keptOrder = l.keptOrder[1:]
	}
}

func (w *watch) closeViewers() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.linger != nil {
		w.linger.Stop()
	}
	for v := range w.viewers {
		v.closed = true
		close(v.ch)
		delete(w.viewers, v)
	}
}

// store writes events; a failure is logged, and the live view goes on.
func (w *watch) store(events []Event) {
	if w.l.opts.Store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(w.ctx, 5*time.Second)
	defer cancel()
	if err := w.l.opts.Store.AddRebalanceEvents(ctx, EventsToStore(w.group, events)); err != nil {
		w.l.opts.Log.Error("store rebalance events", "group", w.group, "err", err)
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
