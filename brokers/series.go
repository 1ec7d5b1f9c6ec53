package brokers

import (
	"encoding/json"
	"sync"
	"time"
)

// Sample is one tick of a broker's throughput: the master's put rate and the get rate
// of all its processes (slaves serve reads too).
type Sample struct {
	At     time.Time
	PutTPS float64
	GetTPS float64
}

// SampleOf is the sample of one broker name's processes read at at; ok is false when
// no process answered.
func SampleOf(rs []Runtime, at time.Time) (Sample, bool) {
	s := Sample{At: at}
	ok := false
	for _, r := range rs {
		if r.Error != "" {
			continue
		}
		ok = true
		if r.ID == 0 {
			s.PutTPS = r.PutTPS
		}
		s.GetTPS += r.GetTPS
	}
	return s, ok
}

// Series keeps the newest samples of each broker name while it is watched, so a viewer
// who joins sees the last minutes, not one point.
type Series struct {
	mu     sync.Mutex
	max    int
	every  time.Duration
	byName map[string][]Sample
}

// NewSeries keeps up to max samples per broker, taken every interval.
func NewSeries(max int, every time.Duration) *Series {
	return &Series{max: max, every: every, byName: map[string][]Sample{}}
}

// Add appends s to the broker's series and returns the series as the chart reads it:
// {"t": [epoch seconds], "put": [...], "get": [...]}, null where nothing was measured:
// a tick no process answered, and a point just after each stretch without samples
// (nobody watched the broker), so the chart breaks its line there instead of drawing
// one across.
func (se *Series) Add(name string, s Sample) string {
	se.mu.Lock()
	defer se.mu.Unlock()
	ss := append(se.byName[name], s)
	if len(ss) > se.max {
		ss = ss[len(ss)-se.max:]
	}
	se.byName[name] = ss
	var out struct {
		T   []float64  `json:"t"`
		Put []*float64 `json:"put"`
		Get []*float64 `json:"get"`
	}
	measured := func(v float64) *float64 {
		if v < 0 {
			return nil
		}
		return &v
	}
	for i, x := range ss {
		// A tick comes every interval, give or take the broker's answer: a step of more
		// than two and a half is a stretch nobody measured.
		if i > 0 && se.every > 0 && x.At.Sub(ss[i-1].At) > se.every*5/2 {
			out.T = append(out.T, float64(ss[i-1].At.Add(se.every).UnixMilli())/1000)
			out.Put, out.Get = append(out.Put, nil), append(out.Get, nil)
		}
		out.T = append(out.T, float64(x.At.UnixMilli())/1000)
		out.Put = append(out.Put, measured(x.PutTPS))
		out.Get = append(out.Get, measured(x.GetTPS))
	}
	b, _ := json.Marshal(out)
	return string(b)
}
