package server

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"rmqconsole/cluster"
	"rmqconsole/groups"
	"rmqconsole/handlers"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
)

// consoleMetrics is the console's own Prometheus registry (not the global one, so tests
// and other libraries cannot pollute it): HTTP requests, broker calls, the live group
// view, the background lag collector, and the Go runtime.
type consoleMetrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newConsoleMetrics() *consoleMetrics {
	m := &consoleMetrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rmqconsole_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rmqconsole_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by method and route pattern (websockets left out).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route"}),
	}
	m.reg.MustRegister(m.requests, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// metrics returns the App's registry, creating it on first use.
func (a *App) metrics() *consoleMetrics {
	if a.metricsReg == nil {
		a.metricsReg = newConsoleMetrics()
	}
	return a.metricsReg
}

// httpMetrics counts and times every request by its route pattern (not its path, so
// group names do not explode the label set).
func (a *App) httpMetrics() gin.HandlerFunc {
	m := a.metrics()
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		m.requests.WithLabelValues(c.Request.Method, route, strconv.Itoa(c.Writer.Status())).Inc()
		if !strings.HasPrefix(route, "/ws/") {
			m.duration.WithLabelValues(c.Request.Method, route).Observe(time.Since(start).Seconds())
		}
	}
}

// metricsHandler serves /metrics.
func (a *App) metricsHandler() http.Handler {
	return promhttp.HandlerFor(a.metrics().reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{a}})
}

type slogPrinter struct{ a *App }

func (p slogPrinter) Println(v ...any) { p.a.log.Warn("metrics", "err", v) }

// brokerCalls exposes the RocketMQ client's request counts, by request code.
type brokerCalls struct{ c *rocketmq.Client }

var brokerCallsDesc = prometheus.NewDesc("rmqconsole_broker_requests_total",
	"Requests the console sent to NameServers and brokers, by RocketMQ request code.", []string{"code"}, nil)

var brokerCallTimeDesc = prometheus.NewDesc("rmqconsole_broker_request_duration_seconds",
	"Time from sending a request to a NameServer or broker to its answer, or to giving up on it, by RocketMQ request code.", []string{"code"}, nil)

func (b brokerCalls) Describe(ch chan<- *prometheus.Desc) {
	ch <- brokerCallsDesc
	ch <- brokerCallTimeDesc
}

func (b brokerCalls) Collect(ch chan<- prometheus.Metric) {
	for code, n := range b.c.Calls() {
		ch <- prometheus.MustNewConstMetric(brokerCallsDesc, prometheus.CounterValue, float64(n), code.String())
	}
	for code, t := range b.c.CallTimes() {
		buckets := make(map[float64]uint64, len(rocketmq.CallTimeBuckets))
		for i, le := range rocketmq.CallTimeBuckets {
			buckets[le] = t.Buckets[i]
		}
		ch <- prometheus.MustNewConstHistogram(brokerCallTimeDesc, t.Count, t.Sum.Seconds(), buckets, code.String())
	}
}

// heavyMetrics exposes the cap on heavy queries (handlers.HeavyGate): how many run, the
// cap, and how many were refused for it.
type heavyMetrics struct{ g *handlers.HeavyGate }

var (
	heavyRunningDesc  = prometheus.NewDesc("rmqconsole_heavy_queries_running", "Time-range message searches and exports running now.", nil, nil)
	heavyLimitDesc    = prometheus.NewDesc("rmqconsole_heavy_queries_limit", "How many time-range searches may run at once (--max-heavy-queries).", nil, nil)
	heavyRejectedDesc = prometheus.NewDesc("rmqconsole_heavy_queries_rejected_total", "Time-range searches and exports answered 503 because the cap was reached.", nil, nil)
)

func (m heavyMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- heavyRunningDesc
	ch <- heavyLimitDesc
	ch <- heavyRejectedDesc
}

func (m heavyMetrics) Collect(ch chan<- prometheus.Metric) {
	st := m.g.Stats()
	ch <- prometheus.MustNewConstMetric(heavyRunningDesc, prometheus.GaugeValue, float64(st.Running))
	ch <- prometheus.MustNewConstMetric(heavyLimitDesc, prometheus.GaugeValue, float64(st.Limit))
	ch <- prometheus.MustNewConstMetric(heavyRejectedDesc, prometheus.CounterValue, float64(st.Rejected))
}

// liveMetrics exposes what the live group view is doing.
type liveMetrics struct{ l *groups.Live }

var (
	liveWatchersDesc = prometheus.NewDesc("rmqconsole_live_group_watchers", "Consumer groups being watched live.", nil, nil)
	liveViewersDesc  = prometheus.NewDesc("rmqconsole_live_group_viewers", "Open websocket viewers of live group pages.", nil, nil)
	liveTicksDesc    = prometheus.NewDesc("rmqconsole_live_group_polls_total", "Polls made by live group watchers.", nil, nil)
	liveDroppedDesc  = prometheus.NewDesc("rmqconsole_live_group_dropped_viewers_total", "Viewers dropped for falling behind.", nil, nil)
)

func (m liveMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- liveWatchersDesc
	ch <- liveViewersDesc
	ch <- liveTicksDesc
	ch <- liveDroppedDesc
}

func (m liveMetrics) Collect(ch chan<- prometheus.Metric) {
	st := m.l.Stats()
	ch <- prometheus.MustNewConstMetric(liveWatchersDesc, prometheus.GaugeValue, float64(st.Watchers))
	ch <- prometheus.MustNewConstMetric(liveViewersDesc, prometheus.GaugeValue, float64(st.Viewers))
	ch <- prometheus.MustNewConstMetric(liveTicksDesc, prometheus.CounterValue, float64(st.Ticks))
	ch <- prometheus.MustNewConstMetric(liveDroppedDesc, prometheus.CounterValue, float64(st.Dropped))
}

// tailMetrics exposes the live tails of topics: how many pull, how many viewers watch
// them, and the rows sent to viewers and those only counted (past about 50 a second per
// viewer, or paused).
type tailMetrics struct{ h *lookup.TailHub }

var (
	tailsDesc       = prometheus.NewDesc("rmqconsole_live_tails", "Live tails of topics pulling now (one per topic and filter, however many viewers).", nil, nil)
	tailViewersDesc = prometheus.NewDesc("rmqconsole_live_tail_viewers", "Open websocket viewers of live tails.", nil, nil)
	tailSentDesc    = prometheus.NewDesc("rmqconsole_live_tail_rows_sent_total", "Messages sent to live tail viewers as rows.", nil, nil)
	tailSkippedDesc = prometheus.NewDesc("rmqconsole_live_tail_rows_skipped_total", "Messages live tail viewers were told of only in a count: past the rate a person can read, past a slow viewer's buffer, or paused.", nil, nil)
)

func (m tailMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- tailsDesc
	ch <- tailViewersDesc
	ch <- tailSentDesc
	ch <- tailSkippedDesc
}

func (m tailMetrics) Collect(ch chan<- prometheus.Metric) {
	st := m.h.Stats()
	ch <- prometheus.MustNewConstMetric(tailsDesc, prometheus.GaugeValue, float64(st.Tails))
	ch <- prometheus.MustNewConstMetric(tailViewersDesc, prometheus.GaugeValue, float64(st.Viewers))
	ch <- prometheus.MustNewConstMetric(tailSentDesc, prometheus.CounterValue, float64(st.Sent))
	ch <- prometheus.MustNewConstMetric(tailSkippedDesc, prometheus.CounterValue, float64(st.Skipped))
}

// brokerHealth exposes each broker process as the console's own requests found it, and
// whether the NameServer still lists it: a frozen broker shows as not up, a killed one as
// not registered (the console remembers it for a day), and neither vanishes. A scrape
// calls no one; the background lag collector asks every master each interval.
type brokerHealth struct{ c *cluster.Cluster }

var (
	brokerUpDesc = prometheus.NewDesc("rmqconsole_broker_up",
		"1 when the broker process answered the console's last request to it (an error code is an answer), 0 when it did not (no connection, no answer in time) or it is gone from the NameServer's cluster info. Absent for a process not asked yet.",
		[]string{"broker", "addr"}, nil)
	brokerRegisteredDesc = prometheus.NewDesc("rmqconsole_broker_registered",
		"1 when the NameServer's cluster info lists the broker process, 0 when it listed it earlier and does not any more (stopped, killed, or cut off for over two minutes).",
		[]string{"broker", "addr"}, nil)
	brokerLastSuccessDesc = prometheus.NewDesc("rmqconsole_broker_last_success_timestamp_seconds",
		"When the broker process last answered a request of the console. Absent until it has.",
		[]string{"broker", "addr"}, nil)
	brokerFailuresDesc = prometheus.NewDesc("rmqconsole_broker_failures_total",
		"Requests of the console the broker process did not answer (no connection, no answer in time).",
		[]string{"broker", "addr"}, nil)
)

func (b brokerHealth) Describe(ch chan<- *prometheus.Desc) {
	ch <- brokerUpDesc
	ch <- brokerRegisteredDesc
	ch <- brokerLastSuccessDesc
	ch <- brokerFailuresDesc
}

func (b brokerHealth) Collect(ch chan<- prometheus.Metric) {
	for _, p := range b.c.Processes() {
		ch <- prometheus.MustNewConstMetric(brokerRegisteredDesc, prometheus.GaugeValue, boolValue(p.Registered), p.Broker, p.Addr)
		ch <- prometheus.MustNewConstMetric(brokerFailuresDesc, prometheus.CounterValue, float64(p.Unanswered), p.Broker, p.Addr)
		if p.Known {
			ch <- prometheus.MustNewConstMetric(brokerUpDesc, prometheus.GaugeValue, boolValue(p.Up), p.Broker, p.Addr)
		}
		if !p.LastAnswer.IsZero() {
			ch <- prometheus.MustNewConstMetric(brokerLastSuccessDesc, prometheus.GaugeValue, float64(p.LastAnswer.UnixMilli())/1000, p.Broker, p.Addr)
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
