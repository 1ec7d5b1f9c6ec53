package handlers

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/subgroups"
	"rmqconsole/views"
)

// GroupConfigJSON answers GET /api/v1/groups/{group}/config.
type GroupConfigJSON struct {
	Group     string                  `json:"group"`
	Brokers   []GroupConfigBrokerJSON `json:"brokers"`
	Drift     []subgroups.Drift       `json:"drift"`
	Missing   []string                `json:"missing"`
	Failures  []cluster.BrokerFailure `json:"failures"`
	CheckedAt string                  `json:"checkedAt"`
}

// GroupConfigBrokerJSON is the group's settings on one master; config is null when the
// master does not have the group.
type GroupConfigBrokerJSON struct {
	BrokerName string         `json:"brokerName"`
	Cluster    string         `json:"cluster"`
	Addr       string         `json:"addr"`
	Version    string         `json:"version"`
	Exists     bool           `json:"exists"`
	Config     map[string]any `json:"config"`
}

// ConfigAPI answers GET /api/v1/groups/{group}/config.
func (h *GroupSettings) ConfigAPI(c *gin.Context) {
	if h.Settings == nil {
		h.Fail(c, errNoCluster())
		return
	}
	cfg, err := h.Settings.Config(c.Request.Context(), c.Param("group"))
	if err != nil {
		h.Fail(c, err)
		return
	}
	out := GroupConfigJSON{Group: cfg.Group, Brokers: []GroupConfigBrokerJSON{}, Drift: cfg.Drift, Missing: cfg.Missing,
		Failures: cfg.Failures, CheckedAt: views.ISO(cfg.CheckedAt)}
	if out.Failures == nil {
		out.Failures = []cluster.BrokerFailure{}
	}
	for _, b := range cfg.Brokers {
		bj := GroupConfigBrokerJSON{BrokerName: b.Name, Cluster: b.Cluster, Addr: b.Addr, Version: b.Version, Exists: b.Exists()}
		if b.Exists() {
			bj.Config = map[string]any{}
			for k, v := range b.Doc {
				bj.Config[k] = v
			}
		}
		out.Brokers = append(out.Brokers, bj)
	}
	c.JSON(http.StatusOK, out)
}

// groupConfigPreviewBody is what POST /api/v1/groups/{group}/config-preview takes.
type groupConfigPreviewBody struct {
	BrokerNames []string `json:"brokerNames"`
	ClusterName string   `json:"clusterName"`
	subgroups.Settings
}

// badJSON is a body the API cannot read, said as a sentence (one not declared JSON
// stays the 415 decodeAPIBody made it).
func badJSON(err error) error { return bodyError(err, "bad_json", "api.bad_json") }

// PreviewAPI answers POST /api/v1/groups/{group}/config-preview: the change per broker,
// field by field, and the drift today; nothing is changed.
func (h *GroupSettings) PreviewAPI(c *gin.Context) {
	if h.Settings == nil {
		h.Fail(c, errNoCluster())
		return
	}
	var body groupConfigPreviewBody
	if err := decodeAPIBody(c, &body); err != nil {
		h.Fail(c, badJSON(err))
		return
	}
	p, err := h.Settings.Plan(c.Request.Context(), subgroups.Request{Group: c.Param("group"), BrokerNames: body.BrokerNames,
		ClusterName: body.ClusterName, Settings: body.Settings})
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, p)
}

// applyBody is what the API's apply calls take: the preview and the go-ahead.
type applyBody struct {
	PlanID  string `json:"planId"`
	Confirm bool   `json:"confirm"`
}

// ChangeJSON answers a change: the audit entry, sealed, one row per broker. Error and
// Code are set when some broker failed.
type ChangeJSON struct {
	Status string         `json:"status"`
	Entry  AuditEntryJSON `json:"entry"`
	Error  string         `json:"error,omitempty"`
	Code   string         `json:"code,omitempty"`
}

// answerChangeEntry writes a change's outcome: 200 (201 with created) when every broker
// did it, 502 naming the brokers that failed.
func (h *Env) answerChangeEntry(c *gin.Context, e *store.AuditEntry, created bool) {
	out := ChangeJSON{Status: string(e.Status), Entry: auditEntryJSON(e)}
	status := http.StatusOK
	switch {
	case e.Status != store.AuditApplied:
		status, out.Code = http.StatusBadGateway, "broker_error"
		out.Error = sayChangeStatus(i18n.From(c.Request.Context()), e)
		for _, q := range e.Result {
			if len(q.Error) > 0 {
				out.Error += " " + q.BrokerName + ": " + q.Error.String() + "."
			}
		}
	case created:
		status = http.StatusCreated
	}
	c.JSON(status, out)
}

// staleJSON answers a preview that went stale: 409, why, and the fresh preview.
type staleJSON struct {
	APIError
	Fresh any `json:"fresh,omitempty"`
}

// ApplyAPI answers PUT /api/v1/groups/{group}/config {"planId","confirm":true}.
func (h *GroupSettings) ApplyAPI(c *gin.Context) {
	if h.Settings == nil {
		h.Fail(c, errNoCluster())
		return
	}
	var body applyBody
	if err := decodeAPIBody(c, &body); err != nil {
		h.Fail(c, badJSON(err))
		return
	}
	applied, err := h.Settings.Apply(c.Request.Context(), subgroups.Confirmation{Group: c.Param("group"), PlanID: body.PlanID, Confirmed: body.Confirm, Who: groupWho(c)})
	if err != nil {
		var stale *subgroups.StaleError
		if fe := fault.As(err); fe != nil && errors.As(err, &stale) && stale.Fresh != nil {
			status, code := errorStatus(err)
			c.JSON(status, staleJSON{APIError: APIError{Error: fe.Say(i18n.From(c.Request.Context())), Code: code}, Fresh: stale.Fresh})
			return
		}
		h.Fail(c, err)
		return
	}
	h.answerChangeEntry(c, applied.Entry, applied.Plan.Create && applied.Entry.Status == store.AuditApplied)
}

// DeleteAPI answers DELETE /api/v1/groups/{group}?confirm={group}[&removeOffsets=true][&force=true].
func (h *GroupSettings) DeleteAPI(c *gin.Context) {
	if h.Settings == nil {
		h.Fail(c, errNoCluster())
		return
	}
	r := subgroups.DeleteRequest{Group: c.Param("group"), Confirm: c.Query("confirm"),
		RemoveOffsets: c.Query("removeOffsets") == "true", Force: c.Query("force") == "true"}
	applied, err := h.Settings.Delete(c.Request.Context(), groupWho(c), r)
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.answerChangeEntry(c, applied.Entry, false)
}
