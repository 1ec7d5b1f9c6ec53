// Package rocketmq is a client of Apache RocketMQ's TCP "remoting" protocol
// for an admin console: it talks to NameServers and brokers (4.9.x and 5.x)
// directly, the way mqadmin and rocketmq-dashboard do.
//
// A Client keeps one multiplexed connection per address, matches answers to
// requests by opaque, applies a deadline to every call (the context's, else
// Config.Timeout), reconnects after a connection breaks, fails over between
// NameServers and caches topic routes for a few seconds. Each admin
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
)

// Config configures a Client.
type Config struct {
	// NameServer is the NameServer list, "host:port" entries separated by ";".
	NameServer string
	// Timeout bounds each call whose context has no deadline. Default 5s.
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

	calls sync.Map // RequestCode -> *atomic.Uint64

	routeMu sync.Mutex
	routes  map[string]cachedRoute

	versionMu sync.Mutex
	versions  map[string]BrokerVersion
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

var errGoAway = errors.New("server asked us to go away (GO_AWAY)")

// withTimeout gives ctx the default deadline when it has none.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.timeout)
}

// invoke sends one request to addr and returns the raw response, whatever
// its code. A connection that broke before answering is retried once on a
// new connection when it had been idle in the pool (the server may have
// closed it; the request most likely never arrived), and after GO_AWAY.
func (c *Client) invoke(ctx context.Context, addr string, code RequestCode, ext map[string]string, body []byte) (*command, error) {
	start := time.Now()
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
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
		if _, ok := ext[extUniqueKeyQuery]; ok {
			req.Version = versionUnsignedUniqueKey
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

// callNameServer sends a request to the NameServers, starting with the one
// that answered last and moving on to the next when one cannot be reached.
// An answer (even an error code) ends the search.
func (c *Client) callNameServer(ctx context.Context, code RequestCode, ext map[string]string) (*command, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	n := len(c.nameServers)
	first := int(c.nsNext.Load()) % n
	var errs []error
	for i := 0; i < n; i++ {
		idx := (first + i) % n
		addr := c.nameServers[idx]
		resp, err := c.invoke(ctx, addr, code, ext, nil)
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		c.nsNext.Store(uint32(idx))
		if ResponseCode(resp.Code) != CodeSuccess {
			return nil, c.answerError(addr, resp)
		}
		return resp, nil
	}
	// Move on, so the next call starts with another NameServer.
	c.nsNext.Store(uint32((first + 1) % n))
	return nil, fmt.Errorf("no NameServer answered (%s): %w", strings.Join(c.nameServers, ";"), errors.Join(errs...))
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
