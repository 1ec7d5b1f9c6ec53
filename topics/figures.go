package topics

import (
	"slices"
	"sync"
	"time"
)

// Why a topic's figures are unknown (Summary.FiguresUnknown).
const (
	// FiguresNotReadYet: the collector has not reached the topic since the console
	// started (or the topic was created since).
	FiguresNotReadYet = "not_read_yet"
	// FiguresBrokerFailed: the topic's brokers did not answer its stats when asked.
	FiguresBrokerFailed = "broker_failed"
)

// figure is one topic's figures on one broker, as the collector last read them.
type figure struct {
	messages int64
	tps      float64
	hasTPS   bool
	// knownAt is when they were last known true: when GET_TOPIC_STATS_INFO answered
	// them, or later, when the broker's commit log had not moved since (zero: never read).
	knownAt time.Time
	// grew says the stored messages grew at the last read: a topic in use, read first
	// when its broker's commit log moves again.
	grew bool
	// failedAt is when the last read failed (zero when it answered).
	failedAt time.Time
}

// known says the figure was read at least once.
func (f *figure) known() bool { return !f.knownAt.IsZero() }

// commitLogMark is a broker's commit-log range at a moment: while it stays the same, no
// message was stored on the broker and none was deleted, so every topic's stored
// messages there are what they were.
type commitLogMark struct {
	min, max int64
	at       time.Time
}

// figures is what the collector knows of every topic's figures, in memory: the list
// reads it and makes no call of its own for them.
type figures struct {
	mu sync.Mutex
	// byTopic is topic → broker name → its figure there.
	byTopic map[string]map[string]*figure
	marks   map[string]commitLogMark
	// viewed is when each topic was last on a page someone looked at.
	viewed map[string]time.Time
}

func newFigures() *figures {
	return &figures{byTopic: map[string]map[string]*figure{}, marks: map[string]commitLogMark{}, viewed: map[string]time.Time{}}
}

// view notes topics shown to a reader at now: the collector reads them first.
func (fs *figures) view(topics []string, now time.Time) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, t := range topics {
		fs.viewed[t] = now
	}
}

// fill sets each summary's figures from memory: Messages and PutTPS add up the brokers
// whose figure is known, StatsFrom counts them, FiguresAt is the oldest of their
// knownAt, and FiguresUnknown says why when none is known.
func (fs *figures) fill(ts []Summary) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i := range ts {
		s := &ts[i]
		s.Messages, s.PutTPS, s.StatsFrom, s.FiguresAt, s.FiguresUnknown = 0, nil, 0, nil, ""
		failed := false
		for _, b := range s.Brokers {
			f := fs.byTopic[s.Topic][b]
			if f == nil {
				continue
			}
			failed = failed || !f.failedAt.IsZero()
			if !f.known() || slices.Contains(s.UnknownOn, b) {
				continue
			}
			s.StatsFrom++
			s.Messages += f.messages
			if f.hasTPS {
				if s.PutTPS == nil {
					s.PutTPS = new(float64)
				}
				*s.PutTPS += f.tps
			}
			if s.FiguresAt == nil || f.knownAt.Before(*s.FiguresAt) {
				at := f.knownAt
				s.FiguresAt = &at
			}
		}
		switch {
		case s.StatsFrom > 0:
		case failed:
			s.FiguresUnknown = FiguresBrokerFailed
		default:
			s.FiguresUnknown = FiguresNotReadYet
		}
	}
}

// FigureAge is how old a list's figures are: the oldest known figure's time and how many
// topics have none yet.
type FigureAge struct {
	Oldest  *time.Time
	Unknown int
}

// Age sums up the figures of ts.
func Age(ts []Summary) FigureAge {
	var a FigureAge
	for _, s := range ts {
		if s.FiguresAt == nil {
			a.Unknown++
			continue
		}
		if a.Oldest == nil || s.FiguresAt.Before(*a.Oldest) {
			a.Oldest = s.FiguresAt
		}
	}
	return a
}
