package server

import (
	"net/http"

	"rmqconsole/handlers"
	"rmqconsole/rights"
)

// groupRoutes are the pages and API of consumer groups, the live group websocket, and
// the alert rules.
func (a *clusterApp) groupRoutes(env *handlers.Env) []route {
	s := a.svc
	list := &handlers.GroupsList{Env: env, Lag: a.store}
	show := &handlers.GroupShow{Env: env, Events: a.store, Lag: a.store, Alerts: s.alerts,
		Sampling: handlers.LagSampling{Every: a.cfg.MetricsInterval, Keep: a.cfg.LagRetention}}
	lagHistory := &handlers.GroupLagHistory{Env: env, History: a.store}
	trend := &handlers.GroupTrend{Env: env, History: a.store, Sampling: show.Sampling}
	live := &handlers.GroupLive{Env: env, Quota: a.liveViews}
	history := &handlers.GroupRebalances{Env: env, Events: a.store}
	client := &handlers.GroupClient{Env: env}
	alerts := &handlers.Alerts{Env: env, Rules: s.alerts}
	diag := &handlers.Diagnosis{Env: env}
	if s.diagnosis != nil {
		diag.Engine, show.Diagnosis = s.diagnosis, s.diagnosis
	}
	if s.groups != nil {
		list.Groups, show.Groups, client.Clients = s.groups, s.groups, s.groups
		show.Live, live.Live, live.Views = s.groupsLive, s.groupsLive, s.liveViews
		show.DeadLetters = s.deadLetters
	}
	return []route{
		{http.MethodGet, "/groups", list.Show, read},
		{http.MethodGet, "/groups/:group", show.Show, read},
		{http.MethodGet, "/groups/:group/trend", trend.Show, read},
		{http.MethodGet, "/groups/:group/clients/:clientId", client.Show, read},
		{http.MethodGet, "/ws/groups/:group", live.Serve, read},
		{http.MethodGet, "/api/v1/groups", list.API, read},
		{http.MethodGet, "/api/v1/groups/:group", show.API, read},
		{http.MethodGet, "/api/v1/groups/:group/rebalances", history.API, read},
		{http.MethodGet, "/api/v1/groups/:group/lag-history", lagHistory.API, read},
		{http.MethodGet, "/api/v1/groups/:group/clients/:clientId", client.API, read},
		{http.MethodGet, "/api/v1/groups/:group/diagnosis", diag.GroupAPI, read},
		{http.MethodGet, "/api/v1/diagnosis", diag.API, read},

		{http.MethodGet, "/alerts", alerts.Show, read},
		{http.MethodPost, "/alerts", alerts.Create, change.on(rights.ManageAlerts)},
		{http.MethodPost, "/alerts/:id/delete", alerts.Delete, change.on(rights.ManageAlerts)},
		{http.MethodGet, "/api/v1/alert-rules", alerts.List, read},
		{http.MethodPost, "/api/v1/alert-rules", alerts.CreateAPI, change.on(rights.ManageAlerts)},
		{http.MethodDelete, "/api/v1/alert-rules/:id", alerts.DeleteAPI, change.on(rights.ManageAlerts)},
	}
}
