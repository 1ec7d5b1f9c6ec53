// Package live pushes what a poller sees to the browsers watching it: one poller per
// watched key (a broker, a topic), started by its first viewer and stopped shortly after
// its last one leaves; each tick's frame is rendered once and sent to every viewer, and
// a viewer that falls behind is dropped rather than allowed to hold up the others.
// A hundred viewers of one key cost the cluster what one does.
package live

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Frame is one update as it goes to a viewer: websocket messages, sent in order.
type Frame = [][]byte

// PollFunc reads key once and renders the frame every viewer receives; a nil frame
// sends nothing this tick.
type PollFunc func(ctx context.Context, key string) Frame

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
}

// Hub runs the pollers of watched keys.
type Hub struct {
	poll PollFunc
	opts Options

	mu      sync.Mutex
	watches map[string]*watch
	closed  bool
	wg      sync.WaitGroup
}

// ErrClosed is returned by Watch after Close.
var ErrClosed = errors.New("live view is shutting down")

// New returns a Hub that polls with poll.
func New(poll PollFunc, opts Options) *Hub {
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
	return &Hub{poll: poll, opts: opts, watches: map[string]*watch{}}
}

// Viewer receives a key's frames on C until it is closed: when the viewer is dropped
// for falling behind, or when the Hub shuts down.
type Viewer struct {
	C  <-chan Frame
	ch chan Frame
	w  *watch

	dropped bool // guarded by w.mu
}

// Dropped reports whether the viewer was dropped for falling behind.
func (v *Viewer) Dropped() bool {
	v.w.mu.Lock()
	defer v.w.mu.Unlock()
	return v.dropped
}

// Close unsubscribes the viewer; it is safe to call more than once.
func (v *Viewer) Close() { v.w.remove(v) }

type watch struct {
	h      *Hub
	key    string
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	viewers map[*Viewer]bool
	linger  *time.Timer
	last    Frame // the latest frame, sent to a viewer as it joins
}

// Watch subscribes to key's frames, starting its poller for the first viewer. A viewer
// joining a running poller gets its latest frame at once.
func (h *Hub) Watch(key string) (*Viewer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	w := h.watches[key]
	if w == nil {
		ctx, cancel := context.WithCancel(context.Background())
		w = &watch{h: h, key: key, ctx: ctx, cancel: cancel, viewers: map[*Viewer]bool{}}
		h.watches[key] = w
		h.wg.Add(1)
		go w.run()
	}
	ch := make(chan Frame, h.opts.Buffer)
	v := &Viewer{C: ch, ch: ch, w: w}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.viewers[v] = true
	if w.linger != nil {
		w.linger.Stop()
		w.linger = nil
	}
	if w.last != nil {
		ch <- w.last
	}
	return v, nil
}

// Watchers counts the keys being polled.
func (h *Hub) Watchers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watches)
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
	for {
		w.tick()
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (w *watch) tick() {
	ctx, cancel := context.WithTimeout(w.ctx, w.h.opts.Timeout)
	f := w.h.poll(ctx, w.key)
	cancel()
	if f == nil || w.ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = f
	for v := range w.viewers {
		select {
		case v.ch <- f:
		default: // fell behind: drop it, never wait for it
			v.dropped = true
			delete(w.viewers, v)
			close(v.ch)
		}
	}
	w.lingerIfIdleLocked()
}

// lingerIfIdleLocked starts the linger timer once nobody watches; w.mu must be held.
func (w *watch) lingerIfIdleLocked() {
	if len(w.viewers) == 0 && w.linger == nil {
		w.linger = time.AfterFunc(w.h.opts.Linger, w.stopIfIdle)
	}
}

func (w *watch) remove(v *Viewer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.viewers[v] {
		return
	}
	delete(w.viewers, v)
	close(v.ch)
	w.lingerIfIdleLocked()
}

func (w *watch) stopIfIdle() {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	w.mu.Lock()
	idle := len(w.viewers) == 0
	w.mu.Unlock()
	if idle && w.h.watches[w.key] == w {
		delete(w.h.watches, w.key)
		w.cancel()
	}
}

func (w *watch) closeViewers() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for v := range w.viewers {
		delete(w.viewers, v)
		close(v.ch)
	}
}
