package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// BrokerFailure is a broker that did not answer one operation, and why. Pages show it next
// to what the other brokers answered; it is the only kind of broker failure the services
// report.
type BrokerFailure struct {
	// Broker is the broker name, or what was asked when no broker was ("topic T").
	Broker string
	// Addr is the address asked, "" when none was.
	Addr string
	// Topic is the topic the operation concerned, when it concerned one.
	Topic string
	// Op is what was asked, in words ("consume stats", "key query"); "" when Err says it.
	Op      string
	Err     error
	Elapsed time.Duration
}

// Reason is the operation and its error: "consume stats: i/o timeout".
func (f BrokerFailure) Reason() string {
	msg := "failed"
	if f.Err != nil {
		msg = f.Err.Error()
	}
	if f.Op == "" {
		return msg
	}
	return f.Op + ": " + msg
}

// Error names the broker, its address and topic, then the reason:
// "broker-b (10.0.0.2:10911) for topic T: consume stats: i/o timeout".
func (f BrokerFailure) Error() string {
	s := f.Broker
	if f.Addr != "" {
		s += " (" + f.Addr + ")"
	}
	if f.Topic != "" {
		s += " for topic " + f.Topic
	}
	return s + ": " + f.Reason()
}

// String is Error.
func (f BrokerFailure) String() string { return f.Error() }

// Unwrap returns the broker's error.
func (f BrokerFailure) Unwrap() error { return f.Err }

// The codes of a broker failure, for scripts (BrokerFailure.Code).
const (
	// FailureAccessDenied: the broker refused the console's credentials (its ACL).
	FailureAccessDenied = "access_denied"
	// FailureTimeout: the broker did not answer in time.
	FailureTimeout = "broker_timeout"
	// FailureGone: the broker left the topic's route or the cluster info.
	FailureGone = "broker_gone"
	// FailureNoRoute: the NameServers route no such topic, or list no address to ask.
	FailureNoRoute = "no_route"
	// FailureError: any other failure (no connection, an error answered).
	FailureError = "broker_error"
)

// Code says what kind of failure f is: one of the Failure* codes.
func (f BrokerFailure) Code() string {
	var ae *rocketmq.AccessError
	var te *rocketmq.TimeoutError
	switch {
	case errors.As(f.Err, &ae):
		return FailureAccessDenied
	case f.Gone():
		return FailureGone
	case errors.Is(f.Err, rocketmq.ErrTopicNotFound), errors.Is(f.Err, errNoAddress):
		return FailureNoRoute
	case errors.As(f.Err, &te), errors.Is(f.Err, context.DeadlineExceeded):
		return FailureTimeout
	}
	return FailureError
}

// MarshalJSON writes the one shape every API answer gives a broker failure:
// {"broker", "addr", "topic", "op", "error", "code"}, empty fields left out. error is the
// operation and its error in English (Reason), code one of the Failure* codes.
func (f BrokerFailure) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Broker string `json:"broker,omitempty"`
		Addr   string `json:"addr,omitempty"`
		Topic  string `json:"topic,omitempty"`
		Op     string `json:"op,omitempty"`
		Error  string `json:"error"`
		Code   string `json:"code"`
	}{f.Broker, f.Addr, f.Topic, f.Op, f.Reason(), f.Code()})
}

// Gone reports whether the failure is a broker missing from a route it served a moment
// ago (see Route.Gone).
func (f BrokerFailure) Gone() bool { return errors.Is(f.Err, ErrBrokerGone) }

// SortFailures orders failures by broker, topic and operation.
func SortFailures(fs []BrokerFailure) {
	slices.SortStableFunc(fs, func(a, b BrokerFailure) int {
		if c := strings.Compare(a.Broker, b.Broker); c != 0 {
			return c
		}
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return strings.Compare(a.Op, b.Op)
	})
}

// Fanout is a set of broker calls made at once, at most Options.Parallelism in flight, that
// collects one BrokerFailure per broker, topic and operation. One broker's failure never
// cancels the others: a page shows what the rest answered. Calls wait for a slot only as
// long as ctx allows.
type Fanout struct {
	c   *Cluster
	ctx context.Context
	sem chan struct{}
	wg  sync.WaitGroup

	mu     sync.Mutex
	failed map[string]bool
	silent map[string]bool // brokers a call did not get an answer from
	seen   map[failureKey]bool
	list   []BrokerFailure
	slaves map[string]SlaveRead // broker name -> the first read a slave answered for it
}

type failureKey struct{ broker, topic, op string }

// Fanout starts a fan-out bounded by ctx.
func (c *Cluster) Fanout(ctx context.Context) *Fanout {
	return &Fanout{c: c, ctx: ctx, sem: make(chan struct{}, c.opts.Parallelism),
		failed: map[string]bool{}, silent: map[string]bool{}, seen: map[failureKey]bool{}, slaves: map[string]SlaveRead{}}
}

// Route reads the topic's route for op, as Cluster.Route does, and records each broker
// that served the topic a moment ago and is missing now as failing op: its messages and
// offsets are missing from what the fan-out answers.
func (f *Fanout) Route(topic, op string) (*Route, error) {
	r, err := f.c.Route(f.ctx, topic)
	if err != nil {
		return nil, err
	}
	for _, g := range r.Gone {
		f.Fail(g.Failure(topic, op))
	}
	return r, nil
}

// Limit sets how many calls are in flight at once (instead of Options.Parallelism); call
// it before the first call.
func (f *Fanout) Limit(n int) *Fanout {
	if n > 0 {
		f.sem = make(chan struct{}, n)
	}
	return f
}

// NotAnswering reports whether a call to the named broker got no answer at all (no
// connection, no answer in time). Asking it again in the same operation would only add
// another timeout to the caller's wait.
func (f *Fanout) NotAnswering(broker string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.silent[broker]
}

// Unanswered reports whether err means the broker did not answer at all (no connection,
// no answer in time), as opposed to an answer that was an error.
func Unanswered(err error) bool { return unanswered(err) }

// Go asks b's master. An error is recorded as b's failure of op.
func (f *Fanout) Go(b Broker, op string, ask func(ctx context.Context, addr string) error) {
	f.GoTopic(b, "", op, ask)
}

// GoTopic is Go for an operation on one topic, which its failure names.
func (f *Fanout) GoTopic(b Broker, topic, op string, ask func(ctx context.Context, addr string) error) {
	f.start(b, topic, op, false, ask, nil)
}

// At asks one exact address of broker name (one process: the overview reads each master
// and slave for its own figures).
func (f *Fanout) At(name, addr, op string, ask func(ctx context.Context, addr string) error) {
	f.start(Broker{Name: name, Master: addr}, "", op, false, ask, nil)
}

// Read asks b for something a slave holds as well as the master (messages, offsets of
// a topic): the master first, then each slave when the one before did not answer (no
// connection, no answer in time). A broker without a registered master is read from its
// slaves.
func (f *Fanout) Read(b Broker, op string, ask func(ctx context.Context, addr string) error) {
	f.start(b, "", op, true, ask, nil)
}

// Each asks every broker's master at once and returns the answers in the brokers' order;
// a broker that failed is recorded in f and its answer left zero.
func Each[T any](f *Fanout, brokers []Broker, op string, ask func(ctx context.Context, addr string) (T, error)) []T {
	return each(f, brokers, op, false, ask)
}

// EachRead is Each for reads a slave can answer (see Fanout.Read).
func EachRead[T any](f *Fanout, brokers []Broker, op string, ask func(ctx context.Context, addr string) (T, error)) []T {
	return each(f, brokers, op, true, ask)
}

func each[T any](f *Fanout, brokers []Broker, op string, read bool, ask func(ctx context.Context, addr string) (T, error)) []T {
	out := make([]T, len(brokers))
	var wg sync.WaitGroup
	for i, b := range brokers {
		wg.Add(1)
		f.start(b, "", op, read, func(ctx context.Context, addr string) error {
			v, err := ask(ctx, addr)
			if err == nil {
				out[i] = v
			}
			return err
		}, wg.Done)
	}
	wg.Wait()
	return out
}

// Fail records a failure that did not come from a call (a broker the route lists without
// an address, a broker gone from the route).
func (f *Fanout) Fail(fl BrokerFailure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed[fl.Broker] = true
	k := failureKey{fl.Broker, fl.Topic, fl.Op}
	if f.seen[k] {
		return
	}
	f.seen[k] = true
	f.list = append(f.list, fl)
}

// Failed reports whether a call to the named broker failed, so later rounds of a query
// can leave it out.
func (f *Fanout) Failed(broker string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed[broker]
}

// Wait waits for every call and returns the failures, sorted.
func (f *Fanout) Wait() []BrokerFailure {
	f.wg.Wait()
	return f.Failures()
}

// Failures returns the failures recorded so far, sorted.
func (f *Fanout) Failures() []BrokerFailure {
	f.mu.Lock()
	out := slices.Clone(f.list)
	f.mu.Unlock()
	SortFailures(out)
	return out
}

func (f *Fanout) start(b Broker, topic, op string, read bool, ask func(ctx context.Context, addr string) error, done func()) {
	addrs := []string{b.Master}
	if read {
		addrs = f.c.ReadOrder(b)
	}
	if len(addrs) == 0 || addrs[0] == "" {
		f.Fail(BrokerFailure{Broker: b.Name, Topic: topic, Op: op, Err: errNoAddr(b, read)})
		if done != nil {
			done()
		}
		return
	}
	f.wg.Go(func() {
		if done != nil {
			defer done()
		}
		select {
		case f.sem <- struct{}{}:
		case <-f.ctx.Done():
			f.Fail(BrokerFailure{Broker: b.Name, Addr: addrs[0], Topic: topic, Op: op, Err: fmt.Errorf("not asked: %w", f.ctx.Err())})
			return
		}
		defer func() { <-f.sem }()
		start := time.Now()
		var err error
		var addr string
		var masterErr error // what the master answered before a slave was asked
		var masterTook time.Duration
		for _, addr = range addrs {
			began := time.Now()
			err = ask(f.ctx, addr)
			f.c.noteAnswer(b.Name, addr, err)
			if err == nil {
				if read && addr != b.Master {
					f.noteSlave(b, addr, masterErr, masterTook)
				}
				return
			}
			if !unanswered(err) {
				break
			}
			if addr == b.Master {
				masterErr, masterTook = err, time.Since(began)
			}
			f.c.noteUnanswered(addr, time.Since(began))
			if f.ctx.Err() != nil {
				break
			}
		}
		if unanswered(err) {
			f.mu.Lock()
			f.silent[b.Name] = true
			f.mu.Unlock()
		}
		f.Fail(BrokerFailure{Broker: b.Name, Addr: addr, Topic: topic, Op: op, Err: err, Elapsed: time.Since(start)})
	})
}

// SlaveRead is a broker whose answer to a read came, at least partly, from a slave: its
// master did not answer (no connection, no answer in time), or a moment ago it did not and
// it is asked after its slaves for a while, or no master is registered. Answers built
// from reads say so, since a slave can be a little behind its master.
type SlaveRead struct {
	Broker string
	// Master is the master's address, "" when none is registered.
	Master string
	// Slave is the slave's address that answered.
	Slave string
	// MasterErr is the master's error in this operation (nil when it was not asked).
	MasterErr error
	// Waited is how long the master was waited for, in this operation or (Earlier) the
	// last time it did not answer.
	Waited time.Duration
	// Earlier says the master was not asked first: it did not answer a moment ago (at
	// Since), so its slave was read first.
	Earlier bool
	Since   time.Time
}

// Message says it in words for the answer what (a catalogue message, said in the same
// language): "Broker broker-a's master 10.0.0.1:10911 did not answer in 2.0 s; <what>
// come from its slave 10.0.0.11:10911, which can be a little behind its master."
func (s SlaveRead) Message(what i18n.Message) i18n.Message {
	kv := []any{"Broker", s.Broker, "Master", s.Master, "Slave", s.Slave, "What", what,
		"Waited", seconds(s.Waited), "Since", s.Since.UTC().Format("15:04:05 UTC"), "For", seconds(unansweredFor)}
	switch {
	case s.Master == "":
		return i18n.M("cluster.slave.nomaster", kv...)
	case s.Earlier:
		return i18n.M("cluster.slave.earlier", kv...)
	}
	return i18n.M("cluster.slave.noanswer", kv...)
}

func (s SlaveRead) why() string {
	switch {
	case s.Master == "":
		return fmt.Sprintf("Broker %s has no master registered with the NameServer", s.Broker)
	case s.Earlier:
		return fmt.Sprintf("Broker %s's master %s did not answer in %s at %s, so for %s it is asked after its slave",
			s.Broker, s.Master, seconds(s.Waited), s.Since.UTC().Format("15:04:05 UTC"), seconds(unansweredFor))
	}
	return fmt.Sprintf("Broker %s's master %s did not answer in %s", s.Broker, s.Master, seconds(s.Waited))
}

func seconds(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// MarshalJSON writes {"broker", "master", "slave", "reason"}.
func (s SlaveRead) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Broker string `json:"broker"`
		Master string `json:"master,omitempty"`
		Slave  string `json:"slave"`
		Reason string `json:"reason"`
	}{s.Broker, s.Master, s.Slave, s.why()})
}

func (f *Fanout) noteSlave(b Broker, slave string, masterErr error, waited time.Duration) {
	sr := SlaveRead{Broker: b.Name, Master: b.Master, Slave: slave, MasterErr: masterErr, Waited: waited}
	if b.Master != "" && masterErr == nil {
		sr.Earlier = true
		sr.Since, sr.Waited = f.c.lastUnanswered(b.Master)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.slaves[b.Name]; !ok {
		f.slaves[b.Name] = sr
	}
}

// FromSlaves returns the brokers a slave answered a read for, one per broker, sorted by
// name. Call it after Wait.
func (f *Fanout) FromSlaves() []SlaveRead {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]SlaveRead, 0, len(f.slaves))
	for _, s := range f.slaves {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b SlaveRead) int { return strings.Compare(a.Broker, b.Broker) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// errNoAddress is matched by the failure of a broker the route lists without an address
// to ask (no master for a write, no address at all for a read).
var errNoAddress = errors.New("no address")

func errNoAddr(b Broker, read bool) error {
	if read {
		return &noAddrError{fmt.Sprintf("the NameServer lists no address for broker %s", b.Name)}
	}
	return &noAddrError{fmt.Sprintf("no master is registered for broker %s (its slaves cannot take this request)", b.Name)}
}

type noAddrError struct{ msg string }

func (e *noAddrError) Error() string        { return e.msg }
func (e *noAddrError) Is(target error) bool { return target == errNoAddress }

// unanswered reports whether err means the address did not answer at all (no
// connection, no answer in time), as opposed to an answer that was an error.
func unanswered(err error) bool {
	var ce *rocketmq.ConnError
	var te *rocketmq.TimeoutError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}
