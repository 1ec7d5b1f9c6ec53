package lookup

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// FollowFunc runs a live tail until ctx ends, as Service.Follow does.
type FollowFunc func(ctx context.Context, q TailQuery, emit func(TailEvent)) error

// Admit is asked before a hub starts a new tail: nil to go on, with leave called once
// the tail has stopped, or the error that refuses it (every heavy-query slot taken).
// A viewer joining a running tail is not asked: it costs the brokers nothing.
type Admit func() (leave func(), err error)

// TailOptions tune a TailHub; zero values take the defaults.
type TailOptions struct {
	// Rate is how many message frames a viewer gets per Window (default 50 a second,
	// about what a person can see go by); the others are counted as skipped.
	Rate   int
	Window time.Duration
	// Buffer is how many messages wait for a viewer (default 256); more are counted as
	// skipped, so a slow viewer never holds up the tail or the other viewers.
	Buffer int
	// RouteEvery is how often a tail reads its topic's route again, to follow queues
	// added and brokers joining or leaving (default 10 s).
	RouteEvery time.Duration
}

// Defaults of TailOptions.
const (
	DefaultTailRate   = 50
	DefaultTailWindow = time.Second
	DefaultTailBuffer = 256
)

// TailHub runs one tail per topic and filter, however many viewers watch it: the first
// viewer starts it, the last one leaving stops it, and each message is handed to every
// viewer's own bounded buffer.
type TailHub struct {
	follow FollowFunc
	opts   TailOptions

	mu    sync.Mutex
	tails map[string]*hubTail

	running atomic.Int64
	starts  atomic.Uint64
	// sent and skipped count the message frames viewers were sent and the messages
	// they were told of only as skipped, over every tail since the hub was made.
	sent    atomic.Uint64
	skipped atomic.Uint64
}

// NewTailHub returns a hub whose tails run follow.
func NewTailHub(follow FollowFunc, opts TailOptions) *TailHub {
	if opts.Rate <= 0 {
		opts.Rate = DefaultTailRate
	}
	if opts.Window <= 0 {
		opts.Window = DefaultTailWindow
	}
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultTailBuffer
	}
	return &TailHub{follow: follow, opts: opts, tails: map[string]*hubTail{}}
}

// Running is how many tails are pulling now.
func (h *TailHub) Running() int { return int(h.running.Load()) }

// Starts is how many tails the hub has started since it was made.
func (h *TailHub) Starts() uint64 { return h.starts.Load() }

// TailStats is what a hub's tails are doing, for /metrics.
type TailStats struct {
	// Tails are the tails pulling now; Viewers the viewers watching them.
	Tails, Viewers int
	// Sent counts the messages viewers were sent; Skipped those they were told of only
	// in a count (past the rate, past their buffer, or paused).
	Sent, Skipped uint64
}

// Stats reads what the hub's tails are doing.
func (h *TailHub) Stats() TailStats {
	st := TailStats{Tails: h.Running(), Sent: h.sent.Load(), Skipped: h.skipped.Load()}
	h.mu.Lock()
	for _, t := range h.tails {
		t.mu.Lock()
		st.Viewers += len(t.viewers)
		t.mu.Unlock()
	}
	h.mu.Unlock()
	return st
}

// hubTail is one running tail and its viewers.
type hubTail struct {
	stop context.CancelFunc

	mu       sync.Mutex
	viewers  map[*TailViewer]struct{}
	started  time.Time
	failures []BrokerFailure
	ended    bool
	err      error
}

// Watch adds a viewer to q's tail, starting the tail (after admit, when not nil) if
// none runs. Close the viewer when done.
func (h *TailHub) Watch(q TailQuery, admit Admit) (*TailViewer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := q.key()
	t := h.tails[key]
	start := t == nil
	leave := func() {}
	if start {
		if admit != nil {
			var err error
			if leave, err = admit(); err != nil {
				return nil, err
			}
		}
		t = &hubTail{viewers: map[*TailViewer]struct{}{}}
		h.tails[key] = t
	}
	v := &TailViewer{hub: h, key: key, t: t, wake: make(chan struct{}, 1)}
	t.mu.Lock()
	t.viewers[v] = struct{}{}
	v.started, v.newStarted = t.started, !t.started.IsZero()
	v.failures, v.newFailures = t.failures, len(t.failures) > 0
	v.ended, v.err = t.ended, t.err
	t.mu.Unlock()
	if start {
		// The first viewer is in before the tail runs, so it misses nothing.
		ctx, stop := context.WithCancel(context.Background())
		t.stop = stop
		h.running.Add(1)
		h.starts.Add(1)
		go func() {
			defer leave()
			defer h.running.Add(-1)
			err := h.follow(ctx, q, t.deliver)
			t.end(err)
			// A tail that ended by itself lets the next viewer start a new one.
			h.mu.Lock()
			if h.tails[key] == t {
				delete(h.tails, key)
			}
			h.mu.Unlock()
		}()
	}
	return v, nil
}

// deliver hands a tail's event to every viewer; it never waits for one.
func (t *hubTail) deliver(ev TailEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !ev.Started.IsZero() {
		t.started = ev.Started
	}
	if ev.FailuresChanged {
		t.failures = ev.Failures
	}
	for v := range t.viewers {
		v.put(ev)
	}
}

func (t *hubTail) end(err error) {
	if err == nil {
		err = errTailStopped
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ended, t.err = true, err
	for v := range t.viewers {
		v.finish(err)
	}
}

// errTailStopped ends the viewers of a tail stopped without an error of its own.
var errTailStopped = errors.New("the live tail stopped")

// leave removes v from its tail, and stops the tail when v was its last viewer.
func (h *TailHub) leave(v *TailViewer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := v.t
	t.mu.Lock()
	delete(t.viewers, v)
	last := len(t.viewers) == 0
	t.mu.Unlock()
	if last {
		if h.tails[v.key] == t {
			delete(h.tails, v.key)
		}
		t.stop()
	}
}

// TailFrameKind says what a TailFrame carries.
type TailFrameKind int

// The kinds of TailFrame.
const (
	// TailStarted: the tail knows where every queue starts; Started is when.
	TailStarted TailFrameKind = iota
	// TailMessage: one new message.
	TailMessage
	// TailSkipped: Skipped messages arrived that this viewer was not sent (past the
	// rate, past its buffer, or while it was paused).
	TailSkipped
	// TailFailures: the brokers failing now (none when empty).
	TailFailures
	// TailEnded: the tail stopped (Err says why); no frame follows.
	TailEnded
)

// TailFrame is one thing a viewer is told.
type TailFrame struct {
	Kind     TailFrameKind
	Started  time.Time
	Message  Message
	Skipped  int64
	Failures []BrokerFailure
	Err      error
}

// TailViewer is one viewer of a tail: its own bounded buffer of messages, its rate, and
// whether it is paused. Next is called from one goroutine; Pause and Close from any.
type TailViewer struct {
	hub  *TailHub
	key  string
	t    *hubTail
	wake chan struct{}

	mu          sync.Mutex
	buf         []Message
	head        int
	skipped     int64
	paused      bool
	sent        int
	windowStart time.Time
	lastSkipped time.Time
	started     time.Time
	newStarted  bool
	failures    []BrokerFailure
	newFailures bool
	ended       bool
	err         error
	endSent     bool
	closed      bool
}

func (v *TailViewer) put(ev TailEvent) {
	v.mu.Lock()
	if !ev.Started.IsZero() {
		v.started, v.newStarted = ev.Started, true
	}
	if ev.FailuresChanged {
		v.failures, v.newFailures = ev.Failures, true
	}
	for _, m := range ev.Messages {
		if len(v.buf)-v.head >= v.hub.opts.Buffer {
			v.skipped++
			continue
		}
		if v.head > 0 && len(v.buf) == cap(v.buf) {
			v.buf = v.buf[:copy(v.buf, v.buf[v.head:])]
			v.head = 0
		}
		v.buf = append(v.buf, m)
	}
	v.mu.Unlock()
	v.poke()
}

func (v *TailViewer) finish(err error) {
	v.mu.Lock()
	v.ended, v.err = true, err
	v.mu.Unlock()
	v.poke()
}

func (v *TailViewer) poke() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// Started is when the tail started (zero until it has): messages stored since are
// the ones it reports.
func (v *TailViewer) Started() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.started
}

// Pause stops (true) or resumes (false) the message frames; messages arriving while
// paused are counted as skipped.
func (v *TailViewer) Pause(on bool) {
	v.mu.Lock()
	v.paused = on
	v.mu.Unlock()
	v.poke()
}

// Close leaves the tail; the last viewer leaving stops it.
func (v *TailViewer) Close() {
	v.mu.Lock()
	closed := v.closed
	v.closed = true
	v.mu.Unlock()
	if !closed {
		v.hub.leave(v)
	}
}

// ErrTailOver is Next's error after the TailEnded frame.
var ErrTailOver = errors.New("the live tail is over")

// Next waits for the viewer's next frame: the tail's start and failures first, then
// its messages, at most Rate per Window; messages past the rate, past the buffer or
// arriving while paused are counted and told as one TailSkipped frame, at most one
// per Window. It returns ctx's error when ctx ends, and ErrTailOver after TailEnded.
func (v *TailViewer) Next(ctx context.Context) (TailFrame, error) {
	window, rate := v.hub.opts.Window, v.hub.opts.Rate
	for {
		v.mu.Lock()
		now := time.Now()
		if now.Sub(v.windowStart) >= window {
			v.windowStart, v.sent = now, 0
		}
		open := !v.paused && v.sent < rate
		if !open {
			v.skipped += int64(len(v.buf) - v.head)
			v.buf, v.head = v.buf[:0], 0
		}
		var f TailFrame
		ok := true
		switch {
		case v.endSent:
			v.mu.Unlock()
			return TailFrame{}, ErrTailOver
		case v.newStarted:
			v.newStarted = false
			f = TailFrame{Kind: TailStarted, Started: v.started}
		case v.newFailures:
			v.newFailures = false
			f = TailFrame{Kind: TailFailures, Failures: v.failures}
		case v.skipped > 0 && (open || now.Sub(v.lastSkipped) >= window):
			f = TailFrame{Kind: TailSkipped, Skipped: v.skipped}
			v.skipped, v.lastSkipped = 0, now
		case open && v.head < len(v.buf):
			f = TailFrame{Kind: TailMessage, Message: v.buf[v.head]}
			v.buf[v.head] = Message{}
			v.head++
			v.sent++
		case v.ended && v.head == len(v.buf):
			v.endSent = true
			f = TailFrame{Kind: TailEnded, Err: v.err}
		default:
			ok = false
		}
		// Nothing to send now: wait for news, or for the window that lets the count
		// of skipped messages (or more messages) go out.
		var wait time.Duration = -1
		if !ok && v.skipped > 0 {
			wait = max(v.lastSkipped.Add(window).Sub(now), time.Millisecond)
		}
		v.mu.Unlock()
		if ok {
			switch f.Kind {
			case TailMessage:
				v.hub.sent.Add(1)
			case TailSkipped:
				v.hub.skipped.Add(uint64(f.Skipped))
			}
			return f, nil
		}
		if err := v.waitNews(ctx, wait); err != nil {
			return TailFrame{}, err
		}
	}
}

// waitNews waits for news for the viewer, at most d when d is not negative.
func (v *TailViewer) waitNews(ctx context.Context, d time.Duration) error {
	var timer <-chan time.Time
	if d >= 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		timer = tm.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-v.wake:
	case <-timer:
	}
	return nil
}

// Tail adds a viewer to the tail of q, as Watch does, once q is valid.
func (h *TailHub) Tail(_ context.Context, q TailQuery, admit Admit) (*TailViewer, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return h.Watch(q, admit)
}

// Tails is the hub of the service's live tails.
func (s *Service) Tails() *TailHub { return s.tails }

// Tail adds a viewer to the live tail of q, starting it (after admit) when none runs
// for q's topic and filter. A query that is not valid, or a topic the NameServers do
// not know, is refused before anything is pulled.
func (s *Service) Tail(ctx context.Context, q TailQuery, admit Admit) (*TailViewer, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if _, err := s.route(s.cluster.Fanout(ctx), q.Topic, opTail); err != nil {
		return nil, err
	}
	return s.tails.Watch(q, admit)
}
