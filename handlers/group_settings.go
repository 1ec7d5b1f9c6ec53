package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rights"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
	"rmqconsole/subgroups"
	"rmqconsole/views"
)

// GroupSettingsService is what the group settings pages and API need from package
// subgroups.
type GroupSettingsService interface {
	Config(ctx context.Context, group string) (*subgroups.Config, error)
	Plan(ctx context.Context, r subgroups.Request) (*subgroups.Plan, error)
	Apply(ctx context.Context, c subgroups.Confirmation) (*subgroups.Applied, error)
	Impact(ctx context.Context, group string) (*subgroups.Impact, error)
	Delete(ctx context.Context, who subgroups.Who, r subgroups.DeleteRequest) (*subgroups.Applied, error)
}

// GroupSettings is /groups/{group}/settings (show, preview, apply, delete) and its API.
type GroupSettings struct {
	*Env
	// Settings is nil when no NameServer is configured.
	Settings GroupSettingsService
}

func settingsURL(group string) string { return views.GroupURL(group) + "/settings" }

func groupWho(c *gin.Context) subgroups.Who {
	return subgroups.Who{Actor: Actor(c), Addr: c.ClientIP()}
}

// Create is GET /group-settings?group=G: the settings page of the group typed in the
// groups list's create form.
func (h *GroupSettings) Create(c *gin.Context) {
	group := strings.TrimSpace(c.Query("group"))
	if err := subgroups.CheckGroup(group); err != nil {
		h.Fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, h.Base.URL(settingsURL(group)))
}

// Show renders /groups/{group}/settings.
func (h *GroupSettings) Show(c *gin.Context) {
	vm, ok := h.readPage(c, nil)
	if !ok {
		return
	}
	h.renderSettings(c, http.StatusOK, vm)
}

// readPage reads the group's settings into the page, with the form starting from them.
// Without a cluster or with a name RocketMQ refuses it answers itself and ok is false.
func (h *GroupSettings) readPage(c *gin.Context, cfg *subgroups.Config) (views.GroupSettingsVM, bool) {
	group := c.Param("group")
	manage := MayGroup(c, group, rights.ManageGroups) // the caller's rights on this group
	vm := views.GroupSettingsVM{Group: group, CanChange: CallerRole(c).Allows(auth.Operator) && manage, CanDelete: CallerRole(c).Allows(auth.Admin) && manage}
	if h.Settings == nil {
		h.Fail(c, errNoCluster())
		return vm, false
	}
	if err := subgroups.CheckGroup(group); err != nil && !fault.Is(err, fault.Refused) {
		h.Fail(c, err)
		return vm, false
	}
	l := i18n.From(c.Request.Context())
	if rocketmq.IsSystemGroup(group) {
		vm.CanChange, vm.CanDelete = false, false
	}
	if cfg == nil {
		var err error
		if cfg, err = h.Settings.Config(c.Request.Context(), group); err != nil {
			vm.Error = l.T("settings.read_failed", "Error", sayErr(l, err))
			return vm, true
		}
	}
	fillCurrent(&vm, cfg)
	vm.Failures = sayFailures(l, cfg.Failures)
	vm.Form = settingsForm(cfg)
	vm.Form.Action = settingsURL(group) + "/preview"
	if vm.CanDelete && vm.Exists {
		vm.Delete = h.deleteVM(c, group)
	}
	return vm, true
}

// fillCurrent puts the settings table into the page: one column per master, one row per
// field any master has, form fields first.
func fillCurrent(vm *views.GroupSettingsVM, cfg *subgroups.Config) {
	names := map[string]bool{}
	for _, b := range cfg.Brokers {
		vm.Brokers = append(vm.Brokers, views.SettingsBroker{Name: b.Name, Addr: b.Addr, Version: b.Version, Has: b.Exists()})
		vm.Exists = vm.Exists || b.Exists()
		for k := range b.Doc {
			names[k] = true
		}
	}
	vm.Missing = strings.Join(cfg.Missing, ", ")
	drift := map[string]bool{}
	for _, d := range cfg.Drift {
		drift[d.Field] = true
	}
	var order []string
	for _, f := range subgroups.Fields {
		if names[f.Name] {
			order = append(order, f.Name)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		if !slices.Contains(order, k) && k != "groupName" {
			order = append(order, k)
		}
	}
	for _, k := range order {
		f, _ := subgroups.FieldNamed(k)
		r := views.SettingsRow{Field: k, Drift: drift[k], InForm: f.Form}
		for _, b := range cfg.Brokers {
			v := "—"
			if b.Exists() {
				if _, ok := b.Doc[k]; ok {
					v = subgroups.Text(b.Doc[k])
				}
			}
			r.Values = append(r.Values, v)
		}
		vm.Rows = append(vm.Rows, r)
	}
}

// formFields are the form's fields by the setting they change.
var formBools = []string{"consumeEnable", "consumeBroadcastEnable", "consumeMessageOrderly"}
var formInts = []string{"retryMaxTimes", "retryQueueNums", "whichBrokerWhenConsumeSlowly"}

// settingsForm is the form starting from the group's settings: a field the masters agree
// on shows their value, one they differ on is empty and says the values.
func settingsForm(cfg *subgroups.Config) views.GroupSettingsForm {
	f := views.GroupSettingsForm{Differs: map[string]string{}}
	present := cfg.Present()
	driftOf := map[string]subgroups.Drift{}
	for _, d := range cfg.Drift {
		driftOf[d.Field] = d
	}
	value := func(field string) string {
		if d, ok := driftOf[field]; ok {
			var vals []string
			for _, b := range present {
				vals = append(vals, b.Name+" "+d.Values[b.Name])
			}
			f.Differs[field] = strings.Join(vals, ", ")
			return ""
		}
		if len(present) == 0 {
			return ""
		}
		return subgroups.Text(present[0].Doc[field])
	}
	f.ConsumeEnable, f.ConsumeBroadcastEnable, f.ConsumeMessageOrderly = value("consumeEnable"), value("consumeBroadcastEnable"), value("consumeMessageOrderly")
	f.RetryMaxTimes, f.RetryQueueNums, f.WhichBrokerWhenConsumeSlowly = value("retryMaxTimes"), value("retryQueueNums"), value("whichBrokerWhenConsumeSlowly")
	if len(present) == 0 {
		// A new group: RocketMQ's defaults, each sent (the form starts from nothing).
		f.ConsumeEnable, f.ConsumeBroadcastEnable, f.RetryMaxTimes, f.RetryQueueNums, f.WhichBrokerWhenConsumeSlowly = "true", "true", "16", "1", "1"
	}
	pol := value("groupRetryPolicy")
	var rp subgroups.RetryPolicy
	if pol != "" && json.Unmarshal([]byte(pol), &rp) == nil {
		f.PolicyType = rp.Type
		if e := rp.Exponential; e != nil {
			f.Initial, f.Max, f.Multiplier = strconv.FormatInt(e.Initial, 10), strconv.FormatInt(e.Max, 10), strconv.FormatInt(e.Multiplier, 10)
		}
		if c := rp.Customized; c != nil {
			f.Next = joinInts(c.Next)
		}
		if rp.Type == "CUSTOMIZED" && rp.Customized == nil {
			f.PolicyType = "" // the broker's default policy, no delays of its own: keep it
		}
	}
	if _, drifts := driftOf["attributes"]; !drifts && len(present) > 0 {
		var attrs map[string]string
		_ = json.Unmarshal(present[0].Doc["attributes"], &attrs)
		var lines []string
		for _, k := range slices.Sorted(maps.Keys(attrs)) {
			lines = append(lines, k+"="+attrs[k])
		}
		f.Attributes = strings.Join(lines, "\n")
	}
	if len(present) > 0 {
		for _, pair := range []struct{ name, v string }{
			{"consumeEnable", f.ConsumeEnable}, {"consumeBroadcastEnable", f.ConsumeBroadcastEnable}, {"consumeMessageOrderly", f.ConsumeMessageOrderly},
			{"retryMaxTimes", f.RetryMaxTimes}, {"retryQueueNums", f.RetryQueueNums}, {"whichBrokerWhenConsumeSlowly", f.WhichBrokerWhenConsumeSlowly},
			{"policyType", f.PolicyType}, {"policyInitial", f.Initial}, {"policyMax", f.Max}, {"policyMultiplier", f.Multiplier}, {"policyNext", f.Next},
			{"attributes", f.Attributes},
		} {
			f.Orig = append(f.Orig, views.HiddenField{Name: "orig_" + pair.name, Value: pair.v})
		}
	}
	for _, b := range cfg.Brokers {
		f.Brokers = append(f.Brokers, views.SettingsBrokerChoice{Name: b.Name, Cluster: b.Cluster, Is5: b.Is5, Has: b.Exists(),
			Checked: b.Exists() || len(present) == 0})
		f.Any5 = f.Any5 || b.Is5
		f.Any4 = f.Any4 || !b.Is5
	}
	return f
}

func joinInts(ns []int64) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(parts, ",")
}

// formRequest reads the settings form into a request: a field is asked only when it
// differs from what the form started from. The form as typed comes back with it.
func formRequest(c *gin.Context, group string) (subgroups.Request, views.GroupSettingsForm, error) {
	f := views.GroupSettingsForm{Differs: map[string]string{}}
	pf := func(name string) string { return strings.TrimSpace(c.PostForm(name)) }
	_, update := c.GetPostForm("orig_consumeEnable")
	changed := func(name string) bool {
		v := pf(name)
		return v != "" && (!update || v != c.PostForm("orig_"+name))
	}
	for _, name := range []string{"consumeEnable", "consumeBroadcastEnable", "consumeMessageOrderly", "retryMaxTimes", "retryQueueNums",
		"whichBrokerWhenConsumeSlowly", "policyType", "policyInitial", "policyMax", "policyMultiplier", "policyNext", "attributes"} {
		if v, ok := c.GetPostForm("orig_" + name); ok {
			f.Orig = append(f.Orig, views.HiddenField{Name: "orig_" + name, Value: v})
		}
	}
	f.ConsumeEnable, f.ConsumeBroadcastEnable, f.ConsumeMessageOrderly = pf("consumeEnable"), pf("consumeBroadcastEnable"), pf("consumeMessageOrderly")
	f.RetryMaxTimes, f.RetryQueueNums, f.WhichBrokerWhenConsumeSlowly = pf("retryMaxTimes"), pf("retryQueueNums"), pf("whichBrokerWhenConsumeSlowly")
	f.PolicyType, f.Initial, f.Max, f.Multiplier, f.Next = pf("policyType"), pf("policyInitial"), pf("policyMax"), pf("policyMultiplier"), pf("policyNext")
	f.Attributes = c.PostForm("attributes")
	r := subgroups.Request{Group: group, BrokerNames: c.PostFormArray("brokerNames")}
	var errs fault.List
	for _, name := range formBools {
		if !changed(name) {
			continue
		}
		b, err := strconv.ParseBool(pf(name))
		if err != nil {
			errs.Invalid(name, "settings.form.bool", "Field", name)
			continue
		}
		switch name {
		case "consumeEnable":
			r.ConsumeEnable = &b
		case "consumeBroadcastEnable":
			r.ConsumeBroadcastEnable = &b
		case "consumeMessageOrderly":
			r.ConsumeMessageOrderly = &b
		}
	}
	for _, name := range formInts {
		if !changed(name) {
			continue
		}
		n, err := strconv.ParseInt(pf(name), 10, 64)
		if err != nil {
			errs.Invalid(name, "settings.form.number", "Field", name)
			continue
		}
		switch name {
		case "retryMaxTimes":
			r.RetryMaxTimes = new(int(n))
		case "retryQueueNums":
			r.RetryQueueNums = new(int(n))
		case "whichBrokerWhenConsumeSlowly":
			r.WhichBrokerWhenConsumeSlowly = &n
		}
	}
	if f.PolicyType != "" && (changed("policyType") || changed("policyInitial") || changed("policyMax") || changed("policyMultiplier") || changed("policyNext")) {
		rp := &subgroups.RetryPolicy{Type: f.PolicyType}
		switch f.PolicyType {
		case "EXPONENTIAL":
			e := &subgroups.ExponentialRetry{}
			var bad bool
			for _, p := range []struct {
				v   string
				dst *int64
			}{{f.Initial, &e.Initial}, {f.Max, &e.Max}, {f.Multiplier, &e.Multiplier}} {
				n, err := strconv.ParseInt(p.v, 10, 64)
				if err != nil {
					bad = true
				}
				*p.dst = n
			}
			if bad {
				errs.Invalid("groupRetryPolicy", "settings.form.policy.numbers")
			}
			rp.Exponential = e
		case "CUSTOMIZED":
			cr := &subgroups.CustomizedRetries{}
			for _, part := range strings.FieldsFunc(f.Next, func(r rune) bool { return r == ',' || r == ' ' }) {
				n, err := strconv.ParseInt(part, 10, 64)
				if err != nil {
					errs.Invalid("groupRetryPolicy", "settings.form.policy.next")
					break
				}
				cr.Next = append(cr.Next, n)
			}
			rp.Customized = cr
		}
		r.GroupRetryPolicy = rp
	}
	if !update || f.Attributes != c.PostForm("orig_attributes") {
		now, err := parseAttributes(f.Attributes)
		if err != nil {
			errs.Invalid("attributes", "settings.form.attributes")
		}
		was, _ := parseAttributes(c.PostForm("orig_attributes"))
		for k, v := range now {
			if was[k] != v {
				if r.Attributes == nil {
					r.Attributes = map[string]string{}
				}
				r.Attributes[k] = v
			}
		}
		for k := range was {
			if _, ok := now[k]; !ok {
				if r.Attributes == nil {
					r.Attributes = map[string]string{}
				}
				r.Attributes[k] = ""
			}
		}
	}
	return r, f, errs.Err()
}

// parseAttributes reads "key=value" lines.
func parseAttributes(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return out, errors.New("not key=value")
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// Preview is POST /groups/{group}/settings/preview: the preview above the page, with the
// button that applies it; bad input re-renders the form with a sentence on each field (422).
func (h *GroupSettings) Preview(c *gin.Context) {
	group := c.Param("group")
	vm, ok := h.readPage(c, nil)
	if !ok {
		return
	}
	r, typed, err := formRequest(c, group)
	if err == nil {
		var p *subgroups.Plan
		if p, err = h.Settings.Plan(c.Request.Context(), r); err == nil {
			vm.Preview = settingsPreviewVM(i18n.From(c.Request.Context()), group, p)
		}
	}
	keepTyped(&vm.Form, typed, c.PostFormArray("brokerNames"))
	if err != nil {
		if !showOnForm(i18n.From(c.Request.Context()), &vm.Form.FieldErrors, &vm.Form.Error, err) {
			h.Fail(c, err)
			return
		}
		h.renderSettings(c, http.StatusUnprocessableEntity, vm)
		return
	}
	h.renderSettings(c, http.StatusOK, vm)
}

// keepTyped puts what the user typed back into the form (the current settings stay
// what the form started from).
func keepTyped(f *views.GroupSettingsForm, typed views.GroupSettingsForm, ticked []string) {
	f.ConsumeEnable, f.ConsumeBroadcastEnable, f.ConsumeMessageOrderly = typed.ConsumeEnable, typed.ConsumeBroadcastEnable, typed.ConsumeMessageOrderly
	f.RetryMaxTimes, f.RetryQueueNums, f.WhichBrokerWhenConsumeSlowly = typed.RetryMaxTimes, typed.RetryQueueNums, typed.WhichBrokerWhenConsumeSlowly
	f.PolicyType, f.Initial, f.Max, f.Multiplier, f.Next, f.Attributes = typed.PolicyType, typed.Initial, typed.Max, typed.Multiplier, typed.Next, typed.Attributes
	if len(typed.Orig) > 0 {
		f.Orig = typed.Orig
	}
	for i := range f.Brokers {
		f.Brokers[i].Checked = slices.Contains(ticked, f.Brokers[i].Name)
	}
}

// showOnForm puts the sentences of err that a form shows (bad input, refusals,
// conflicts, brokers that could not be read) on their fields or above the form; ok is
// false for errors the page answers otherwise (the console's own).
func showOnForm(l *i18n.Localizer, fields *map[string]string, above *string, err error) bool {
	all := fault.All(err)
	if len(all) == 0 {
		var bf cluster.BrokerFailure
		if errors.As(err, &bf) {
			*above = sayErr(l, err)
			return true
		}
		return false
	}
	if all[0].Code == fault.Internal {
		return false
	}
	if *fields == nil {
		*fields = map[string]string{}
	}
	for _, e := range all {
		if e.Field != "" && e.Code == fault.Invalid {
			if _, ok := (*fields)[e.Field]; !ok {
				(*fields)[e.Field] = e.Say(l)
			}
			continue
		}
		if *above != "" {
			*above += " "
		}
		*above += e.Say(l)
	}
	return true
}

func settingsPreviewVM(l *i18n.Localizer, group string, p *subgroups.Plan) *views.GroupSettingsPreviewVM {
	vm := &views.GroupSettingsPreviewVM{PlanID: p.ID, Action: settingsURL(group) + "/apply", Create: p.Create,
		ExpiresAt: views.TimeUTC(p.ExpiresAt), Missing: strings.Join(p.Missing, ", ")}
	for _, b := range p.Brokers {
		pb := views.PreviewBrokerVM{Name: b.Name, Addr: b.Addr, Version: b.Version}
		switch {
		case !b.Exists && b.From != "":
			pb.Note = l.T("settings.preview.creates.from", "From", b.From)
		case !b.Exists:
			pb.Note = l.T("settings.preview.creates")
		}
		for _, ch := range b.Changes {
			pb.Changes = append(pb.Changes, views.PreviewChangeVM{Field: ch.Field, Current: orDash(ch.Current), New: orDash(ch.New)})
		}
		vm.Brokers = append(vm.Brokers, pb)
	}
	names := map[string]bool{}
	for _, d := range p.Drift {
		for b := range d.Values {
			names[b] = true
		}
	}
	vm.DriftBrokers = slices.Sorted(maps.Keys(names))
	for _, d := range p.Drift {
		r := views.SettingsRow{Field: d.Field, Drift: true}
		for _, b := range vm.DriftBrokers {
			r.Values = append(r.Values, orDash(d.Values[b]))
		}
		vm.Drift = append(vm.Drift, r)
	}
	id := "settings.apply.update"
	if p.Create {
		id = "settings.apply.create"
	}
	vm.Button = l.N(id, p.Changes(), "Group", views.Cut(group), "Brokers", strings.Join(p.BrokerNames(), ", "))
	return vm
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Apply is POST /groups/{group}/settings/apply: the outcome above the page read again.
// A preview that went stale shows the fresh preview instead, saying why.
func (h *GroupSettings) Apply(c *gin.Context) {
	group := c.Param("group")
	ctx := c.Request.Context()
	l := i18n.From(ctx)
	if h.Settings == nil {
		h.Fail(c, errNoCluster())
		return
	}
	applied, err := h.Settings.Apply(ctx, subgroups.Confirmation{Group: group, PlanID: c.PostForm("planId"), Confirmed: c.PostForm("confirm") != "", Who: groupWho(c)})
	vm, ok := h.readPage(c, nil)
	if !ok {
		return
	}
	if err != nil {
		var stale *subgroups.StaleError
		if errors.As(err, &stale) && stale.Fresh != nil {
			vm.Preview = settingsPreviewVM(l, group, stale.Fresh)
		}
		if fe := fault.As(err); fe != nil && fe.Field == "confirm" && c.PostForm("planId") != "" {
			// The box was not ticked: nothing was used up, the preview stands.
			vm.Form.Error = fe.Say(l)
		} else if !showOnForm(l, &vm.Form.FieldErrors, &vm.Form.Error, err) {
			h.Fail(c, err)
			return
		}
		status, _ := errorStatus(err)
		if status < 500 {
			status = http.StatusUnprocessableEntity
		}
		h.renderSettings(c, status, vm)
		return
	}
	vm.Result = changeResultVM(l, applied.Entry)
	h.renderSettings(c, http.StatusOK, vm)
}

// changeResultVM says what a change did, broker by broker.
func changeResultVM(l *i18n.Localizer, e *store.AuditEntry) *views.ChangeResultVM {
	text := sayChangeStatus(l, e)
	if i := strings.Index(text, ": "); i > 0 && strings.EqualFold(text[:i], string(e.Status)) {
		text = text[i+2:]
	}
	return &views.ChangeResultVM{Status: string(e.Status), StatusClass: auditStatusClass(e.Status), Text: text,
		EntryURL: auditURL(e.ID), Error: l.SayText(e.Error), Rows: auditChangeVMIn(l, e).Rows}
}

func (h *GroupSettings) deleteVM(c *gin.Context, group string) views.GroupDeleteVM {
	vm := views.GroupDeleteVM{Action: views.GroupURL(group) + "/delete", Group: group}
	im, err := h.Settings.Impact(c.Request.Context(), group)
	if err != nil {
		vm.Error = sayErr(i18n.From(c.Request.Context()), err)
		return vm
	}
	vm.Brokers, vm.Clients = im.Brokers, im.Clients
	if im.RetryTopic != "" {
		vm.RetryTopic, vm.RetryURL = im.RetryTopic, views.TopicURL(im.RetryTopic)
	}
	if im.DLQTopic != "" {
		vm.DLQTopic, vm.DLQURL = im.DLQTopic, views.TopicURL(im.DLQTopic)
	}
	return vm
}

// Delete is POST /groups/{group}/delete: with the name typed again, the group is deleted
// and its audit entry shown; else the page again with the sentence.
func (h *GroupSettings) Delete(c *gin.Context) {
	group := c.Param("group")
	if h.Settings == nil {
		h.Fail(c, errNoCluster())
		return
	}
	r := subgroups.DeleteRequest{Group: group, Confirm: strings.TrimSpace(c.PostForm("confirm")),
		RemoveOffsets: c.PostForm("removeOffsets") == "true", Force: c.PostForm("force") == "true"}
	applied, err := h.Settings.Delete(c.Request.Context(), groupWho(c), r)
	if err == nil {
		c.Redirect(http.StatusSeeOther, h.Base.URL(auditURL(applied.Entry.ID)))
		return
	}
	vm, ok := h.readPage(c, nil)
	if !ok {
		return
	}
	vm.Delete.Confirm, vm.Delete.RemoveOffsets, vm.Delete.Force = r.Confirm, r.RemoveOffsets, r.Force
	if !showOnForm(i18n.From(c.Request.Context()), &vm.Delete.FieldErrors, &vm.Delete.Error, err) {
		h.Fail(c, err)
		return
	}
	if fe := fault.As(err); fe != nil && fe.Reason == "clients_online" {
		vm.Delete.FieldErrors["force"] = fe.Say(i18n.From(c.Request.Context()))
		vm.Delete.Error = ""
	}
	h.renderSettings(c, http.StatusUnprocessableEntity, vm)
}

func (h *GroupSettings) renderSettings(c *gin.Context, status int, vm views.GroupSettingsVM) {
	h.render(c, status, h.page(c, i18n.From(c.Request.Context()).T("settings.title", "Group", views.Cut(vm.Group)), "groups"), views.GroupSettingsPage(vm))
}
