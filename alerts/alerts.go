// Package alerts watches consumer groups' lag against operators' rules ("lag of
// order-* above 10 000 for 2 minutes") and notifies webhooks when a rule fires and when
// it resolves. Rules, their states and every delivery are kept in the console's
// database; rule changes are audit entries.
package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// Store is what the service keeps in the database; *store.Store implements it.
type Store interface {
	CreateAlertRule(ctx context.Context, r *store.AlertRule, audit *store.AuditEntry) error
	DeleteAlertRule(ctx context.Context, id int64, audit *store.AuditEntry) error
	AlertRule(ctx context.Context, id int64) (*store.AlertRule, error)
	AlertRules(ctx context.Context) ([]store.AlertRule, error)
	AlertStates(ctx context.Context) ([]store.AlertState, error)
	SaveAlertStates(ctx context.Context, states []store.AlertState, deliveries []store.AlertDelivery) error
	DueDeliveries(ctx context.Context, now time.Time, limit int) ([]store.AlertDelivery, error)
	UpdateDelivery(ctx context.Context, d store.AlertDelivery) error
	AlertDeliveries(ctx context.Context, ruleID int64, limit int) ([]store.AlertDelivery, error)
}

// Metrics a rule can watch.
const (
	MetricLag     = "lag"     // total lag, messages
	MetricLagTime = "lagTime" // time behind, milliseconds
	// Findings of the diagnosis (diagnosis.KindStuck, KindSlow, KindLost,
	// KindSubscriptions, KindChurn, KindRetryStorm, KindDeadLetters,
	// KindOrderlyBlocked): a rule on one
	// fires while the group has it; its threshold is 0. Client versions (an info
	// finding) are no alert.
	MetricStuck         = "consumerStuck"
	MetricSlow          = "slowConsumer"
	MetricLost          = "messagesLost"
	MetricSubscriptions = "subscriptionDiffers"
	MetricChurn         = "rebalanceChurn"
	MetricRetryStorm    = "retryStorm"
	MetricDeadLetters   = "deadLettersArriving"
	MetricOrderly       = "orderlyBlocked"
	// Findings about a broker process (diagnosis.KindDiskFull, KindFlowControl,
	// KindSlaveBehind): a rule on one targets a broker name or pattern, not a group.
	MetricDiskFull    = "brokerDiskFull"
	MetricFlowControl = "brokerFlowControl"
	MetricSlaveBehind = "slaveBehind"
	// MetricNameServers (diagnosis.KindNameServers) is about the configured NameServers:
	// a rule on it has no target and fires for each NameServer that disagrees.
	MetricNameServers = "nameServersDisagree"
)

// findingMetrics are the metrics that are findings of the diagnosis.
var findingMetrics = []string{MetricStuck, MetricSlow, MetricLost, MetricSubscriptions, MetricChurn, MetricRetryStorm, MetricDeadLetters, MetricOrderly,
	MetricDiskFull, MetricFlowControl, MetricSlaveBehind, MetricNameServers}

// Metrics are every metric a rule can watch, in the order forms and the API list them:
// the group's figures, its findings, then the brokers' and the NameServers'.
var Metrics = append([]string{MetricLag, MetricLagTime}, findingMetrics...)

// What a rule targets: the subjects its states are kept for.
const (
	TargetGroup      = "group"      // consumer groups, by name or pattern
	TargetBroker     = "broker"     // broker names, by name or pattern
	TargetNameServer = "nameServer" // every configured NameServer; the rule names none
)

// Target is what a rule on metric targets.
func Target(metric string) string {
	switch metric {
	case MetricDiskFull, MetricFlowControl, MetricSlaveBehind:
		return TargetBroker
	case MetricNameServers:
		return TargetNameServer
	}
	return TargetGroup
}

// IsFinding reports whether metric is a finding of the diagnosis rather than a number.
func IsFinding(metric string) bool { return slices.Contains(findingMetrics, metric) }

// Webhook body formats.
const (
	FormatJSON     = "json"
	FormatSlack    = "slack"
	FormatDingTalk = "dingtalk"
)

// RuleInput is a rule as an operator asks for it.
type RuleInput struct {
	Name string `json:"name"`
	// Group is a group name or a pattern with * and ? (order-*), for a rule on a group's
	// lag or finding; Broker a broker name or pattern, for a rule on a broker's finding
	// (Target). A rule on the NameServers has neither.
	Group      string `json:"group"`
	Broker     string `json:"broker,omitempty"`
	Metric     string `json:"metric"`
	Threshold  int64  `json:"threshold"`
	For        string `json:"for"` // Go duration, "2m"; "" is 0
	WebhookURL string `json:"webhookUrl"`
	Format     string `json:"format"`
	// threshold is the threshold as a form typed it (FormInput), parsed by Validate in
	// place of Threshold, so a threshold that is no number is told with the other
	// mistakes.
	threshold *string
}

// FormInput is a rule as the form posts it: every field as typed.
func FormInput(name, group, broker, metric, threshold, forDur, webhookURL, format string) RuleInput {
	return RuleInput{Name: name, Group: group, Broker: broker, Metric: metric, threshold: &threshold,
		For: forDur, WebhookURL: webhookURL, Format: format}
}

// badRule is bad input on field of a rule: fault.Invalid naming the field, with the API
// code the rules have always answered (bad_request).
func badRule(field, id string, kv ...any) *fault.Error {
	return fault.InvalidField(field, id, kv...).Because("bad_request")
}

// checkText applies the free-text rule to the fields people type, each as stored, and
// adds a refusal for each field it does not take.
func checkText(errs *fault.List, fields ...textField) {
	for _, f := range fields {
		if te := fault.As(f.rule.Check(f.value)); te != nil {
			errs.Add(&fault.Error{Code: fault.Invalid, Reason: "bad_request", Field: te.Field, Msg: te.Msg, Err: te})
		}
	}
}

type textField struct {
	rule  freetext.Field
	value string
}

// Validate checks a rule before anything is stored, and returns it in stored form. Every
// mistake is found in one pass (a fault.List, one Invalid per field), so a form tells
// them all at once. A rule's target (TargetGroup, TargetBroker) is kept in the stored
// rule's GroupPattern; the metric says which it is.
func (in RuleInput) Validate() (store.AlertRule, error) {
	group, broker := strings.TrimSpace(in.Group), strings.TrimSpace(in.Broker)
	r := store.AlertRule{Name: strings.TrimSpace(in.Name), Metric: in.Metric,
		Threshold: in.Threshold, WebhookURL: strings.TrimSpace(in.WebhookURL), Format: in.Format}
	if r.Metric == "" {
		r.Metric = MetricLag
	}
	if r.Format == "" {
		r.Format = FormatJSON
	}
	var errs fault.List
	checkText(&errs, textField{freetext.AlertName, r.Name}, textField{freetext.AlertGroup, group},
		textField{freetext.WebhookURL, r.WebhookURL})
	bad := func(field, id string, kv ...any) {
		if errs.For(field) == nil { // one sentence per field: the free-text rule's comes first
			errs.Add(badRule(field, id, kv...))
		}
	}
	// A pattern that could match no name of RocketMQ's is a mistake.
	badPattern := func(p string) bool {
		_, err := path.Match(p, "")
		return err != nil || !cluster.ValidName(strings.NewReplacer("*", "x", "?", "x").Replace(p))
	}
	switch Target(r.Metric) {
	case TargetGroup:
		r.GroupPattern = group
		if group == "" {
			bad("group", "alerts.error.group.empty")
		} else if badPattern(group) {
			bad("group", "alerts.error.group.bad", "Group", group)
		}
		if broker != "" {
			bad("broker", "alerts.error.broker.forGroup", "Metric", r.Metric)
		}
	case TargetBroker:
		r.GroupPattern = broker
		if group != "" {
			bad("group", "alerts.error.group.forBroker", "Metric", r.Metric)
		}
		if broker == "" {
			bad("broker", "alerts.error.broker.empty")
		} else if badPattern(broker) {
			bad("broker", "alerts.error.broker.bad", "Broker", broker)
		}
	case TargetNameServer:
		if group != "" {
			bad("group", "alerts.error.target.nameServers")
		}
		if broker != "" {
			bad("broker", "alerts.error.target.nameServers")
		}
	}
	if r.Name == "" {
		r.Name = defaultName(r.Metric, r.GroupPattern)
	}
	switch {
	case r.Metric == MetricLag || r.Metric == MetricLagTime:
	case IsFinding(r.Metric):
		in.threshold, r.Threshold = nil, 0 // found or not: nothing to compare
	default:
		bad("metric", "alerts.error.metric")
	}
	if in.threshold != nil {
		n, err := strconv.ParseInt(strings.TrimSpace(*in.threshold), 10, 64)
		if err != nil {
			bad("threshold", "alerts.error.threshold")
		} else {
			r.Threshold = n
		}
	}
	if r.Threshold < 0 {
		bad("threshold", "alerts.error.negative", "Threshold", r.Threshold)
	}
	if s := strings.TrimSpace(in.For); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			bad("for", "alerts.error.for", "For", freetext.Shown(s))
		} else {
			r.For = d
		}
	}
	u, err := url.Parse(r.WebhookURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("webhookUrl", "alerts.error.url")
	}
	switch r.Format {
	case FormatJSON, FormatSlack, FormatDingTalk:
	default:
		bad("format", "alerts.error.format")
	}
	return r, errs.Err()
}

// Matches reports whether a rule's pattern covers group.
func Matches(pattern, group string) bool {
	ok, err := path.Match(pattern, group)
	return err == nil && ok
}

// Options tune a Service; zero values take the defaults.
type Options struct {
	Log *slog.Logger
	Now func() time.Time
	// Retry is the first delay before a failed delivery is tried again; it doubles each
	// time, up to MaxAttempts attempts.
	Retry       time.Duration
	MaxAttempts int
	// Timeout bounds one webhook request.
	Timeout time.Duration
	// NameServers names the cluster in notifications and in the audit entries of rule
	// changes: its NameServer list.
	NameServers string
	// ClusterName is the configured cluster's name when the console manages several:
	// notifications then say it (the same group name may exist on each).
	ClusterName string
	// Lang is the language of the notifications' sentences (an i18n tag; "" for English).
	// It is the console's, not the rule creator's: a webhook posts to a team's channel,
	// read by whoever is on call, and a rule created through the API has no language.
	Lang string
}

// Service evaluates rules and delivers notifications.
type Service struct {
	st   Store
	opts Options
	wake chan struct{}

	mu sync.Mutex
	// matched is rule id → groups matched at the last evaluation; nil before the first.
	matched map[int64]int
}

// NewService returns a service over st.
func NewService(st Store, opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Retry <= 0 {
		opts.Retry = 2 * time.Second
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 5
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	return &Service{st: st, opts: opts, wake: make(chan struct{}, 1)}
}

// Who is the operator changing a rule, for the audit log.
type Who struct{ Actor, Addr string }

// Create validates and stores a rule, audited.
func (s *Service) Create(ctx context.Context, who Who, in RuleInput) (*store.AlertRule, error) {
	r, err := in.Validate()
	if err != nil {
		return nil, err
	}
	r.CreatedBy, r.CreatedAt = who.Actor, s.opts.Now()
	e := s.auditEntry(who, "alert-rule-create", r)
	if err := s.st.CreateAlertRule(ctx, &r, e); err != nil {
		return nil, err
	}
	return &r, nil
}

// Delete removes a rule, audited. A rule that does not exist (any more) is
// fault.NotFound.
func (s *Service) Delete(ctx context.Context, who Who, id int64) error {
	r, err := s.st.AlertRule(ctx, id)
	if err == nil {
		err = s.st.DeleteAlertRule(ctx, id, s.auditEntry(who, "alert-rule-delete", *r))
	}
	if errors.Is(err, store.ErrAlertRuleNotFound) {
		return fault.Wrap(err, fault.NotFound, "alerts.error.notFound", "ID", id).Because("alert_rule_not_found")
	}
	return err
}

func (s *Service) auditEntry(who Who, mode string, r store.AlertRule) *store.AuditEntry {
	params, _ := json.Marshal(map[string]any{"id": r.ID, "name": r.Name, ruleTargetKey(r): r.GroupPattern, "metric": r.Metric,
		"threshold": r.Threshold, "for": r.For.String(), "webhookUrl": RedactWebhook(r.WebhookURL), "format": r.Format})
	group := r.GroupPattern // the audit log's group column: a broker pattern is none
	if Target(r.Metric) != TargetGroup {
		group = ""
	}
	return &store.AuditEntry{Actor: who.Actor, ActorAddr: who.Addr, Cluster: s.opts.NameServers, Group: group,
		Mode: mode, Params: params, Status: store.AuditApplied, StartedAt: s.opts.Now()}
}

// RedactWebhook keeps a webhook's host and drops its path and query, which for Slack and
// DingTalk carry the secret token: what the audit log and the API may show of it.
func RedactWebhook(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return u.Scheme + "://" + u.Host + "/…"
	}
	return u.Scheme + "://" + u.Host
}

// RuleView is a rule with where it stands and its latest deliveries.
type RuleView struct {
	store.AlertRule
	States     []store.AlertState
	Deliveries []store.AlertDelivery
	// Matched counts the groups of the last evaluation the pattern matched; -1 before
	// the first.
	Matched int
}

// Rules returns every rule with its states and newest deliveries.
func (s *Service) Rules(ctx context.Context, deliveries int) ([]RuleView, error) {
	rules, err := s.st.AlertRules(ctx)
	if err != nil {
		return nil, err
	}
	states, err := s.st.AlertStates(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]RuleView, len(rules))
	for i, r := range rules {
		out[i] = RuleView{AlertRule: r, Matched: s.matchedCount(r.ID)}
		for _, st := range states {
			if st.RuleID == r.ID {
				out[i].States = append(out[i].States, st)
			}
		}
		if deliveries > 0 {
			if out[i].Deliveries, err = s.st.AlertDeliveries(ctx, r.ID, deliveries); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Firing counts the rule and group pairs that are firing now: what every page's
// navigation shows, so an alert is never only on the alerts page.
func (s *Service) Firing(ctx context.Context) (int, error) {
	states, err := s.st.AlertStates(ctx)
	n := 0
	for _, st := range states {
		if st.State == StateFiring {
			n++
		}
	}
	return n, err
}

// FiringAlert is one rule firing for one group: what the overview leads with.
type FiringAlert struct {
	Rule  store.AlertRule
	State store.AlertState
}

// FiringNow lists the rules firing now with their groups, the longest firing first.
func (s *Service) FiringNow(ctx context.Context) ([]FiringAlert, error) {
	rules, err := s.Rules(ctx, 0)
	if err != nil {
		return nil, err
	}
	var out []FiringAlert
	for _, r := range rules {
		for _, st := range r.States {
			if st.State == StateFiring {
				out = append(out, FiringAlert{Rule: r.AlertRule, State: st})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b FiringAlert) int { return a.State.FiredAt.Compare(b.State.FiredAt) })
	return out, nil
}

// ForGroup returns the rules whose pattern covers group, with the group's state.
func (s *Service) ForGroup(ctx context.Context, group string) ([]RuleView, error) {
	all, err := s.Rules(ctx, 0)
	if err != nil {
		return nil, err
	}
	var out []RuleView
	for _, r := range all {
		if Target(r.Metric) != TargetGroup || !Matches(r.GroupPattern, group) {
			continue
		}
		var mine []store.AlertState
		for _, st := range r.States {
			if st.Group == group {
				mine = append(mine, st)
			}
		}
		r.States = mine
		out = append(out, r)
	}
	return out, nil
}

// defaultName is the name of a rule created without one: "lag of order-*"; a rule on
// the NameServers, which has no target, is named by its metric.
func defaultName(metric, group string) string {
	if Target(metric) == TargetNameServer {
		return metric
	}
	return metric + " of " + group
}

// RuleName is r's name in l's language: the name its creator gave, or, for a rule
// created without one, its metric and group pattern in l's words ("order-* 的堆积量").
func RuleName(l *i18n.Localizer, r store.AlertRule) string {
	if r.Name != defaultName(r.Metric, r.GroupPattern) {
		return r.Name
	}
	if r.Metric == MetricLag || r.Metric == MetricLagTime || IsFinding(r.Metric) {
		return l.T("alerts.rule.default_name."+r.Metric, "Group", r.GroupPattern)
	}
	return r.Name
}
