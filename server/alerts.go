package server

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rmqconsole/alerts"
	"rmqconsole/diagnosis"
	"rmqconsole/groups"
)

// alertService starts the alert sender (which also sends what a previous run left
// pending) and returns the service; rules are evaluated at each read of the collector.
func (a *clusterApp) alertService() *alerts.Service {
	opts := alerts.Options{Log: a.log.With("component", "alerts"), NameServers: a.nameServers(), Retry: a.cfg.AlertRetry,
		Lang: a.cfg.AlertLang}
	if a.several() {
		opts.ClusterName = a.cc.Name
	}
	svc := alerts.NewService(a.store, opts)
	if a.cc.Default {
		// One console sends, however many share the database, and one sender sends
		// every cluster's notifications: under the console-wide lease.
		a.App.leaderOnly(svc.Run)
	}
	return svc
}

// evaluateAlerts applies the rules to one read of every group, and of every broker the
// diagnosis listed and every configured NameServer: each observed with its findings,
// none when it has none, or as unread when the diagnosis could not read it, so that a
// rule on it keeps its state instead of resolving.
func (a *clusterApp) evaluateAlerts(ctx context.Context, svc *alerts.Service, l *groups.List, diag *diagnosis.Engine) {
	found := map[[2]string][]string{} // target and subject → kinds found
	var others []alerts.Observation   // the brokers and NameServers
	if diag != nil {
		fs, _ := diag.Findings()
		for _, f := range fs {
			switch {
			case f.Group != "":
				found[[2]string{alerts.TargetGroup, f.Group}] = append(found[[2]string{alerts.TargetGroup, f.Group}], f.Kind)
			case f.Broker != "":
				found[[2]string{alerts.TargetBroker, f.Broker}] = append(found[[2]string{alerts.TargetBroker, f.Broker}], f.Kind)
			case f.NameServer != "":
				found[[2]string{alerts.TargetNameServer, f.NameServer}] = append(found[[2]string{alerts.TargetNameServer, f.NameServer}], f.Kind)
			}
		}
		unread := map[[2]string]bool{}
		for _, u := range diag.Unread() {
			switch {
			case u.Broker != "":
				unread[[2]string{alerts.TargetBroker, u.Broker}] = true
			case u.What == diagnosis.UnreadNameServer:
				unread[[2]string{alerts.TargetNameServer, u.Subject}] = true
			}
		}
		observe := func(target, subject string) {
			k := [2]string{target, subject}
			others = append(others, alerts.Observation{Target: target, Group: subject, Findings: found[k], Unread: unread[k]})
		}
		for _, b := range diag.Brokers() {
			observe(alerts.TargetBroker, b)
		}
		for _, ns := range a.rmq.NameServers() { // as the diagnosis names them
			observe(alerts.TargetNameServer, ns)
		}
	}
	obs := make([]alerts.Observation, 0, len(l.Groups)+len(others))
	for _, g := range l.Groups {
		if !g.System {
			obs = append(obs, alerts.Observation{Group: g.Group, Lag: g.TotalLag, LagTimeMs: g.MaxLagTimeMs, Findings: found[[2]string{alerts.TargetGroup, g.Group}]})
		}
	}
	obs = append(obs, others...)
	if err := svc.Evaluate(ctx, l.CheckedAt, obs); err != nil && ctx.Err() == nil {
		a.log.Error("evaluate alert rules", "err", err)
	}
}

// alertMetrics exposes where the alert rules stand: one series per rule and group that
// is pending or firing. It reads the database at each scrape (two small queries), so
// every console sharing a database says the same, whichever one evaluates the rules.
type alertMetrics struct {
	svc      *alerts.Service
	log      *slog.Logger
	failures atomic.Uint64
}

// alertReadTimeout bounds a scrape's read of the alert states.
const alertReadTimeout = 2 * time.Second

var (
	alertStateDesc = prometheus.NewDesc("rmqconsole_alert_state",
		"1 for each alert rule and consumer group pending (over the threshold, not yet for long enough) or firing (notified); resolved ones are left out.",
		[]string{"rule_id", "rule", "group", "state"}, nil)
	alertReadFailedDesc = prometheus.NewDesc("rmqconsole_alert_state_read_failures_total",
		"Scrapes that could not read the alert states from the database (they then show none).", nil, nil)
)

func (m *alertMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- alertStateDesc
	ch <- alertReadFailedDesc
}

func (m *alertMetrics) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), alertReadTimeout)
	defer cancel()
	rules, err := m.svc.Rules(ctx, 0)
	if err != nil {
		m.failures.Add(1)
		m.log.Warn("metrics: read alert states", "err", err)
	}
	ch <- prometheus.MustNewConstMetric(alertReadFailedDesc, prometheus.CounterValue, float64(m.failures.Load()))
	for _, r := range rules {
		for _, st := range r.States {
			if st.State == alerts.StatePending || st.State == alerts.StateFiring {
				ch <- prometheus.MustNewConstMetric(alertStateDesc, prometheus.GaugeValue, 1, strconv.FormatInt(r.ID, 10), r.Name, st.Group, st.State)
			}
		}
	}
}
