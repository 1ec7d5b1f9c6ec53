package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/views"
)

// BrokerConfigService is what the configuration pages and API need from package brokers.
type BrokerConfigService interface {
	Detail(ctx context.Context, name string) (*brokers.Detail, error)
	ConfigDrift(ctx context.Context) (*brokers.DriftReport, error)
	PlanConfig(ctx context.Context, r brokers.ConfigRequest) (*brokers.ConfigPlan, error)
	ApplyConfig(ctx context.Context, c brokers.ConfigConfirmation) (*store.AuditEntry, *brokers.ConfigPlan, error)
}

// BrokerConfig is /brokers/config-drift, /brokers/{name}/config and their API.
type BrokerConfig struct {
	*Env
	// Brokers is nil when no NameServer is configured.
	Brokers BrokerConfigService
}

func brokerWho(c *gin.Context) brokers.Who { return brokers.Who{Actor: Actor(c), Addr: c.ClientIP()} }

func brokerConfigURL(name string) string { return views.BrokerURL(name) + "/config" }

// Drift renders /brokers/config-drift[?all=1].
func (h *BrokerConfig) Drift(c *gin.Context) {
	l := tr(c)
	vm := views.BrokerDriftVM{All: c.Query("all") != ""}
	if h.Brokers == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	r, err := h.Brokers.ConfigDrift(c.Request.Context())
	if err != nil {
		vm.Error = l.T("drift.read_failed", "Error", sayErr(l, err))
	} else {
		vm.Failures = sayFailures(l, r.Failures)
		vm.CheckedAt, vm.CheckedISO = views.TimeUTC(r.CheckedAt), views.ISO(r.CheckedAt)
		vm.Clusters = driftVM(r, vm.All)
	}
	h.render(c, http.StatusOK, h.page(c, l.T("drift.title"), "brokers"), views.BrokerDriftPage(vm))
}

func driftVM(r *brokers.DriftReport, all bool) []views.DriftClusterVM {
	var out []views.DriftClusterVM
	for _, cd := range r.Clusters {
		cv := views.DriftClusterVM{Cluster: cd.Cluster}
		for _, p := range cd.Processes {
			cv.Processes = append(cv.Processes, views.DriftProcessVM{Label: p.Name + "/" + strconv.FormatInt(p.ID, 10), Role: p.Role, Addr: p.Addr, URL: views.BrokerURL(p.Name)})
		}
		for _, k := range cd.Keys {
			if k.Expected && !all {
				cv.Expected++
				continue
			}
			kv := views.DriftKeyVM{Key: k.Key, Expected: k.Expected}
			odd := ""
			for i, v := range k.Values {
				cell := views.DriftCellVM{Value: v, Absent: k.Absent[i], Odd: v != k.Values[0] || k.Absent[i] != k.Absent[0]}
				if cell.Odd && odd == "" {
					odd = cd.Processes[i].Name
				}
				kv.Cells = append(kv.Cells, cell)
			}
			if odd == "" && len(cd.Processes) > 0 {
				odd = cd.Processes[0].Name
			}
			kv.EditURL = brokerConfigURL(odd) + "?config=" + url.QueryEscape(k.Key+"="+k.Values[0])
			cv.Keys = append(cv.Keys, kv)
		}
		out = append(out, cv)
	}
	return out
}

// Edit renders /brokers/{name}/config[?config=key=value].
func (h *BrokerConfig) Edit(c *gin.Context) {
	vm, ok := h.editVM(c)
	if !ok {
		return
	}
	vm.Form.Config = c.Query("config")
	h.renderEdit(c, http.StatusOK, vm)
}

func (h *BrokerConfig) editVM(c *gin.Context) (views.BrokerConfigEditVM, bool) {
	name := c.Param("name")
	vm := views.BrokerConfigEditVM{Broker: name, Form: views.BrokerConfigForm{Action: brokerConfigURL(name) + "/preview", Scope: brokers.ScopeBroker}}
	if !cluster.ValidName(name) {
		h.Fail(c, badBrokerName(name))
		return vm, false
	}
	if h.Brokers == nil {
		h.Fail(c, errNoClusterSettings)
		return vm, false
	}
	d, err := h.Brokers.Detail(c.Request.Context(), name)
	if err != nil {
		h.Fail(c, err)
		return vm, false
	}
	vm.Cluster = d.Cluster
	return vm, true
}

func (h *BrokerConfig) renderEdit(c *gin.Context, status int, vm views.BrokerConfigEditVM) {
	h.render(c, status, h.page(c, tr(c).T("brokerconfig.title", "Broker", views.Cut(vm.Broker)), "brokers"), views.BrokerConfigEditPage(vm))
}

// parseConfigLines reads "key=value" lines.
func parseConfigLines(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return out, fault.InvalidField("config", "brokerconfig.form.line", "Line", views.Cut(line))
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

func configPreviewVM(l *i18n.Localizer, name string, p *brokers.ConfigPlan) *views.BrokerConfigPreviewVM {
	vm := &views.BrokerConfigPreviewVM{PlanID: p.ID, Action: brokerConfigURL(name) + "/apply", ExpiresAt: views.TimeUTC(p.ExpiresAt),
		Secrets: p.Secrets, Drift: strings.Join(p.Drift, ", ")}
	for _, pp := range p.Processes {
		b := views.PreviewBrokerVM{Name: fmt.Sprintf("%s/%d", pp.Broker, pp.ID), Addr: pp.Addr, Version: pp.Role}
		for _, kc := range pp.Changes {
			b.Changes = append(b.Changes, views.PreviewChangeVM{Field: kc.Key, Current: orDash(kc.Current), New: orDash(kc.New), Same: kc.Same})
		}
		vm.Processes = append(vm.Processes, b)
	}
	vm.Button = l.N("brokerconfig.apply", p.Changes(), "N", len(p.Processes), "Keys", strings.Join(p.Keys, ", "))
	return vm
}

// Preview is POST /brokers/{name}/config/preview.
func (h *BrokerConfig) Preview(c *gin.Context) {
	vm, ok := h.editVM(c)
	if !ok {
		return
	}
	l := tr(c)
	vm.Form.Config, vm.Form.Scope = c.PostForm("config"), c.PostForm("scope")
	kv, err := parseConfigLines(vm.Form.Config)
	var p *brokers.ConfigPlan
	if err == nil {
		p, err = h.Brokers.PlanConfig(c.Request.Context(), brokers.ConfigRequest{Broker: vm.Broker, Config: kv, Scope: vm.Form.Scope})
	}
	if err != nil {
		if !showOnForm(l, &vm.Form.FieldErrors, &vm.Form.Error, err) {
			h.Fail(c, err)
			return
		}
		h.renderEdit(c, http.StatusUnprocessableEntity, vm)
		return
	}
	vm.Preview = configPreviewVM(l, vm.Broker, p)
	h.renderEdit(c, http.StatusOK, vm)
}

// Apply is POST /brokers/{name}/config/apply.
func (h *BrokerConfig) Apply(c *gin.Context) {
	vm, ok := h.editVM(c)
	if !ok {
		return
	}
	l := tr(c)
	secrets := map[string]string{}
	for k, v := range c.Request.PostForm {
		if key, ok := strings.CutPrefix(k, "secret_"); ok && len(v) > 0 {
			secrets[key] = v[0]
		}
	}
	e, _, err := h.Brokers.ApplyConfig(c.Request.Context(), brokers.ConfigConfirmation{Broker: vm.Broker, PlanID: c.PostForm("planId"),
		Confirmed: c.PostForm("confirm") != "", Secrets: secrets, Who: brokerWho(c)})
	if err != nil {
		var stale *brokers.ConfigStaleError
		if errors.As(err, &stale) && stale.Fresh != nil {
			vm.Preview = configPreviewVM(l, vm.Broker, stale.Fresh)
		}
		if !showOnForm(l, &vm.Form.FieldErrors, &vm.Form.Error, err) {
			h.Fail(c, err)
			return
		}
		status, _ := errorStatus(err)
		if status < 500 {
			status = http.StatusUnprocessableEntity
		}
		h.renderEdit(c, status, vm)
		return
	}
	vm.Result = changeResultVM(l, e)
	h.renderEdit(c, http.StatusOK, vm)
}

// BrokerConfigJSON answers GET /api/v1/brokers/{name}/config: each process's
// configuration, secrets masked.
type BrokerConfigJSON struct {
	BrokerName string                  `json:"brokerName"`
	Cluster    string                  `json:"cluster"`
	Processes  []brokers.Member        `json:"processes"`
	Failures   []cluster.BrokerFailure `json:"failures"`
	CheckedAt  string                  `json:"checkedAt"`
}

// ConfigAPI answers GET /api/v1/brokers/{name}/config.
func (h *BrokerConfig) ConfigAPI(c *gin.Context) {
	name := c.Param("name")
	if !cluster.ValidName(name) {
		h.Fail(c, badBrokerName(name))
		return
	}
	if h.Brokers == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	d, err := h.Brokers.Detail(c.Request.Context(), name)
	if err != nil {
		h.Fail(c, err)
		return
	}
	out := BrokerConfigJSON{BrokerName: d.Name, Cluster: d.Cluster, Processes: d.Members, Failures: d.Failures, CheckedAt: views.ISO(d.CheckedAt)}
	if out.Failures == nil {
		out.Failures = []cluster.BrokerFailure{}
	}
	c.JSON(http.StatusOK, out)
}

// DriftAPI answers GET /api/v1/brokers/config-drift.
func (h *BrokerConfig) DriftAPI(c *gin.Context) {
	if h.Brokers == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	r, err := h.Brokers.ConfigDrift(c.Request.Context())
	if err != nil {
		h.Fail(c, err)
		return
	}
	if r.Failures == nil {
		r.Failures = []cluster.BrokerFailure{}
	}
	c.JSON(http.StatusOK, r)
}

// configPreviewBody is what POST /api/v1/brokers/{name}/config-preview takes.
type configPreviewBody struct {
	Config map[string]string `json:"config"`
	Scope  string            `json:"scope"`
}

// PreviewAPI answers POST /api/v1/brokers/{name}/config-preview.
func (h *BrokerConfig) PreviewAPI(c *gin.Context) {
	if h.Brokers == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	var body configPreviewBody
	if err := decodeAPIBody(c, &body); err != nil {
		h.Fail(c, badJSON(err))
		return
	}
	p, err := h.Brokers.PlanConfig(c.Request.Context(), brokers.ConfigRequest{Broker: c.Param("name"), Config: body.Config, Scope: body.Scope})
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, p)
}

// configApplyBody is what PUT /api/v1/brokers/{name}/config takes: the preview, the
// go-ahead, and the new values of the preview's secret keys again.
type configApplyBody struct {
	PlanID  string            `json:"planId"`
	Confirm bool              `json:"confirm"`
	Secrets map[string]string `json:"secrets"`
}

// ApplyAPI answers PUT /api/v1/brokers/{name}/config.
func (h *BrokerConfig) ApplyAPI(c *gin.Context) {
	if h.Brokers == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	var body configApplyBody
	if err := decodeAPIBody(c, &body); err != nil {
		h.Fail(c, badJSON(err))
		return
	}
	e, _, err := h.Brokers.ApplyConfig(c.Request.Context(), brokers.ConfigConfirmation{Broker: c.Param("name"), PlanID: body.PlanID,
		Confirmed: body.Confirm, Secrets: body.Secrets, Who: brokerWho(c)})
	if err != nil {
		var stale *brokers.ConfigStaleError
		if fe := fault.As(err); fe != nil && errors.As(err, &stale) && stale.Fresh != nil {
			status, code := errorStatus(err)
			c.JSON(status, staleJSON{APIError: APIError{Error: fe.Say(tr(c)), Code: code}, Fresh: stale.Fresh})
			return
		}
		h.Fail(c, err)
		return
	}
	h.answerChangeEntry(c, e, false)
}
