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
	byName map[string][]Sample
}

// NewSeries keeps up to max samples per broker.
func NewSeries(max int) *Series { return &Series{max: max, byName: map[string][]Sample{}} }

// Add appends s to the broker's series and returns the series as the chart reads it:
// {"t": [epoch seconds], "put": [...], "get": [...]}.
func (se *Series) Add(name string, s Sample) string {
	se.mu.Lock()
	defer se.mu.Unlock()
	ss := append(se.byName[name], s)
	if len(ss) > se.max {
		ss = ss[len(ss)-se.max:]
	}
	se.byName[name] = ss
	var out struct {
		T   []float64 `json:"t"`
		Put []float64 `json:"put"`
		Get []float64 `json:"get"`
	}
	for _, x := range ss {
		out.T = append(out.T, float64(x.At.UnixMilli())/1000)
		out.Put = append(out.Put, x.PutTPS)
		out.Get = append(out.Get, x.GetTPS)
	}
	b, _ := json.Marshal(out)
	return string(b)
}
