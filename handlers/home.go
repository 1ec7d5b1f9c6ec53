package handlers

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/alerts"
	"rmqconsole/brokers"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

// Home is the cluster overview: / and GET /api/v1/cluster.
type Home struct {
	*Env
	// Overview reads the cluster; nil when no NameServer is configured.
	Overview func(ctx context.Context) (*brokers.Overview, error)
	// Groups counts the groups online and with lag for the overview's card; nil
	// without a cluster.
	Groups GroupLister
	// Clusters reads every configured cluster's health; the overview lists them when
	// there are several.
	Clusters ClusterList
	// Alerts lists the alerts firing now, which the overview leads with; nil: none.
	Alerts interface {
		FiringNow(ctx context.Context) ([]alerts.FiringAlert, error)
	}
	// Diagnosis is what is wrong now, listed under the firing alerts; nil: none.
	Diagnosis Findings
}

// homeGroupsWait bounds how long the overview waits for the group list, which asks
// every group; past it the card links to the list instead of counting.
const homeGroupsWait = 2 * time.Second

// Show renders the overview page. A broker that does not answer is shown as such; the
// page still renders.
func (h *Home) Show(c *gin.Context) {
	l := i18n.From(c.Request.Context())
	vm := views.HomeVM{Configured: h.Overview != nil}
	if h.Overview != nil {
		ov, err := h.Overview(c.Request.Context())
		if ov != nil {
			vm = homeVM(l, ov)
		}
		if err != nil && ov == nil {
			vm.Errors = append(vm.Errors, err.Error())
		}
		h.countGroups(c, &vm)
		vm.Diagnosis = overviewDiagnosisVM(c, l, h.Diagnosis)
	}
	if h.Clusters != nil && h.Cluster != nil {
		vm.Clusters = h.clusterRows(l, h.Clusters(c.Request.Context()))
	}
	var p views.Page
	if h.Alerts != nil {
		// The navigation's count is the list the page leads with: one read for both.
		vm.Firing, vm.FiringError = firingRows(c.Request.Context(), l, func(ctx context.Context) ([]alerts.FiringAlert, error) {
			firing, err := h.Alerts.FiringNow(ctx)
			return visibleFiring(c, firing), err
		})
		p = h.chrome(c, l.T("home.page"), "home")
		p.Firing = len(vm.Firing)
	} else {
		p = h.page(c, l.T("home.page"), "home")
	}
	h.render(c, http.StatusOK, p, views.HomePage(vm))
}

// API answers GET /api/v1/cluster.
func (h *Home) API(c *gin.Context) {
	if h.Overview == nil {
		h.Fail(c, errNoCluster())
		return
	}
	ov, err := h.Overview(c.Request.Context())
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, ov)
}

// countGroups fills the groups card from the (cached) group list, leaving it a link
// when the list cannot be read in time.
func (h *Home) countGroups(c *gin.Context, vm *views.HomeVM) {
	if h.Groups == nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), homeGroupsWait)
	defer cancel()
	l, err := h.Groups.List(ctx, false)
	if err != nil {
		h.Log.Debug("overview: group list", "err", err)
		return
	}
	vm.GroupsKnown = true
	for _, g := range visibleGroups(c, l).Groups { // count only the groups the caller may see
		if g.System {
			continue
		}
		if g.Online {
			vm.GroupsOnline++
		}
		if g.TotalLag != nil && *g.TotalLag > 0 {
			vm.GroupsLagging++
		}
	}
}

func homeVM(l *i18n.Localizer, ov *brokers.Overview) views.HomeVM {
	vm := views.HomeVM{
		Configured: true,
		Topics:     ov.Topics,
		SysTopics:  ov.SystemTopics,
		Errors:     ov.Errors,
		CheckedAt:  views.TimeUTC(ov.CheckedAt),
	}
	for _, ns := range ov.NameServers {
		row := views.NameServerRow{
			Addr: ns.Addr, OK: ns.OK, Error: ns.Error, Latency: ns.Latency.Round(100 * time.Microsecond).String(),
		}
		if ns.Say.ID != "" {
			row.Error = l.Say(ns.Say)
		}
		vm.NameServers = append(vm.NameServers, row)
	}
	var put float64
	for _, b := range ov.Brokers {
		put += b.PutTPS
		version := b.Version
		if version != "" { // the broker's own "V5_3_3", said as people do
			version = rocketmq.BrokerVersion{Name: version}.String()
		}
		row := views.BrokerRow{
			Cluster: b.Cluster, Name: b.Name, ID: b.ID, Addr: b.Addr, Role: b.Role, Version: version,
			PutTPS: views.Rate(b.PutTPS), GetTPS: views.Rate(b.GetTPS),
			Disk: views.Percent(b.DiskRatio), DiskHigh: b.DiskRatio >= 0.85, Error: b.Error, Refused: b.Refused, Gone: b.Gone,
		}
		if b.Refused && b.Refusal.ID != "" {
			row.Error = l.Say(b.Refusal)
		} else if b.Say.ID != "" {
			row.Error = l.Say(b.Say)
		}
		if b.ReplicationLag != nil {
			row.Behind = views.Bytes(*b.ReplicationLag)
		}
		vm.Brokers = append(vm.Brokers, row)
	}
	if len(ov.Problems) == len(ov.Errors) {
		vm.Errors = nil
		for _, m := range ov.Problems {
			vm.Errors = append(vm.Errors, l.Say(m))
		}
	}
	vm.PutTPS = views.Rate(put)
	return vm
}

// firingRows reads the alerts firing now for the overview; a failed read is said, not
// taken for calm.
func firingRows(ctx context.Context, l *i18n.Localizer, read func(context.Context) ([]alerts.FiringAlert, error)) ([]views.FiringRow, string) {
	ctx, cancel := context.WithTimeout(ctx, firingReadTimeout)
	defer cancel()
	firing, err := read(ctx)
	if err != nil {
		return nil, l.T("home.firing.readError", "Error", err.Error())
	}
	now := time.Now()
	rows := make([]views.FiringRow, 0, len(firing))
	for _, f := range firing {
		value := l.T("home.unknown")
		if f.State.Value != nil {
			value = strconv.FormatInt(*f.State.Value, 10)
		}
		what := l.T("home.firing.what", "Metric", l.T("alerts.metric."+f.Rule.Metric), "Value", value, "Threshold", f.Rule.Threshold)
		if alerts.IsFinding(f.Rule.Metric) {
			what = l.T("alerts.metric." + f.Rule.Metric)
		}
		rows = append(rows, views.FiringRow{Rule: alerts.RuleName(l, f.Rule), Group: f.State.Group, URL: alertSubjectURL(f.Rule, f.State.Group),
			What:  what,
			Since: views.TimeUTC(f.State.FiredAt), For: views.DurationIn(l, now.Sub(f.State.FiredAt).Round(time.Second))})
	}
	return rows, ""
}
