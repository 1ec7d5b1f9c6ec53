package cluster

import (
	"sync"
	"time"
)

// Held remembers, per broker, what the broker held when it last answered a list: its
// consumer groups and their queues, its topics. A list whose broker does not answer, or
// is gone from the cluster, shows what that broker held then as unknown, rather than
// leaving it out as if it never existed. It keeps one value per broker name, replaced at
// each answer, and forgets a value older than DefaultForgetGone, as the cluster forgets a
// gone broker. The zero value is ready to use.
type Held[T any] struct {
	mu sync.Mutex
	m  map[string]heldValue[T]
}

type heldValue[T any] struct {
	v  T
	at time.Time
}

// Note records what broker held at at; v must not be modified afterwards.
func (h *Held[T]) Note(broker string, v T, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]heldValue[T]{}
	}
	h.m[broker] = heldValue[T]{v, at}
	for name, hv := range h.m {
		if at.Sub(hv.at) > DefaultForgetGone {
			delete(h.m, name)
		}
	}
}

// Last returns what broker held when it last answered, and when; ok is false when it
// never answered (or too long ago). The value must not be modified.
func (h *Held[T]) Last(broker string, now time.Time) (v T, at time.Time, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hv, ok := h.m[broker]
	if !ok || now.Sub(hv.at) > DefaultForgetGone {
		return v, at, false
	}
	return hv.v, hv.at, true
}
