// Package rocketmq is a client of Apache RocketMQ's TCP "remoting" protocol
// for an admin console: it talks to NameServers and brokers (4.9.x and 5.x)
// directly, the way mqadmin and rocketmq-dashboard do.
//
// A Client keeps one multiplexed connection per address, matches answers to
// requests by opaque, bounds every call by Config.Timeout (or the context's
// deadline when that comes sooner), reconnects after a connection breaks,
// fails over between NameServers (asking the next one when the first is slow,
// and asking a slow one last for a while) and caches topic routes for a few
// seconds. Each admin
// operation is one request to one server, typed and documented with
// RocketMQ's own vocabulary; broker error codes come back as *BrokerError,
// matching sentinels such as ErrTopicNotFound and ErrConsumerNotOnline with
// errors.Is.
//
// Broker bodies are fastjson, not always strict JSON; they pass through
// NormalizeJSON before encoding/json. What real brokers answer, and where it
// differs between versions, is written down in docs/rocketmq-protocol-notes.md.
// The package knows nothing of HTTP or SQL.
package rocketmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/rocketmq/signature"
)

// Config configures a Client.
type Config struct {
	// NameServer is the NameServer list, "host:port" entries separated by ";".
	NameServer string
	// Timeout bounds each single call to a NameServer or broker, whatever
	// the context's deadline (a sooner deadline wins). Default 5s.
	Timeout time.Duration
	// RouteTTL is how long a topic route is reused. Default 3s; a negative
	// value disables the cache.
	RouteTTL time.Duration
	// Logger receives debug logs about connections; nil discards them.
	Logger *slog.Logger
	// Credentials sign every request, for clusters with ACL on.
	Credentials Credentials
}

// Client talks RocketMQ's remoting protocol to NameServers and brokers, one
// multiplexed connection per address. It is safe for concurrent use.
//
// Broker operations take the broker address ("host:port") explicitly; the
// caller finds it in a TopicRoute or ClusterInfo. This keeps each method a
// single request to a single server, so callers decide how to fan out.
type Client struct {
	nameServers []string
	timeout     time.Duration
	routeTTL    time.Duration
	log         *slog.Logger
	pool        *pool
	creds       Credentials

	nsNext atomic.Uint32 // index of the NameServer to try first

	nsMu        sync.Mutex
	nsSlowUntil []time.Time // per NameServer: asked last until then

	calls sync.Map // RequestCode -> *atomic.Uint64
	times sync.Map // RequestCode -> *callTimes

	routeMu sync.Mutex
	routes  map[string]cachedRoute

	versionMu sync.Mutex
	versions  map[string]BrokerVersion

	topicConfigs lastDecoded[TopicConfigTable]
	groupNames   lastDecoded[GroupNames]
}

type cachedRoute struct {
	route   *TopicRoute
	expires time.Time
}

// New returns a Client for the NameServers in cfg. It does not connect until
// the first call.
func New(cfg Config) (*Client, error) {
	var ns []string
	for _, a := range strings.Split(cfg.NameServer, ";") {
		if a = strings.TrimSpace(a); a != "" {
			ns = append(ns, a)
		}
	}
	if len(ns) == 0 {
		return nil, fmt.Errorf("rocketmq: no NameServer address in %q", cfg.NameServer)
	}
	c := &Client{
		nameServers: ns,
		nsSlowUntil: make([]time.Time, len(ns)),
		timeout:     cfg.Timeout,
		routeTTL:    cfg.RouteTTL,
		log:         cfg.Logger,
		creds:       cfg.Credentials,
		routes:      make(map[string]cachedRoute),
		versions:    make(map[string]BrokerVersion),
	}
	if c.timeout <= 0 {
		c.timeout = 5 * time.Second
	}
	if c.routeTTL == 0 {
		c.routeTTL = 3 * time.Second
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.pool = newPool(c.log)
	return c, nil
}

// NameServers returns the configured NameServer addresses.
func (c *Client) NameServers() []string { return append([]string(nil), c.nameServers...) }

// Close closes every connection. Calls in flight fail; later calls return
// ErrClosed.
func (c *Client) Close() error {
	c.pool.close()
	return nil
}

// Calls returns how many requests have been sent so far, per request code
// (NameServer and broker requests alike; retries count). The counts only
// grow; diff two snapshots to count the requests of an interval.
func (c *Client) Calls() map[RequestCode]uint64 {
	out := make(map[RequestCode]uint64)
	c.calls.Range(func(k, v any) bool {
		out[k.(RequestCode)] = v.(*atomic.Uint64).Load()
		return true
	})
	return out
}

// CallCount returns how many requests with this code have been sent.
func (c *Client) CallCount(code RequestCode) uint64 {
	if v, ok := c.calls.Load(code); ok {
		return v.(*atomic.Uint64).Load()
	}
	return 0
}

// TotalCalls returns how many requests have been sent, all codes together.
func (c *Client) TotalCalls() uint64 {
	var n uint64
	c.calls.Range(func(_, v any) bool {
		n += v.(*atomic.Uint64).Load()
		return true
	})
	return n
}

func (c *Client) count(code RequestCode) {
	v, ok := c.calls.Load(code)
	if !ok {
		v, _ = c.calls.LoadOrStore(code, new(atomic.Uint64))
	}
	v.(*atomic.Uint64).Add(1)
}

// relayedConsumeWait is how long a CONSUME_MESSAGE_DIRECTLY may take: brokers wait 10 s
// for the client's answer (Broker2Client.callClient), then answer CONSUME_MSG_TIMEOUT.
const relayedConsumeWait = 12 * time.Second

var errGoAway = errors.New("server asked us to go away (GO_AWAY)")

// withTimeout bounds one call by the client's timeout, or by ctx's deadline
// when that comes sooner. A caller's longer deadline (a whole page, a list of
// every group) never lets one silent broker hold a call for all of it, and
// leave nothing for the brokers asked after it.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// invoke sends one request to addr and returns the raw response, whatever
// its code. A connection that broke before answering is retried once on a
// new connection when it had been idle in the pool (the server may have
// closed it; the request most likely never arrived), and after GO_AWAY.
func (c *Client) invoke(ctx context.Context, addr string, code RequestCode, ext map[string]string, body []byte) (*command, error) {
	return c.invokeHeld(ctx, addr, code, ext, body, 0)
}

// invokeHeld is invoke for a request the server may hold for up to held before it
// answers (a long-polling pull): the call waits that much longer than the client's
// timeout.
func (c *Client) invokeHeld(ctx context.Context, addr string, code RequestCode, ext map[string]string, body []byte, held time.Duration) (*command, error) {
	start := time.Now()
	if ctx.Err() != nil {
		// Say so, rather than "no answer within 0s" for a call never sent.
		return nil, fmt.Errorf("%s to %s not sent: %w", code, addr, context.Cause(ctx))
	}
	timeout := c.timeout + held
	if code == CodeConsumeMessageDirectly {
		// The broker waits for the client's listener; cutting in sooner would report a
		// failure for a message the client may still consume.
		timeout = max(timeout, relayedConsumeWait)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() { c.observe(code, time.Since(start)) }()
	for attempt := 0; ; attempt++ {
		cn, fresh, err := c.pool.get(ctx, addr)
		if err != nil {
			if ctx.Err() != nil {
				return nil, callCtxErr(ctx, addr, code, start)
			}
			return nil, err
		}
		c.count(code)
		resp, err := cn.call(ctx, c.request(code, ext, body))
		if err != nil {
			var ce *ConnError
			if attempt == 0 && !fresh && errors.As(err, &ce) && ctx.Err() == nil {
				c.log.Debug("rocketmq: retrying on a new connection", "addr", addr, "code", code, "err", err)
				continue
			}
			return nil, err
		}
		if ResponseCode(resp.Code) == CodeGoAway {
			cn.fail(errGoAway) // the next attempt dials a new connection
			if attempt == 0 && ctx.Err() == nil {
				continue
			}
		}
		if code != CodeGetConsumerRunningInfo && code != CodeConsumeMessageDirectly {
			// Relayed answers carry the consumer's version, not the broker's.
			c.noteVersion(addr, resp.Version)
		}
		return resp, nil
	}
}

// oneway sends a request without waiting for an answer.
func (c *Client) oneway(ctx context.Context, addr string, code RequestCode, ext map[string]string, body []byte) error {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	cn, _, err := c.pool.get(ctx, addr)
	if err != nil {
		return err
	}
	c.count(code)
	return cn.oneway(ctx, c.request(code, ext, body))
}

// request builds the frame of a request, signed when the Client has credentials.
func (c *Client) request(code RequestCode, ext map[string]string, body []byte) *command {
	req := &command{Code: int(code), Language: ourLanguage, Version: ourVersion, ExtFields: ext, Body: body}
	if c.creds.Set() {
		req.ExtFields = c.creds.sign(ext, body)
		if _, ok := ext[signature.UniqueKeyQuery]; ok {
			req.Version = signature.UnsignedUniqueKeyVersion
		}
	}
	return req
}

// call is invoke plus the usual success check: a non-zero code becomes a
// *BrokerError.
func (c *Client) call(ctx context.Context, addr string, code RequestCode, ext map[string]string, body []byte) (*command, error) {
	resp, err := c.invoke(ctx, addr, code, ext, body)
	if err != nil {
		return nil, err
	}
	if ResponseCode(resp.Code) != CodeSuccess {
		return nil, c.answerError(addr, resp)
	}
	return resp, nil
}

// nameServerSlowFor is how long a NameServer that did not answer in time is
// asked only after the others.
const nameServerSlowFor = 30 * time.Second

// callNameServer sends a request to the NameServers and returns the first
// answer (even an error code: that NameServer works) with its address. It
// starts with the one that answered last, slow ones last, and asks the next
// one as well when one has not answered within its share of the time, so a
// NameServer that accepts connections but never answers costs a fraction of
// one timeout, not all of it. The whole walk stays within one timeout.
func (c *Client) callNameServer(ctx context.Context, code RequestCode, ext map[string]string) (*command, error) {
	resp, _, err := c.askNameServers(ctx, code, ext)
	return resp, err
}

type nameServerAnswer struct {
	idx  int
	resp *command
	err  error
}

func (c *Client) askNameServers(ctx context.Context, code RequestCode, ext map[string]string) (*command, string, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel() // ends the calls still in flight once one answered
	order := c.nameServerOrder()
	answers := make(chan nameServerAnswer, len(order))
	asked := 0
	ask := func() {
		idx := order[asked]
		asked++
		go func() {
			resp, err := c.invoke(ctx, c.nameServers[idx], code, ext, nil)
			answers <- nameServerAnswer{idx, resp, err}
		}()
	}
	// Each NameServer not yet asked gets an equal share of what is left.
	share := func() time.Duration {
		deadline, _ := ctx.Deadline()
		return time.Until(deadline) / time.Duration(len(order)-asked+1)
	}
	ask()
	next := time.NewTimer(share())
	defer next.Stop()
	var errs []error
	for waiting := 1; waiting > 0; {
		select {
		case a := <-answers:
			waiting--
			if a.err != nil {
				c.markNameServer(a.idx, true)
				errs = append(errs, a.err)
				if asked < len(order) && ctx.Err() == nil {
					ask()
					waiting++
					next.Reset(share())
				}
				continue
			}
			c.markNameServer(a.idx, false)
			c.nsNext.Store(uint32(a.idx))
			for _, idx := range order[:asked] {
				if idx != a.idx {
					c.markNameServer(idx, true) // failed, or overtaken while silent
				}
			}
			addr := c.nameServers[a.idx]
			if ResponseCode(a.resp.Code) != CodeSuccess {
				return nil, addr, c.answerError(addr, a.resp)
			}
			return a.resp, addr, nil
		case <-next.C:
			if asked < len(order) {
				ask()
				waiting++
				next.Reset(share())
			}
		}
	}
	// Move on, so the next call starts with another NameServer.
	c.nsNext.Store(uint32((order[0] + 1) % len(c.nameServers)))
	return nil, "", fmt.Errorf("no NameServer answered (%s): %w", strings.Join(c.nameServers, ";"), errors.Join(errs...))
}

// nameServerOrder lists NameServer indexes in the order to ask them: from the
// one that answered last, those marked slow after the others.
func (c *Client) nameServerOrder() []int {
	n := len(c.nameServers)
	first := int(c.nsNext.Load()) % n
	now := time.Now()
	c.nsMu.Lock()
	defer c.nsMu.Unlock()
	order := make([]int, 0, n)
	var slow []int
	for i := range n {
		idx := (first + i) % n
		if now.Before(c.nsSlowUntil[idx]) {
			slow = append(slow, idx)
		} else {
			order = append(order, idx)
		}
	}
	return append(order, slow...)
}

// markNameServer remembers whether a NameServer was slow (no answer in time,
// or no connection) or answered.
func (c *Client) markNameServer(idx int, slow bool) {
	c.nsMu.Lock()
	defer c.nsMu.Unlock()
	if slow {
		if time.Now().After(c.nsSlowUntil[idx]) {
			c.log.Warn("rocketmq: NameServer did not answer in time; asking the others first", "addr", c.nameServers[idx], "for", nameServerSlowFor)
		}
		c.nsSlowUntil[idx] = time.Now().Add(nameServerSlowFor)
	} else {
		c.nsSlowUntil[idx] = time.Time{}
	}
}

// SlowNameServers lists the NameServers currently asked last because they did
// not answer in time.
func (c *Client) SlowNameServers() []string {
	now := time.Now()
	c.nsMu.Lock()
	defer c.nsMu.Unlock()
	var slow []string
	for i, until := range c.nsSlowUntil {
		if now.Before(until) {
			slow = append(slow, c.nameServers[i])
		}
	}
	return slow
}

// BrokerVersion is the RocketMQ version a broker runs.
type BrokerVersion struct {
	// Ordinal is the MQVersion.Version ordinal (409 = V4_9_8, 479 = V5_3_3).
	Ordinal int
	// Name is the version's name, e.g. "V5_3_3", when the broker told it.
	Name string
}

// Ordinals of versions that change broker behaviour.
const (
	VersionOrdinal4_9_4 = 401
	VersionOrdinal4_9_8 = 409
	VersionOrdinal5_0_0 = 413
	VersionOrdinal5_1_0 = 433
	VersionOrdinal5_2_0 = 453
	VersionOrdinal5_3_3 = 479
	VersionOrdinal5_4_0 = 493
	VersionOrdinal5_5_0 = 513
)

// Is5 reports whether the broker runs RocketMQ 5.x or later.
func (v BrokerVersion) Is5() bool { return v.Ordinal >= VersionOrdinal5_0_0 }

// AtLeast reports whether the broker runs at least the version with this
// ordinal.
func (v BrokerVersion) AtLeast(ordinal int) bool { return v.Ordinal >= ordinal }

// knownOrdinals names the MQVersion ordinals of releases an admin meets,
// for when a broker told only the ordinal (the version field of every
// answer) and not the name.
var knownOrdinals = map[int]string{
	317: "V4_5_2", 399: "V4_9_3", 401: "V4_9_4", 407: "V4_9_7", 409: "V4_9_8",
	413: "V5_0_0", 433: "V5_1_0", 453: "V5_2_0", 475: "V5_3_1", 479: "V5_3_3",
	// Read from MQVersion in the 5.5.1 jars: 5.3.4, 5.4.0 and the 5.5 line.
	481: "V5_3_4", 493: "V5_4_0", 513: "V5_5_0", 515: "V5_5_1",
}

// Named reports whether the version's release name is known (told by the broker, or
// an ordinal the console knows), so String gives a release rather than an ordinal.
func (v BrokerVersion) Named() bool { return v.name() != "" }

func (v BrokerVersion) name() string {
	if v.Name != "" {
		return v.Name
	}
	return knownOrdinals[v.Ordinal]
}

// String returns e.g. "5.3.3", or the ordinal when the name is unknown.
func (v BrokerVersion) String() string {
	if name := v.name(); name != "" {
		return strings.ReplaceAll(strings.TrimPrefix(name, "V"), "_", ".")
	}
	return fmt.Sprintf("ordinal %d", v.Ordinal)
}

func (c *Client) noteVersion(addr string, ordinal int) {
	if ordinal <= 0 {
		return
	}
	c.versionMu.Lock()
	defer c.versionMu.Unlock()
	v := c.versions[addr]
	if v.Ordinal != ordinal {
		v = BrokerVersion{Ordinal: ordinal} // the broker was upgraded: forget the old name
	}
	c.versions[addr] = v
}

// BrokerVersion returns the version of the broker at addr. It is learned from
// the version field of every answer and from GET_BROKER_RUNTIME_INFO, and
// cached; at most one runtime-info call is made per broker (and per
// upgrade).
func (c *Client) BrokerVersion(ctx context.Context, addr string) (BrokerVersion, error) {
	if v, ok := c.cachedVersion(addr); ok && v.Name != "" {
		return v, nil
	}
	info, err := c.BrokerRuntimeInfo(ctx, addr)
	if err != nil {
		// Even a failed answer carries the broker's version ordinal (a
		// broker answers runtime info with SYSTEM_ERROR for its first
		// seconds, before its statistics have a sample).
		if v, ok := c.cachedVersion(addr); ok {
			return v, nil
		}
		return BrokerVersion{}, fmt.Errorf("version of broker %s: %w", addr, err)
	}
	return info.Version(), nil
}

func (c *Client) cachedVersion(addr string) (BrokerVersion, bool) {
	c.versionMu.Lock()
	defer c.versionMu.Unlock()
	v, ok := c.versions[addr]
	return v, ok
}

func (c *Client) setVersion(addr string, v BrokerVersion) {
	c.versionMu.Lock()
	c.versions[addr] = v
	c.versionMu.Unlock()
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
