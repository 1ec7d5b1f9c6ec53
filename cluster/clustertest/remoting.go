package clustertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/rocketmq"
)

// Answers is what a fake cluster knows, asked the way the console asks: the NameServer's
// answers (no address) and each broker's, by the address the request came to. *Fake
// implements it, and so does a simulated cluster of any size (package sim). Remoting
// serves it over RocketMQ remoting, so the real console can be pointed at it.
type Answers interface {
	ClusterInfo(ctx context.Context) (*rocketmq.ClusterInfo, error)
	TopicList(ctx context.Context) ([]string, error)
	TopicRoute(ctx context.Context, topic string) (*rocketmq.TopicRoute, error)

	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
	BrokerRuntimeInfo(ctx context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error)
	BrokerConfig(ctx context.Context, addr string) (map[string]string, error)
	TopicConfigs(ctx context.Context, addr string) (*rocketmq.TopicConfigTable, error)
	TopicStats(ctx context.Context, addr, topic string) (*rocketmq.TopicStats, error)
	SearchOffset(ctx context.Context, addr string, mq rocketmq.MessageQueue, t time.Time, boundary rocketmq.BoundaryType) (int64, error)
	Pull(ctx context.Context, addr string, mq rocketmq.MessageQueue, offset int64, maxNums int) (*rocketmq.PullResult, error)
	ViewMessageAt(ctx context.Context, addr string, commitLogOffset int64, topic string) (*rocketmq.Message, error)

	SubscriptionGroups(ctx context.Context, addr string) (*rocketmq.SubscriptionGroupTable, error)
	BrokerConsumeStats(ctx context.Context, addr string) (*rocketmq.BrokerConsumeStats, error)
	ConsumeStats(ctx context.Context, addr, group, topic string) (*rocketmq.ConsumeStats, error)
	ConsumerOffsets(ctx context.Context, addr string) (map[string]map[string]map[int]int64, error)
	QueryConsumerOffset(ctx context.Context, addr, group string, mq rocketmq.MessageQueue) (int64, error)
	TopicConsumerGroups(ctx context.Context, addr, topic string) ([]string, error)
	ConsumeTimeSpan(ctx context.Context, addr, topic, group string) ([]rocketmq.QueueTimeSpan, error)
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
	ConsumerRunningInfo(ctx context.Context, addr, group, clientID string, jstack bool) (*rocketmq.ConsumerRunningInfo, error)
	PollingInfo(ctx context.Context, addr, group, topic string, queueID int) (int, error)
}

var _ Answers = (*Fake)(nil)

// Remoting serves Answers over RocketMQ remoting on loopback: one listener per broker
// address and one for the NameServer (any listener answers NameServer requests). Every
// answer waits Latency first, as a network hop and a broker's queueing would, and every
// request is counted by its code, with the bytes of its answer.
type Remoting struct {
	answers Answers
	latency atomic.Int64 // nanoseconds
	// Version is the MQVersion ordinal every answer carries (the console learns a
	// broker's version from it); 5.3.3 unless set.
	Version atomic.Int64

	mu        sync.Mutex
	listeners []net.Listener
	conns     map[net.Conn]bool
	calls     map[rocketmq.RequestCode]*CodeCount
	unknown   map[rocketmq.RequestCode]int
	wg        sync.WaitGroup
	closed    bool
}

// CodeCount is what one request code cost: requests answered and the bytes of their
// bodies.
type CodeCount struct {
	Requests int64 `json:"requests"`
	Bytes    int64 `json:"bytes"`
}

// NewRemoting returns a server of answers; Listen adds its addresses. answers may be nil
// until Use gives them, for a cluster that needs its brokers' addresses to be made.
func NewRemoting(answers Answers) *Remoting {
	r := &Remoting{answers: answers, conns: map[net.Conn]bool{}, calls: map[rocketmq.RequestCode]*CodeCount{},
		unknown: map[rocketmq.RequestCode]int{}}
	r.Version.Store(rocketmq.VersionOrdinal5_3_3)
	return r
}

// Use answers with a from now on.
func (r *Remoting) Use(a Answers) {
	r.mu.Lock()
	r.answers = a
	r.mu.Unlock()
}

// SetLatency makes every answer from now on wait d.
func (r *Remoting) SetLatency(d time.Duration) { r.latency.Store(int64(d)) }

// Listen starts answering at addr ("127.0.0.1:0" picks a free port) and returns the
// address it listens on.
func (r *Remoting) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	self := ln.Addr().String()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		ln.Close()
		return "", net.ErrClosed
	}
	r.listeners = append(r.listeners, ln)
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.mu.Lock()
			if r.closed {
				r.mu.Unlock()
				c.Close()
				return
			}
			r.conns[c] = true
			r.wg.Add(1)
			r.mu.Unlock()
			go func() {
				defer r.wg.Done()
				_ = rocketmq.ServeRemoting(c, func(req *rocketmq.Request) *rocketmq.Response { return r.answer(self, req) })
				r.mu.Lock()
				delete(r.conns, c)
				r.mu.Unlock()
			}()
		}
	}()
	return self, nil
}

// Close stops listening, closes every connection and waits for the answers in flight.
func (r *Remoting) Close() {
	r.mu.Lock()
	r.closed = true
	for _, ln := range r.listeners {
		ln.Close()
	}
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// Calls returns what each request code cost so far.
func (r *Remoting) Calls() map[rocketmq.RequestCode]CodeCount {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[rocketmq.RequestCode]CodeCount, len(r.calls))
	for code, c := range r.calls {
		out[code] = *c
	}
	return out
}

// Unanswered returns the request codes that came and that no answer exists for, with
// their counts: calls a measurement would miss.
func (r *Remoting) Unanswered() map[rocketmq.RequestCode]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[rocketmq.RequestCode]int, len(r.unknown))
	for k, v := range r.unknown {
		out[k] = v
	}
	return out
}

func (r *Remoting) answer(self string, req *rocketmq.Request) *rocketmq.Response {
	if d := time.Duration(r.latency.Load()); d > 0 {
		time.Sleep(d)
	}
	r.mu.Lock()
	answers := r.answers
	r.mu.Unlock()
	a, ok := answerOf[req.Code]
	var resp *rocketmq.Response
	if ok && answers == nil {
		resp = &rocketmq.Response{Code: rocketmq.CodeSystemError, Remark: "not serving yet"}
	} else if ok {
		var err error
		resp, err = a(context.Background(), answers, self, req)
		if err != nil {
			resp = errorResponse(err)
		}
	} else {
		resp = &rocketmq.Response{Code: rocketmq.CodeRequestCodeNotSupported, Remark: fmt.Sprintf("request type %d not supported", int(req.Code))}
	}
	if resp.Version == 0 {
		resp.Version = int(r.Version.Load())
	}
	r.mu.Lock()
	if !ok {
		r.unknown[req.Code]++
	}
	c := r.calls[req.Code]
	if c == nil {
		c = &CodeCount{}
		r.calls[req.Code] = c
	}
	c.Requests++
	c.Bytes += int64(len(resp.Body))
	r.mu.Unlock()
	return resp
}

// errorResponse answers an error as a broker would: a broker's own error with its code,
// the console's sentinels with theirs, anything else as SYSTEM_ERROR.
func errorResponse(err error) *rocketmq.Response {
	var be *rocketmq.BrokerError
	code := rocketmq.CodeSystemError
	switch {
	case errors.As(err, &be):
		return &rocketmq.Response{Code: be.Code, Remark: be.Remark}
	case errors.Is(err, rocketmq.ErrTopicNotFound):
		code = rocketmq.CodeTopicNotExist
	case errors.Is(err, rocketmq.ErrConsumerNotOnline):
		code = rocketmq.CodeConsumerNotOnline
	case errors.Is(err, rocketmq.ErrGroupNotFound):
		code = rocketmq.CodeSubscriptionGroupNotExist
	case errors.Is(err, rocketmq.ErrNoConsumerOffset):
		code = rocketmq.CodeQueryNotFound
	}
	return &rocketmq.Response{Code: code, Remark: err.Error()}
}

func ok(body []byte) *rocketmq.Response {
	return &rocketmq.Response{Code: rocketmq.CodeSuccess, Body: body}
}

func okHeader(ext map[string]string) *rocketmq.Response {
	return &rocketmq.Response{Code: rocketmq.CodeSuccess, ExtFields: ext}
}

// sortedNames returns a map's keys in order, so answers are the same bytes each time.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
