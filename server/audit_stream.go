package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"rmqconsole/auditstream"
	"rmqconsole/handlers"
)

// readAudit records the reads of the cluster's message bodies in its audit log; a read
// the database did not take is counted on /metrics.
func (a *clusterApp) readAudit() *handlers.ReadAudit {
	unrecorded := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "rmqconsole_audit_reads_unrecorded_total",
		Help: "Reads of message bodies and exports answered but not recorded in the audit log: the database failed.",
	})
	a.registry.MustRegister(unrecorded)
	return &handlers.ReadAudit{Log: a.store.Audit(), NameServers: a.nameServers(), Unrecorded: func(error) { unrecorded.Inc() }}
}

// streamAudit streams the audit log to the configured topic and webhook, from the
// console that holds the console-wide lease (on SQLite, this one).
func (a *App) streamAudit() {
	cfg := a.cfg.AuditStream
	if cfg == nil {
		return
	}
	var sinks []auditstream.Sink
	if cfg.Topic != "" {
		ca := a.byName[cfg.Cluster]
		sinks = append(sinks, &auditstream.Topic{ClusterName: cfg.Cluster, Topic: cfg.Topic, Router: ca.cluster, Sender: ca.rmq})
	}
	if cfg.Webhook != "" {
		sinks = append(sinks, &auditstream.Webhook{URL: cfg.Webhook, Token: cfg.Token})
	}
	s := auditstream.New(auditstream.Options{Chain: a.store.Audit(), Cursors: a.store, Sinks: sinks, Poll: cfg.Poll,
		Retry: cfg.Retry, Log: a.log.With("component", "audit-stream")})
	a.metrics().reg.MustRegister(auditStreamMetrics{s})
	a.leaderOnly(s.Run)
}

// auditStreamMetrics says on /metrics how far each stream has got and how often it
// failed: a stream that stops moving is an alert.
type auditStreamMetrics struct{ s *auditstream.Streamer }

var (
	auditStreamDelivered = prometheus.NewDesc("rmqconsole_audit_stream_delivered_seq",
		"Chain position of the last audit entry the stream delivered (on the console that streams).", []string{"stream"}, nil)
	auditStreamFailures = prometheus.NewDesc("rmqconsole_audit_stream_failures_total",
		"Failed attempts of the audit stream: deliveries refused or unanswered, and the database's failures.", []string{"stream"}, nil)
	auditStreamFailing = prometheus.NewDesc("rmqconsole_audit_stream_failing",
		"1 while the audit stream's last attempt failed.", []string{"stream"}, nil)
)

func (m auditStreamMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- auditStreamDelivered
	ch <- auditStreamFailures
	ch <- auditStreamFailing
}

func (m auditStreamMetrics) Collect(ch chan<- prometheus.Metric) {
	for name, st := range m.s.Statuses() {
		ch <- prometheus.MustNewConstMetric(auditStreamDelivered, prometheus.GaugeValue, float64(st.Delivered), name)
		ch <- prometheus.MustNewConstMetric(auditStreamFailures, prometheus.CounterValue, float64(st.Failures), name)
		failing := 0.0
		if st.LastError != "" {
			failing = 1
		}
		ch <- prometheus.MustNewConstMetric(auditStreamFailing, prometheus.GaugeValue, failing, name)
	}
}
