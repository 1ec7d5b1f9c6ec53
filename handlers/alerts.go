package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/alerts"
	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rights"
	"rmqconsole/store"
	"rmqconsole/views"
)

// AlertRules is what the alert pages need from package alerts.
type AlertRules interface {
	Create(ctx context.Context, who alerts.Who, in alerts.RuleInput) (*store.AlertRule, error)
	Delete(ctx context.Context, who alerts.Who, id int64) error
	Rules(ctx context.Context, deliveries int) ([]alerts.RuleView, error)
	ForGroup(ctx context.Context, group string) ([]alerts.RuleView, error)
	Deliveries(ctx context.Context, limit int) ([]store.AlertDelivery, error)
}

// Alerts is /alerts and /api/v1/alert-rules.
type Alerts struct {
	*Env
	Rules AlertRules
}

func alertWho(c *gin.Context) alerts.Who { return alerts.Who{Actor: Actor(c), Addr: c.ClientIP()} }

// Show renders /alerts.
func (h *Alerts) Show(c *gin.Context) {
	h.showWith(c, http.StatusOK, views.AlertForm{})
}

func (h *Alerts) showWith(c *gin.Context, status int, form views.AlertForm) {
	l := i18n.From(c.Request.Context())
	p := h.page(c, l.T("alerts.title"), "alerts")
	rules, err := h.Rules.Rules(c.Request.Context(), 0)
	if err != nil {
		h.Fail(c, err)
		return
	}
	rules = visibleAlertRules(c, rules)
	deliveries, err := h.Rules.Deliveries(c.Request.Context(), 50)
	if err != nil {
		h.Fail(c, err)
		return
	}
	deliveries = slices.DeleteFunc(deliveries, func(d store.AlertDelivery) bool {
		return d.Group != "" && cmp.Or(deliveredTarget(d), alerts.TargetGroup) == alerts.TargetGroup && !MayGroup(c, d.Group, rights.ReadMetadata)
	})
	form.Metrics = alertMetrics()
	vm := views.AlertsVM{CanEdit: CallerRole(c).Allows(auth.Operator), Form: form}
	byID := make(map[int64]store.AlertRule, len(rules))
	for _, r := range rules {
		vm.Rules = append(vm.Rules, alertRuleRowVM(l, r))
		byID[r.ID] = r.AlertRule
	}
	for _, d := range deliveries {
		row := alertDeliveryRowVM(l, d)
		row.GroupURL = alertDeliveryURL(byID, d)
		vm.Deliveries = append(vm.Deliveries, row)
	}
	h.render(c, status, p, views.AlertsPage(vm))
}

// Create is POST /alerts: the form's rule; on bad input the page again, with the
// sentence next to the form and what was typed kept.
func (h *Alerts) Create(c *gin.Context) {
	in := alerts.FormInput(c.PostForm("name"), c.PostForm("group"), c.PostForm("broker"), c.PostForm("metric"), c.PostForm("threshold"),
		c.PostForm("for"), c.PostForm("webhookUrl"), c.PostForm("format"))
	form := views.AlertForm{Name: in.Name, Group: in.Group, Broker: in.Broker, Metric: in.Metric, Threshold: c.PostForm("threshold"), For: in.For,
		WebhookURL: in.WebhookURL, Format: in.Format}
	// Shown again only when refused: escaped, what the free-text rule does not take.
	shownAll(&form.Name, &form.Group, &form.Broker, &form.Metric, &form.Threshold, &form.For, &form.WebhookURL, &form.Format)
	if !mayWatch(c, h.Env, in.Group) {
		return
	}
	_, err := h.Rules.Create(c.Request.Context(), alertWho(c), in)
	if fes := fault.All(err); len(fes) > 0 && fes[0].Code == fault.Invalid {
		l := i18n.From(c.Request.Context())
		form.FieldErrors = map[string]string{}
		var others fault.List // the selects' (only a hand-made post gets them wrong)
		for _, fe := range fes {
			form.FieldErrors[fe.Field] = fe.Say(l)
			if !views.AlertFieldShowsError(fe.Field) {
				others = append(others, fe)
			}
		}
		form.Error = others.Say(l)
		h.showWith(c, http.StatusUnprocessableEntity, form)
		return
	}
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/alerts")
}

// Delete is POST /alerts/{id}/delete.
func (h *Alerts) Delete(c *gin.Context) {
	id, ok := h.ruleID(c)
	if !ok {
		return
	}
	if !h.mayDelete(c, id) {
		return
	}
	if err := h.Rules.Delete(c.Request.Context(), alertWho(c), id); err != nil {
		h.Fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/alerts")
}

func (h *Alerts) ruleID(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		h.Fail(c, fault.InvalidField("id", "alerts.error.id", "ID", views.Cut(c.Param("id"))).Because("bad_id"))
		return 0, false
	}
	return id, true
}

// AlertRuleJSON is a rule in the API, with where it stands and its newest deliveries.
// WebhookURL is redacted (scheme and host): any viewer may read the rules, and the path
// and query of a Slack or DingTalk webhook are its secret.
type AlertRuleJSON struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Group string `json:"group"`
	// Broker is the broker pattern of a rule on a broker's finding (Group is then "").
	Broker     string              `json:"broker,omitempty"`
	Metric     string              `json:"metric"`
	Threshold  int64               `json:"threshold"`
	ForSeconds float64             `json:"forSeconds"`
	WebhookURL string              `json:"webhookUrl"`
	Format     string              `json:"format"`
	CreatedBy  string              `json:"createdBy"`
	CreatedAt  time.Time           `json:"createdAt"`
	Matched    *int                `json:"matchedGroups"`
	States     []AlertStateJSON    `json:"states"`
	Deliveries []AlertDeliveryJSON `json:"deliveries,omitempty"`
}

// AlertStateJSON is a rule's state for one group.
type AlertStateJSON struct {
	Group      string     `json:"group"`
	State      string     `json:"state"`
	Since      time.Time  `json:"since"`
	Value      *int64     `json:"value"`
	FiredAt    *time.Time `json:"firedAt,omitempty"`
	ResolvedAt *time.Time `json:"resolvedAt,omitempty"`
}

// AlertDeliveryJSON is one notification.
type AlertDeliveryJSON struct {
	ID           int64     `json:"id"`
	Group        string    `json:"group"`
	Event        string    `json:"event"`
	At           time.Time `json:"at"`
	Status       string    `json:"status"`
	Attempts     int       `json:"attempts"`
	ResponseCode int       `json:"responseCode"`
	Error        string    `json:"error,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func alertRuleJSON(r alerts.RuleView) AlertRuleJSON {
	out := AlertRuleJSON{ID: r.ID, Name: r.Name, Group: r.GroupPattern, Metric: r.Metric, Threshold: r.Threshold,
		ForSeconds: r.For.Seconds(), WebhookURL: alerts.RedactWebhook(r.WebhookURL), Format: r.Format, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
		States: []AlertStateJSON{}}
	if alerts.Target(r.Metric) != alerts.TargetGroup {
		out.Group, out.Broker = "", r.GroupPattern
	}
	if r.Matched >= 0 {
		n := r.Matched
		out.Matched = &n
	}
	for _, s := range r.States {
		out.States = append(out.States, AlertStateJSON{Group: s.Group, State: s.State, Since: s.Since, Value: s.Value,
			FiredAt: timePtr(s.FiredAt), ResolvedAt: timePtr(s.ResolvedAt)})
	}
	for _, d := range r.Deliveries {
		out.Deliveries = append(out.Deliveries, AlertDeliveryJSON{ID: d.ID, Group: d.Group, Event: d.Event, At: d.CreatedAt,
			Status: d.Status, Attempts: d.Attempts, ResponseCode: d.ResponseCode, Error: d.Error})
	}
	return out
}

// List answers GET /api/v1/alert-rules.
func (h *Alerts) List(c *gin.Context) {
	rules, err := h.Rules.Rules(c.Request.Context(), 20)
	if err != nil {
		h.Fail(c, err)
		return
	}
	rules = visibleAlertRules(c, rules)
	out := make([]AlertRuleJSON, len(rules))
	for i, r := range rules {
		out[i] = alertRuleJSON(r)
	}
	c.JSON(http.StatusOK, gin.H{"rules": out})
}

// CreateAPI answers POST /api/v1/alert-rules.
func (h *Alerts) CreateAPI(c *gin.Context) {
	var in alerts.RuleInput
	if err := decodeAPIBody(c, &in); err != nil {
		h.Fail(c, bodyError(err, "bad_json", "alerts.error.json", "Shape", alertRuleShape))
		return
	}
	if !mayWatch(c, h.Env, in.Group) {
		return
	}
	r, err := h.Rules.Create(c.Request.Context(), alertWho(c), in)
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"rule": alertRuleJSON(alerts.RuleView{AlertRule: *r, Matched: -1})})
}

// DeleteAPI answers DELETE /api/v1/alert-rules/{id}.
func (h *Alerts) DeleteAPI(c *gin.Context) {
	id, ok := h.ruleID(c)
	if !ok {
		return
	}
	if !h.mayDelete(c, id) {
		return
	}
	if err := h.Rules.Delete(c.Request.Context(), alertWho(c), id); err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": id})
}

// alertRuleShape is the JSON a rule is posted as, quoted by the API's error.
var alertRuleShape = `{"group" or "broker", "metric": "` + strings.Join(alerts.Metrics, `"|"`) +
	`", "threshold", "for": "2m", "webhookUrl", "format": "json"|"slack"|"dingtalk"}`

// alertMetrics are the metrics the rule form offers, as alerts lists them.
func alertMetrics() []views.AlertMetric {
	out := make([]views.AlertMetric, len(alerts.Metrics))
	for i, m := range alerts.Metrics {
		out[i] = views.AlertMetric{Name: m, OfGroups: alerts.Target(m) == alerts.TargetGroup}
	}
	return out
}

func alertCondition(l *i18n.Localizer, r store.AlertRule) string {
	id := "alerts.condition.lag"
	if r.Metric == alerts.MetricLagTime {
		id = "alerts.condition.lagTime"
	}
	s := l.T(id, "Threshold", views.Thousands(r.Threshold))
	if alerts.IsFinding(r.Metric) {
		s = l.T("alerts.condition.finding", "What", l.T("alerts.metric."+r.Metric))
	}
	if r.For > 0 {
		s += l.T("alerts.condition.for", "For", views.DurationIn(l, r.For))
	}
	return s
}

// webhookHost shows where a rule notifies without the token in the path.
func webhookHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

func alertRuleRowVM(l *i18n.Localizer, r alerts.RuleView) views.AlertRuleRow {
	row := views.AlertRuleRow{ID: r.ID, Name: alerts.RuleName(l, r.AlertRule), Group: r.GroupPattern, Condition: alertCondition(l, r.AlertRule),
		Webhook: webhookHost(r.WebhookURL), Format: r.Format, CreatedBy: r.CreatedBy, CreatedAt: views.TimeUTC(r.CreatedAt),
		DeleteURL: "/alerts/" + strconv.FormatInt(r.ID, 10) + "/delete"}
	switch target := alerts.Target(r.Metric); {
	case target == alerts.TargetBroker:
		row.Group, row.Matches = l.T("alerts.target.broker", "Pattern", r.GroupPattern), l.T("alerts.matches.findings")
	case target == alerts.TargetNameServer:
		row.Group, row.Matches = l.T("alerts.target.nameServers"), l.T("alerts.matches.findings")
	case r.Matched < 0:
		row.Matches = l.T("alerts.matches.unchecked")
	case r.Matched == 0:
		row.Matches, row.NoMatch = l.T("alerts.matches.none"), true
	default:
		row.Matches = l.N("alerts.matches", r.Matched)
	}
	for _, s := range r.States {
		if s.State == alerts.StateResolved {
			continue
		}
		row.Firing = append(row.Firing, views.AlertStateRow{Group: s.Group, GroupURL: alertSubjectURL(r.AlertRule, s.Group), State: s.State,
			Since: views.TimeUTC(s.Since), SinceISO: views.ISO(s.Since), Value: alertValue(r.AlertRule, s.Value)})
	}
	return row
}

// alertSubjectURL is the page of what a rule fires for: the group's, the broker's, or
// the overview, which shows the NameServers.
func alertSubjectURL(r store.AlertRule, subject string) string {
	switch alerts.Target(r.Metric) {
	case alerts.TargetBroker:
		return views.BrokerURL(subject)
	case alerts.TargetNameServer:
		return "/"
	}
	return views.GroupURL(subject)
}

// alertDeliveryURL links a delivery to its subject's page, by its rule's metric; a
// deleted rule's metric is gone with it, and the JSON body it sent names the kind of
// subject instead (a Slack or DingTalk text does not: a group's page, as before).
func alertDeliveryURL(rules map[int64]store.AlertRule, d store.AlertDelivery) string {
	r, ok := rules[d.RuleID]
	if !ok {
		r.Metric = targetMetric[cmp.Or(deliveredTarget(d), alerts.TargetGroup)]
	}
	return alertSubjectURL(r, d.Group)
}

// deliveredTarget is the kind of subject a delivery's JSON body names ("group",
// "broker", "nameServer"); "" for a Slack or DingTalk text.
func deliveredTarget(d store.AlertDelivery) string {
	var body struct {
		Target string `json:"target"`
	}
	if json.Unmarshal([]byte(d.Body), &body) != nil {
		return ""
	}
	return body.Target
}

// targetMetric is a metric of each kind of subject, to link a subject by its kind.
var targetMetric = map[string]string{alerts.TargetGroup: alerts.MetricLag, alerts.TargetBroker: alerts.MetricDiskFull,
	alerts.TargetNameServer: alerts.MetricNameServers}

func alertValue(r store.AlertRule, v *int64) string {
	if v == nil || alerts.IsFinding(r.Metric) {
		return ""
	}
	if r.Metric == alerts.MetricLagTime {
		return views.Thousands(*v) + " ms"
	}
	return views.Thousands(*v)
}

func alertDeliveryRowVM(l *i18n.Localizer, d store.AlertDelivery) views.AlertDeliveryRow {
	code := "—"
	if d.ResponseCode != 0 {
		code = strconv.Itoa(d.ResponseCode)
	}
	status := d.Status
	switch {
	case d.Status == "pending" && d.Attempts > 0:
		status = l.T("alerts.delivery.retrying", "Next", views.TimeUTC(d.NextAt))
	case d.Status == "pending" || d.Status == "sent" || d.Status == "failed":
		status = l.T("alerts.delivery." + d.Status)
	}
	return views.AlertDeliveryRow{At: views.TimeUTC(d.CreatedAt), AtISO: views.ISO(d.CreatedAt), Rule: d.RuleName, Group: d.Group,
		GroupURL: views.GroupURL(d.Group), Event: d.Event, State: d.Status, Status: status, Attempts: strconv.Itoa(d.Attempts), Code: code,
		Error: d.Error}
}

// groupAlertsVM is the group page's alert section.
func groupAlertsVM(l *i18n.Localizer, group string, rules []alerts.RuleView) []views.GroupAlert {
	var out []views.GroupAlert
	for _, r := range rules {
		a := views.GroupAlert{Name: alerts.RuleName(l, r.AlertRule), Condition: alertCondition(l, r.AlertRule), State: "ok"}
		for _, s := range r.States {
			if s.Group != group {
				continue
			}
			a.Value = alertValue(r.AlertRule, s.Value)
			if s.State != alerts.StateResolved {
				a.State, a.Since, a.SinceISO = s.State, views.TimeUTC(s.Since), views.ISO(s.Since)
			}
		}
		out = append(out, a)
	}
	return out
}

// mayWatch answers 403 unless the caller may manage the alert rules of the groups
// pattern covers. A pattern is let through only when a rule of the caller's rights
// covers it as written ("payments-*" under "payments-*"), so a wider one ("*") that
// would watch another team's groups is refused.
func mayWatch(c *gin.Context, env *Env, pattern string) bool {
	r := CallerRights(c)
	if pattern = strings.TrimSpace(pattern); pattern == "" || r.Allows(rights.Group, pattern, rights.ManageAlerts) {
		return true
	}
	refuseChange(c, env, rights.Group, pattern, rights.ManageAlerts)
	return false
}

// visibleAlertRules keeps the rules on groups the caller may see (a pattern as written,
// as mayWatch judges it) and the rules on brokers, each with the states of the groups
// the caller may see.
func visibleAlertRules(c *gin.Context, rules []alerts.RuleView) []alerts.RuleView {
	r := CallerRights(c)
	if !r.Limited() {
		return rules
	}
	var out []alerts.RuleView
	for _, rv := range rules {
		if alerts.Target(rv.Metric) != alerts.TargetGroup {
			out = append(out, rv)
			continue
		}
		if !r.Allows(rights.Group, rv.GroupPattern, rights.ReadMetadata) {
			continue
		}
		rv.States = slices.DeleteFunc(slices.Clone(rv.States), func(st store.AlertState) bool {
			return !r.Allows(rights.Group, st.Group, rights.ReadMetadata)
		})
		out = append(out, rv)
	}
	return out
}

// mayDelete answers 403 unless the caller may manage the alert rules of the groups the
// rule id watches. An id that names no rule is left to the service to answer.
func (h *Alerts) mayDelete(c *gin.Context, id int64) bool {
	if !CallerRights(c).Limited() {
		return true
	}
	rules, err := h.Rules.Rules(c.Request.Context(), 0)
	if err != nil {
		h.Fail(c, err)
		return false
	}
	for _, rv := range rules {
		if rv.ID == id && alerts.Target(rv.Metric) == alerts.TargetGroup {
			return mayWatch(c, h.Env, rv.GroupPattern)
		}
	}
	return true
}
