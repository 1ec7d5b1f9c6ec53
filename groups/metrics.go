package groups

import (
	"context"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// LagCollector refreshes the group list in the background, at a modest interval and
// with the list's bounded concurrency, and exposes every application group's per-queue
// lag to Prometheus. A scrape never calls a broker: it reads the last refresh, so
// scraping often costs the cluster nothing more.
type LagCollector struct {
	svc      *Service
	interval time.Duration

	// then runs after each successful refresh, outside the lock (the lag history, alerts).
	then []func(context.Context, *List)
	// PerQueue exports the per-queue series (on by default); off, a group costs five
	// series whatever its queues. Groups, when set, keeps only the groups it matches.
	// Set both before the collector is registered.
	PerQueue bool
	Groups   *regexp.Regexp

	mu       sync.Mutex
	last     *List
	failures float64
	duration float64

	queueLag, groupLag, groupClients, unknown, groupTPS *prometheus.Desc
	queueLagTime, groupLagTime                          *prometheus.Desc
	collected, took, failed                             *prometheus.Desc
}

// NewLagCollector returns a collector refreshing every interval (Run starts it).
func NewLagCollector(svc *Service, interval time.Duration) *LagCollector {
	return &LagCollector{
		svc: svc, interval: interval, PerQueue: true,
		queueLag: prometheus.NewDesc("rmqconsole_consumer_queue_lag",
			"Messages stored in a queue but not yet consumed by the group (broker offset - consumer offset). Queues whose lag is unknown are left out.",
			[]string{"group", "topic", "broker", "queue_id"}, nil),
		groupLag: prometheus.NewDesc("rmqconsole_consumer_group_lag",
			"Sum of the known per-queue lags of a consumer group, its retry topic included: a lower bound while rmqconsole_consumer_group_unknown_lag_queues is above 0. Absent while no queue's lag is known.", []string{"group"}, nil),
		groupClients: prometheus.NewDesc("rmqconsole_consumer_group_clients",
			"Online clients of a consumer group.", []string{"group"}, nil),
		unknown: prometheus.NewDesc("rmqconsole_consumer_group_unknown_lag_queues",
			"Queues of a consumer group whose lag could not be known (no committed offset, broadcasting, a broker that did not answer or is gone from the cluster: its queues as it last listed them).", []string{"group"}, nil),
		queueLagTime: prometheus.NewDesc("rmqconsole_consumer_queue_lag_time_seconds",
			"How old the oldest message the group has not consumed in a queue is (now - store time of the message at the committed offset); 0 when caught up. Queues whose time behind is unknown are left out.",
			[]string{"group", "topic", "broker", "queue_id"}, nil),
		groupLagTime: prometheus.NewDesc("rmqconsole_consumer_group_lag_time_seconds",
			"The largest known time behind of a consumer group's queues (its retry topic included); absent while none is known.", []string{"group"}, nil),
		groupTPS: prometheus.NewDesc("rmqconsole_consumer_group_consume_tps",
			"Consume rate of a consumer group as the brokers count it.", []string{"group"}, nil),
		collected: prometheus.NewDesc("rmqconsole_consumer_lag_collected_timestamp_seconds",
			"When the lag metrics were last read from the brokers.", nil, nil),
		took: prometheus.NewDesc("rmqconsole_consumer_lag_collect_duration_seconds",
			"How long the last read of every group's lag took.", nil, nil),
		failed: prometheus.NewDesc("rmqconsole_consumer_lag_collect_failures_total",
			"Background reads of the group lags that failed altogether.", nil, nil),
	}
}

// Then adds work to do with each refreshed list, in order (call it before Run).
func (c *LagCollector) Then(f func(context.Context, *List)) { c.then = append(c.then, f) }

// Run refreshes until ctx ends: once at start, then every interval.
func (c *LagCollector) Run(ctx context.Context) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		c.refresh(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (c *LagCollector) refresh(ctx context.Context) {
	start := time.Now()
	l, err := c.svc.List(ctx, true)
	c.mu.Lock()
	c.duration = time.Since(start).Seconds()
	if err != nil {
		if ctx.Err() == nil {
			c.failures++
		}
		c.mu.Unlock()
		return
	}
	c.last = l
	c.mu.Unlock()
	for _, f := range c.then {
		f(ctx, l)
	}
}

// Describe implements prometheus.Collector.
func (c *LagCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.queueLag, c.groupLag, c.groupClients, c.unknown, c.groupTPS, c.queueLagTime, c.groupLagTime, c.collected, c.took, c.failed} {
		ch <- d
	}
}

// Collect implements prometheus.Collector from the last refresh.
func (c *LagCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	l, failures, took := c.last, c.failures, c.duration
	c.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(c.failed, prometheus.CounterValue, failures)
	if l == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.collected, prometheus.GaugeValue, float64(l.CheckedAt.UnixMilli())/1000)
	ch <- prometheus.MustNewConstMetric(c.took, prometheus.GaugeValue, took)
	for _, g := range l.Groups {
		if g.System || (c.Groups != nil && !c.Groups.MatchString(g.Group)) {
			continue
		}
		unknown := 0
		for _, q := range g.Queues {
			if q.Lag == nil {
				unknown++
				continue
			}
			if !c.PerQueue {
				continue
			}
			ch <- prometheus.MustNewConstMetric(c.queueLag, prometheus.GaugeValue, float64(*q.Lag),
				g.Group, q.Topic, q.BrokerName, strconv.Itoa(q.QueueID))
			if q.LagTimeMs != nil {
				ch <- prometheus.MustNewConstMetric(c.queueLagTime, prometheus.GaugeValue, float64(*q.LagTimeMs)/1000,
					g.Group, q.Topic, q.BrokerName, strconv.Itoa(q.QueueID))
			}
		}
		if g.MaxLagTimeMs != nil {
			ch <- prometheus.MustNewConstMetric(c.groupLagTime, prometheus.GaugeValue, float64(*g.MaxLagTimeMs)/1000, g.Group)
		}
		if g.TotalLag != nil {
			ch <- prometheus.MustNewConstMetric(c.groupLag, prometheus.GaugeValue, float64(*g.TotalLag), g.Group)
		}
		ch <- prometheus.MustNewConstMetric(c.groupClients, prometheus.GaugeValue, float64(g.Clients), g.Group)
		ch <- prometheus.MustNewConstMetric(c.unknown, prometheus.GaugeValue, float64(unknown), g.Group)
		ch <- prometheus.MustNewConstMetric(c.groupTPS, prometheus.GaugeValue, g.ConsumeTPS, g.Group)
	}
}
