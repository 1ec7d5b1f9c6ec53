// Package live pushes what a poller sees to the browsers watching it: one poller per
// watched key (a broker, a consumer group), started by its first viewer and stopped
// shortly after its last one leaves; each tick's frame is rendered once per language
// among its viewers and sent to every viewer of that language, and a viewer that falls
// behind is dropped rather than allowed to hold up the others. A hundred viewers of one
// key cost the cluster what one does.
package live

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Frame is one update as it goes to a viewer: websocket messages, sent in order.
type Frame = [][]byte

// PollFunc reads key once and renders the frame every viewer receives; a nil frame
// sends nothing this tick.
type PollFunc func(ctx context.Context, key string) Frame

// Source is the poller of one watched key. A Hub makes one for the key's first viewer
// and calls it from a single goroutine, so it may keep state between ticks unguarded.
type Source interface {
	// Poll reads the key once and renders what goes out this tick.
	Poll(ctx context.Context) Tick
	// CatchUp renders everything as of the last poll, for viewers that joined since; nil
	// when there is nothing yet (the next full tick serves them).
	CatchUp() Frame
}

// Stopper is a Source that wants to know when its key stops being polled because
// nobody watches it any more; Stopped is called once, before a new viewer of the key
// can start a new Source.
type Stopper interface {
	Stopped()
}

// Tick is what one poll produced; a nil Frame sends nothing.
type Tick struct {
	Frame Frame
	// Render, when set, is used instead of Frame: it renders the tick in one language
	// (a viewer's, as given to WatchIn), and the Hub calls it once per language among
	// the viewers the tick goes to, from the poller's goroutine, before the next Poll.
	// A nil frame sends nothing to that language's viewers.
	Render func(lang string) Frame
	Send   Send
}

// LocalizedSource is a Source whose catch-up frame is rendered in the language of the
// viewers waiting for it; the Hub calls CatchUpIn once per language instead of CatchUp.
type LocalizedSource interface {
	Source
	CatchUpIn(lang string) Frame
}

// Send says which viewers a tick's frame goes to.
type Send int

const (
	// SendFull: the frame renders everything; it goes to every viewer, including those
	// waiting to catch up.
	SendFull Send = iota
	// SendDelta: the frame renders only what changed, meaningless without a full frame
	// before it; it goes to the viewers that have had one.
	SendDelta
	// SendStatus: the frame only says how the watch is going; it goes to every viewer,
	// and those waiting to catch up still wait.
	SendStatus
)

// Options tune a Hub; zero values take the defaults.
type Options struct {
	// Interval is the poll interval of each watched key (default 2 s).
	Interval time.Duration
	// Timeout bounds one tick (default 5 s).
	Timeout time.Duration
	// Linger is how long a poller keeps running after its last viewer left, so a
	// reload does not restart it (default 5 s).
	Linger time.Duration
	// Buffer is how many frames a viewer may fall behind before it is dropped
	// (default 16).
	Buffer int
	// MaxKeys bounds how many keys are polled at once (0: no bound): each poller costs
	// its source a read per tick, whatever its viewers. A viewer of a key not polled
	// yet is refused with ErrTooManyKeys while MaxKeys are; one of a polled key is not.
	MaxKeys int
	// Log records dropped viewers; nil logs nothing.
	Log *slog.Logger
}

// Hub runs the pollers of watched keys.
type Hub struct {
	start func(key string) Source
	opts  Options

	mu      sync.Mutex
	watches map[string]*watch
	closed  bool
	wg      sync.WaitGroup

	ticks   atomic.Uint64
	dropped atomic.Uint64
}

// ErrClosed is returned by Watch after Close.
var ErrClosed = errors.New("live view is shutting down")

// ErrTooManyKeys is returned by Watch for a key not polled yet while Options.MaxKeys
// keys are.
var ErrTooManyKeys = errors.New("too many keys watched live at once")

// New returns a Hub whose every tick is a full frame made by poll; a viewer joining a
// running poller gets its latest frame at once.
func New(poll PollFunc, opts Options) *Hub {
	return NewSources(func(key string) Source { return &funcSource{poll: poll, key: key} }, opts)
}

// funcSource adapts a PollFunc: every frame renders everything, so the last one is
// what a joining viewer needs.
type funcSource struct {
	poll PollFunc
	key  string
	last Frame
}

func (s *funcSource) Poll(ctx context.Context) Tick {
	if f := s.poll(ctx, s.key); f != nil {
		s.last = f
		return Tick{Frame: f, Send: SendFull}
	}
	return Tick{}
}

func (s *funcSource) CatchUp() Frame { return s.last }

// NewSources returns a Hub that polls each watched key through the Source start makes
// for it. start is called with the Hub's lock held: it must not call the Hub.
func NewSources(start func(key string) Source, opts Options) *Hub {
	if opts.Interval <= 0 {
		opts.Interval = 2 * time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.Linger <= 0 {
		opts.Linger = 5 * time.Second
	}
	if opts.Buffer <= 0 {
		opts.Buffer = 16
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Hub{start: start, opts: opts, watches: map[string]*watch{}}
}

// Viewer receives a key's frames on C until it is closed: when the viewer is dropped
// for falling behind, or when the Hub shuts down.
type Viewer struct {
	C    <-chan Frame
	ch   chan Frame
	w    *watch
	lang string // the language its frames are rendered in

	// guarded by w.mu
	caughtUp bool // has had a full frame, so deltas mean something to it
	closed   bool
	dropped  bool
}

// Dropped reports whether the viewer was dropped for falling behind.
func (v *Viewer) Dropped() bool {
	v.w.mu.Lock()
	defer v.w.mu.Unlock()
	return v.dropped
}

// Close unsubscribes the viewer; it is safe to call more than once.
func (v *Viewer) Close() {
	v.w.mu.Lock()
	defer v.w.mu.Unlock()
	v.w.removeLocked(v)
}

// watch is one watched key. Its run goroutine owns the Source; mu guards the viewers.
type watch struct {
	h      *Hub
	key    string
	src    Source
	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{} // a viewer joined

	mu      sync.Mutex
	viewers map[*Viewer]bool
	linger  *time.Timer
}

// Watch subscribes to key's frames, starting its poller for the first viewer. The first
// frame a viewer receives renders everything.
func (h *Hub) Watch(key string) (*Viewer, error) { return h.WatchIn(key, "") }

// WatchIn is Watch for a viewer reading lang (a language tag; "" for the default): the
// key's frames are rendered once per language among its viewers, not once per viewer.
func (h *Hub) WatchIn(key, lang string) (*Viewer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	w := h.watches[key]
	if w == nil && h.opts.MaxKeys > 0 && len(h.watches) >= h.opts.MaxKeys {
		return nil, ErrTooManyKeys
	}
	first := w == nil
	if first {
		ctx, cancel := context.WithCancel(context.Background())
		w = &watch{h: h, key: key, src: h.start(key), ctx: ctx, cancel: cancel,
			wake: make(chan struct{}, 1), viewers: map[*Viewer]bool{}}
		h.watches[key] = w
		h.wg.Add(1)
	}
	ch := make(chan Frame, h.opts.Buffer)
	v := &Viewer{C: ch, ch: ch, w: w, lang: lang}
	w.mu.Lock()
	w.viewers[v] = true
	if w.linger != nil {
		w.linger.Stop()
		w.linger = nil
	}
	w.mu.Unlock()
	if first {
		// Started once its first viewer is in: the first poll's full frame reaches it,
		// rather than a catch-up rendered again after a poll that had nobody to send to.
		go w.run()
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return v, nil
}

// Source returns the Source polling key, while someone watches it.
func (h *Hub) Source(key string) (Source, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w := h.watches[key]; w != nil {
		return w.src, true
	}
	return nil, false
}

// Watching reports whether key is being polled (a viewer of it starts nothing).
func (h *Hub) Watching(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.watches[key] != nil
}

// Watchers counts the keys being polled.
func (h *Hub) Watchers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watches)
}

// Stats counts what a Hub is doing, for metrics.
type Stats struct {
	Watchers int    // keys being polled
	Viewers  int    // open viewers
	Ticks    uint64 // polls made
	Dropped  uint64 // viewers dropped for falling behind
}

// Stats returns current counts.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := Stats{Watchers: len(h.watches), Ticks: h.ticks.Load(), Dropped: h.dropped.Load()}
	for _, w := range h.watches {
		w.mu.Lock()
		st.Viewers += len(w.viewers)
		w.mu.Unlock()
	}
	return st
}

// Close stops every poller, closes every viewer and waits for the pollers to end.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	for k, w := range h.watches {
		w.cancel()
		delete(h.watches, k)
	}
	h.mu.Unlock()
	h.wg.Wait()
}

func (w *watch) run() {
	defer w.h.wg.Done()
	defer w.closeViewers()
	t := time.NewTicker(w.h.opts.Interval)
	defer t.Stop()
	w.tick()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
			w.tick()
		case <-w.wake:
			w.catchUp()
		}
	}
}

func (w *watch) tick() {
	if w.ctx.Err() != nil { // stopped while the ticker fired: select chose the tick
		return
	}
	w.h.ticks.Add(1)
	ctx, cancel := context.WithTimeout(w.ctx, w.h.opts.Timeout)
	t := w.src.Poll(ctx)
	cancel()
	if w.ctx.Err() != nil {
		return
	}
	if t.Frame != nil || t.Render != nil {
		w.broadcast(t)
	}
	w.catchUp()
}

// broadcast sends a tick's frame to the viewers its Send names: the same frame to all,
// or, when the tick renders per language, each language's frame rendered once.
func (w *watch) broadcast(t Tick) {
	frames := map[string]Frame{}
	if t.Render != nil {
		// Render outside the lock, so viewers joining and leaving never wait for it.
		for _, lang := range w.languages(func(v *Viewer) bool { return t.Send != SendDelta || v.caughtUp }) {
			frames[lang] = t.Render(lang)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for v := range w.viewers {
		if t.Send == SendDelta && !v.caughtUp {
			continue
		}
		f := t.Frame
		if t.Render != nil {
			var ok bool
			if f, ok = frames[v.lang]; !ok {
				continue // joined in another language meanwhile: catchUp serves it
			}
		}
		if f == nil {
			continue
		}
		if t.Send == SendFull {
			v.caughtUp = true
		}
		w.sendLocked(v, f)
	}
}

// languages lists the languages of the viewers keep accepts.
func (w *watch) languages(keep func(*Viewer) bool) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for v := range w.viewers {
		if keep(v) && !seen[v.lang] {
			seen[v.lang] = true
			out = append(out, v.lang)
		}
	}
	return out
}

// catchUp sends the Source's full frame to the viewers that have not had one, rendered
// once per language among them when the Source renders per language.
func (w *watch) catchUp() {
	langs := w.languages(func(v *Viewer) bool { return !v.caughtUp })
	if len(langs) == 0 {
		return
	}
	frames := map[string]Frame{}
	if ls, ok := w.src.(LocalizedSource); ok {
		for _, lang := range langs {
			frames[lang] = ls.CatchUpIn(lang)
		}
	} else {
		f := w.src.CatchUp()
		for _, lang := range langs {
			frames[lang] = f
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for v := range w.viewers {
		if f := frames[v.lang]; !v.caughtUp && f != nil {
			v.caughtUp = true
			w.sendLocked(v, f)
		}
	}
}

// sendLocked queues a frame for v, dropping v when its buffer is full: a slow viewer
// is never waited for. w.mu must be held.
func (w *watch) sendLocked(v *Viewer, f Frame) {
	select {
	case v.ch <- f:
	default:
		v.dropped = true
		w.h.dropped.Add(1)
		w.h.opts.Log.Info("dropped a slow live viewer", "key", w.key, "buffer", cap(v.ch))
		w.removeLocked(v)
	}
}

// removeLocked closes v and, when it was the last viewer, schedules the poller's stop;
// w.mu must be held.
func (w *watch) removeLocked(v *Viewer) {
	if v.closed {
		return
	}
	v.closed = true
	close(v.ch)
	delete(w.viewers, v)
	if len(w.viewers) == 0 && w.linger == nil && w.ctx.Err() == nil {
		w.linger = time.AfterFunc(w.h.opts.Linger, w.stopIfIdle)
	}
}

// stopIfIdle stops the poller if nobody started watching the key again meanwhile.
func (w *watch) stopIfIdle() {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	w.mu.Lock()
	idle := len(w.viewers) == 0
	w.mu.Unlock()
	if idle && w.h.watches[w.key] == w {
		delete(w.h.watches, w.key)
		w.cancel()
		if s, ok := w.src.(Stopper); ok {
			s.Stopped()
		}
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
