package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/views"
)

// BrokerReader is what the broker pages need from package brokers.
type BrokerReader interface {
	List(ctx context.Context, refresh bool) (*brokers.List, error)
	Detail(ctx context.Context, name string) (*brokers.Detail, error)
}

// Brokers is /brokers, /brokers/{name} and GET /api/v1/brokers[/{name}].
type Brokers struct {
	*Env
	// Brokers is nil when no NameServer is configured.
	Brokers BrokerReader
	// Live is set when the broker page has a live TPS chart.
	Live bool
	// Diagnosis is what is wrong now; nil leaves the section out.
	Diagnosis Findings
}

// BrokersJSON answers GET /api/v1/brokers.
type BrokersJSON struct {
	// Brokers is one page: limit processes (paging.DefaultLimit when the request gives
	// none), by broker name and id.
	Brokers []brokers.Runtime `json:"brokers"`
	// Total counts every process listed, on every page.
	Total int `json:"total"`
	// Next is the cursor of the following page; absent on the last one.
	Next      string                  `json:"next,omitempty"`
	CheckedAt time.Time               `json:"checkedAt"`
	Failures  []cluster.BrokerFailure `json:"failures,omitempty"`
	// Errors are Failures as {"broker","error"}. Deprecated: use failures.
	Errors []BrokerErrorJSON `json:"errors,omitempty"`
}

// BrokerJSON answers GET /api/v1/brokers/{name}.
type BrokerJSON struct {
	Name      string                  `json:"brokerName"`
	Cluster   string                  `json:"cluster"`
	Members   []brokers.Member        `json:"members"`
	CheckedAt time.Time               `json:"checkedAt"`
	Failures  []cluster.BrokerFailure `json:"failures,omitempty"`
	// Errors are Failures as {"broker","error"}. Deprecated: use failures.
	Errors []BrokerErrorJSON `json:"errors,omitempty"`
}

// badBrokerName refuses a broker name RocketMQ would refuse, before any broker is asked.
func badBrokerName(name string) error {
	return fault.InvalidField("name", "brokers.bad_name", "Name", views.Cut(name)).Because("bad_broker")
}

// List renders /brokers, a page of processes at a time.
func (h *Brokers) List(c *gin.Context) {
	l := i18n.From(c.Request.Context())
	p := h.page(c, l.T("brokers.title"), "brokers")
	vm := views.BrokersVM{Configured: h.Brokers != nil}
	limit, after, err := pageQuery(c)
	switch {
	case h.Brokers == nil:
	case err != nil:
		vm.Error = errorMessage(c, err, "")
		h.render(c, http.StatusUnprocessableEntity, p, views.BrokersPage(vm))
		return
	default:
		list, err := h.Brokers.List(c.Request.Context(), brokersAfresh(c, after))
		if err != nil {
			vm.Error = l.T("brokers.read_failed", "Error", sayErr(l, err))
			break
		}
		pg, err := brokers.PageOf(list, limit, after)
		if err != nil {
			vm.Error = errorMessage(c, err, "")
			h.render(c, http.StatusUnprocessableEntity, p, views.BrokersPage(vm))
			return
		}
		vm.Rows = brokerRows(l, pg.Brokers)
		vm.Failures = sayFailures(l, list.Failures)
		vm.CheckedAt, vm.CheckedISO = views.TimeUTC(list.CheckedAt), views.ISO(list.CheckedAt)
		vm.Total, vm.Shown = pg.Total, shownThrough(c, len(pg.Brokers))
		if pg.Next != "" {
			vm.NextURL = listPageURL("/brokers", limit, pg.Next, vm.Shown, false)
			vm.MoreURL = listPageURL("/brokers", limit, pg.Next, vm.Shown, true)
		}
		if after != "" {
			vm.FirstURL = "/brokers"
		}
		if c.Query("rows") == "1" && isHTMX(c) {
			h.renderFragment(c, http.StatusOK, views.BrokerRowsFragment(vm))
			return
		}
	}
	h.render(c, http.StatusOK, p, views.BrokersPage(vm))
}

// brokersAfresh says whether the broker list must be read afresh: for its first page,
// where a broker that failed a moment ago must show, and on Refresh. Only the pages
// after it (a cursor) are cut from the copy read within brokers.ListTTL, so that their
// rows neither repeat nor go missing.
func brokersAfresh(c *gin.Context, cursor string) bool {
	refresh, _ := queryFlag(c.Query("refresh"))
	return refresh || cursor == ""
}

// ListAPI answers GET /api/v1/brokers[?refresh=&limit=&cursor=].
func (h *Brokers) ListAPI(c *gin.Context) {
	if h.Brokers == nil {
		h.Fail(c, errNoCluster())
		return
	}
	limit, after, err := pageQuery(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	l, err := h.Brokers.List(c.Request.Context(), brokersAfresh(c, after))
	if err != nil {
		h.Fail(c, err)
		return
	}
	pg, err := brokers.PageOf(l, limit, after)
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, BrokersJSON{Brokers: pg.Brokers, Total: pg.Total, Next: pg.Next, CheckedAt: l.CheckedAt, Failures: l.Failures,
		Errors: brokerErrorsJSON(l.Failures)})
}

func (h *Brokers) detail(c *gin.Context) (*brokers.Detail, bool) {
	name := c.Param("name")
	if !cluster.ValidName(name) {
		h.Fail(c, badBrokerName(name))
		return nil, false
	}
	if h.Brokers == nil {
		h.Fail(c, errNoCluster())
		return nil, false
	}
	d, err := h.Brokers.Detail(c.Request.Context(), name)
	if err != nil {
		h.Fail(c, err)
		return nil, false
	}
	return d, true
}

// Show renders /brokers/{name}.
func (h *Brokers) Show(c *gin.Context) {
	d, ok := h.detail(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	vm := views.BrokerVM{Name: d.Name, Cluster: d.Cluster, Failures: sayFailures(l, d.Failures),
		CheckedAt: views.TimeUTC(d.CheckedAt), CheckedISO: views.ISO(d.CheckedAt), ConfigFilter: strings.TrimSpace(c.Query("config"))}
	if h.Live {
		vm.WSURL = "/ws/brokers/" + d.Name
	}
	vm.Diagnosis = brokerDiagnosisVM(l, h.Diagnosis, d.Name)
	for _, m := range d.Members {
		vm.Rows = append(vm.Rows, brokerRows(l, []brokers.Runtime{m.Runtime})...)
		cfg := views.BrokerConfigVM{Role: m.Role, Addr: m.Addr, ID: strconv.FormatInt(m.ID, 10), Missing: m.Config == nil, Keys: len(m.Config)}
		for _, sec := range brokers.Sectioned(m.Config, vm.ConfigFilter) {
			vs := views.BrokerConfigSection{ID: sec.Section}
			for _, e := range sec.Entries {
				vs.Entries = append(vs.Entries, views.BrokerConfigEntry{Key: e.Key, Value: e.Value, Masked: e.Masked})
			}
			cfg.Shown += len(vs.Entries)
			cfg.Sections = append(cfg.Sections, vs)
		}
		vm.Configs = append(vm.Configs, cfg)
	}
	h.render(c, http.StatusOK, h.page(c, l.T("broker.page", "Name", views.Cut(d.Name)), "brokers"), views.BrokerPage(vm))
}

// ShowAPI answers GET /api/v1/brokers/{name}.
func (h *Brokers) ShowAPI(c *gin.Context) {
	d, ok := h.detail(c)
	if !ok {
		return
	}
	c.JSON(http.StatusOK, BrokerJSON{Name: d.Name, Cluster: d.Cluster, Members: d.Members, CheckedAt: d.CheckedAt, Failures: d.Failures,
		Errors: brokerErrorsJSON(d.Failures)})
}

func brokerRows(l *i18n.Localizer, rs []brokers.Runtime) []views.BrokerProcessRow {
	out := make([]views.BrokerProcessRow, 0, len(rs))
	for _, r := range rs {
		row := views.BrokerProcessRow{Cluster: r.Cluster, Name: r.Name, URL: views.BrokerURL(r.Name), ID: strconv.FormatInt(r.ID, 10),
			Role: r.Role, Addr: r.Addr, Version: r.Version, PutTPS: views.Rate(r.PutTPS), GetTPS: views.Rate(r.GetTPS),
			CommitLog: views.Thousands(r.CommitLogMinOffset) + " – " + views.Thousands(r.CommitLogMaxOffset),
			Disk:      views.Percent(r.DiskRatio), PageLock: strconv.FormatInt(r.PageCacheLockMs, 10) + " ms",
			Dispatch: views.Bytes(r.DispatchBehindBytes), Error: r.Error, Gone: r.Gone}
		if r.Say.ID != "" {
			row.Error = l.Say(r.Say)
		}
		row.Started, row.StartedISO = msTime(r.StartedAt)
		out = append(out, row)
	}
	return out
}
