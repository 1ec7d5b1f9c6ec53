package alerts

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// Observation is one group's lag at one read of the collector, or, with Target
// TargetBroker or TargetNameServer, one broker's or NameServer's findings (Group then
// names it). Every listed broker and configured NameServer is observed at each read,
// with or without findings: one not observed keeps its rules' states.
type Observation struct {
	Target    string // "" is TargetGroup
	Group     string
	Lag       *int64
	LagTimeMs *int64
	// Findings are the kinds the diagnosis found for the group at this read.
	Findings []string
	// Unread: the diagnosis could not read the subject at this read (a broker's runtime
	// or replication, a NameServer's cluster info), so its findings are unknown and a
	// rule on them keeps its state.
	Unread bool
}

// States of a rule for one group.
const (
	StatePending  = "pending"  // above the threshold, not yet for long enough
	StateFiring   = "firing"   // above it for at least the rule's duration: notified
	StateResolved = "resolved" // back at or below it
)

type stateKey struct {
	rule  int64
	group string
}

// Evaluate applies every rule to one read of the groups at at: a group above a rule's
// threshold is pending from the first read that saw it, firing once it has stayed above
// for the rule's duration, and resolved at the first read at or below it. Firing and
// resolving write a delivery, in the same transaction as the state, and wake the sender.
// A group whose value is unknown at this read keeps its state.
func (s *Service) Evaluate(ctx context.Context, at time.Time, obs []Observation) error {
	rules, err := s.st.AlertRules(ctx)
	if err != nil || len(rules) == 0 {
		return err
	}
	stored, err := s.st.AlertStates(ctx)
	if err != nil {
		return err
	}
	states := make(map[stateKey]store.AlertState, len(stored))
	for _, st := range stored {
		states[stateKey{st.RuleID, st.Group}] = st
	}
	var changed []store.AlertState
	var deliveries []store.AlertDelivery
	matched := make(map[int64]int, len(rules))
	for _, r := range rules {
		for _, o := range obs {
			if !covers(r, o) {
				continue
			}
			matched[r.ID]++
			v := o.Lag
			switch {
			case r.Metric == MetricLagTime:
				v = o.LagTimeMs
			case IsFinding(r.Metric) && o.Unread:
				v = nil
			case IsFinding(r.Metric):
				var found int64
				if slices.Contains(o.Findings, r.Metric) {
					found = 1
				}
				v = &found
			}
			if v == nil {
				continue
			}
			st, had := states[stateKey{r.ID, o.Group}]
			above := *v > r.Threshold
			next := st
			switch {
			case above && (!had || st.State == StateResolved):
				next = store.AlertState{RuleID: r.ID, Group: o.Group, State: StatePending, Since: at, Value: v}
			case above:
				next.Value = v
			case had && st.State != StateResolved:
				next.State, next.ResolvedAt, next.Value = StateResolved, at, v
				if st.State == StateFiring {
					deliveries = append(deliveries, s.delivery(r, next, "resolved", at))
				}
			default:
				continue
			}
			if next.State == StatePending && at.Sub(next.Since) >= r.For {
				next.State, next.FiredAt = StateFiring, at
				deliveries = append(deliveries, s.delivery(r, next, "firing", at))
			}
			if next != st {
				changed = append(changed, next)
			}
		}
	}
	s.mu.Lock()
	s.matched = matched
	s.mu.Unlock()
	if err := s.st.SaveAlertStates(ctx, changed, deliveries); err != nil {
		return err
	}
	if len(deliveries) > 0 {
		for _, d := range deliveries {
			s.opts.Log.Info("alert "+d.Event, "rule", d.RuleName, "group", d.Group, "delivery", d.ID)
		}
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// covers reports whether rule r applies to o: the same kind of subject, and, for a group
// or a broker, one its pattern matches.
func covers(r store.AlertRule, o Observation) bool {
	target := cmp.Or(o.Target, TargetGroup)
	if Target(r.Metric) != target {
		return false
	}
	return target == TargetNameServer || Matches(r.GroupPattern, o.Group)
}

func (s *Service) matchedCount(rule int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.matched == nil {
		return -1 // not evaluated yet
	}
	return s.matched[rule]
}

// delivery builds the notification of a state change in the rule's format.
func (s *Service) delivery(r store.AlertRule, st store.AlertState, event string, at time.Time) store.AlertDelivery {
	return store.AlertDelivery{RuleID: r.ID, RuleName: r.Name, Group: st.Group, Event: event, CreatedAt: at,
		URL: r.WebhookURL, Format: r.Format, Body: string(BodyIn(i18n.Match(s.opts.Lang), r, st, event, at, s.opts.NameServers, s.opts.ClusterName))}
}

// Body is the webhook body of a notification in English: a generic JSON document (its
// "cluster" is the NameServer list), or the text message of a Slack or DingTalk incoming
// webhook. With clusterName (a console of several clusters) each says which cluster the
// group is on.
func Body(r store.AlertRule, st store.AlertState, event string, at time.Time, nameServers, clusterName string) []byte {
	return BodyIn(i18n.Match("en"), r, st, event, at, nameServers, clusterName)
}

// BodyIn is Body with its sentence in l's language; the JSON document's fields stay
// the same in every language.
func BodyIn(l *i18n.Localizer, r store.AlertRule, st store.AlertState, event string, at time.Time, nameServers, clusterName string) []byte {
	summary := SummaryIn(l, r, st, event)
	if clusterName != "" {
		summary = "[" + clusterName + "] " + summary
	}
	var b []byte
	switch r.Format {
	case FormatSlack:
		b, _ = json.Marshal(map[string]string{"text": summary})
	case FormatDingTalk:
		b, _ = json.Marshal(map[string]any{"msgtype": "text", "text": map[string]string{"content": summary}})
	default:
		var value any
		if st.Value != nil {
			value = *st.Value
		}
		m := map[string]any{
			"event": event, "target": Target(r.Metric), Target(r.Metric): st.Group, "value": value, "since": st.Since.UTC(), "at": at.UTC(), "cluster": nameServers,
			"rule": map[string]any{"id": r.ID, "name": r.Name, ruleTargetKey(r): r.GroupPattern, "metric": r.Metric,
				"threshold": r.Threshold, "forSeconds": r.For.Seconds()},
			"summary": summary,
		}
		if clusterName != "" {
			m["clusterName"] = clusterName
		}
		b, _ = json.Marshal(m)
	}
	return b
}

// ruleTargetKey is the rule's pattern's key in a JSON body: "group" (as it always was)
// or "broker".
func ruleTargetKey(r store.AlertRule) string {
	if Target(r.Metric) == TargetBroker {
		return "broker"
	}
	return "group"
}

// Summary is the notification in one English sentence.
func Summary(r store.AlertRule, st store.AlertState, event string) string {
	return SummaryIn(i18n.Match("en"), r, st, event)
}

// SummaryIn is the notification in one sentence of l's language.
func SummaryIn(l *i18n.Localizer, r store.AlertRule, st store.AlertState, event string) string {
	if IsFinding(r.Metric) {
		kv := []any{"Rule", RuleName(l, r), "Group", st.Group, "What", l.T("alerts.metric." + r.Metric),
			"Since", st.Since.UTC().Format("2006-01-02 15:04:05")}
		// The sentence says what the subject is: a consumer group, a broker, a NameServer.
		suffix := ""
		if t := Target(r.Metric); t != TargetGroup {
			suffix = "." + t
		}
		if event == "resolved" {
			return l.T("alerts.notify.resolved.finding"+suffix, kv...)
		}
		return l.T("alerts.notify.firing.finding"+suffix, append(kv, "For", forText(l, r.For))...)
	}
	metric := "lag"
	if r.Metric == MetricLagTime {
		metric = "lagTime"
	}
	value := l.T("alerts.notify.unknown")
	if st.Value != nil {
		value = l.T("alerts.notify.value."+metric, "Value", fmt.Sprint(*st.Value))
	}
	kv := []any{"Rule", RuleName(l, r), "Group", st.Group, "What", l.T("alerts.notify.what." + metric), "Value", value,
		"Threshold", l.T("alerts.notify.value."+metric, "Value", fmt.Sprint(r.Threshold)),
		"Since", st.Since.UTC().Format("2006-01-02 15:04:05")}
	if event == "resolved" {
		return l.T("alerts.notify.resolved", kv...)
	}
	return l.T("alerts.notify.firing", append(kv, "For", forText(l, r.For))...)
}

// forText writes a rule's duration as Go does in English ("2m0s", as notifications
// always said) and in words in Chinese.
func forText(l *i18n.Localizer, d time.Duration) string {
	if !l.IsChinese() {
		return d.String()
	}
	var parts []string
	for _, u := range []struct {
		id   string
		unit time.Duration
	}{{"format.span.h", time.Hour}, {"format.span.m", time.Minute}, {"format.span.s", time.Second}} {
		if n := d / u.unit; n > 0 {
			parts = append(parts, l.T(u.id, "N", int64(n)))
			d -= n * u.unit
		}
	}
	if len(parts) == 0 {
		return l.T("format.span.s", "N", 0)
	}
	return strings.Join(parts, " ")
}
