package rocketmq

import (
	"hash/maphash"
	"sync"
)

// lastDecoded keeps, by broker address, the last answer decoded into a T with the hash
// of its body: an answer identical to the last one (same length and hash) is answered
// with the value decoded from that one. For the broker-wide tables (topic configs,
// subscription group names) that are the same answer read after read, and whose decoding is
// most of a list's time on a broker of thousands of entries. The value is shared by
// every caller: it must not be changed.
type lastDecoded[T any] struct {
	m sync.Map // broker address → decoded[T]
}

type decoded[T any] struct {
	sum   uint64
	size  int
	value *T
}

var decodedSeed = maphash.MakeSeed()

// decode answers body, from addr, with the value decoded from the same body last time,
// or decodes it with read.
func (l *lastDecoded[T]) decode(addr string, body []byte, read func([]byte) (*T, error)) (*T, error) {
	sum := maphash.Bytes(decodedSeed, body)
	if last, ok := l.m.Load(addr); ok {
		if d := last.(decoded[T]); d.sum == sum && d.size == len(body) {
			return d.value, nil
		}
	}
	v, err := read(body)
	if err != nil {
		return nil, err
	}
	l.m.Store(addr, decoded[T]{sum: sum, size: len(body), value: v})
	return v, nil
}

// decodeAs is decodeBody into a new T.
func decodeAs[T any](body []byte) (*T, error) {
	v := new(T)
	if err := decodeBody(body, v); err != nil {
		return nil, err
	}
	return v, nil
}
