package server

import (
	"net/http"

	"rmqconsole/handlers"
)

// brokerRoutes are the pages and API of brokers, and the broker page's live chart.
func (a *clusterApp) brokerRoutes(env *handlers.Env) []route {
	h := &handlers.Brokers{Env: env}
	ws := &handlers.BrokerLive{Env: env, Quota: a.liveViews}
	if s := a.svc; s.brokers != nil {
		h.Brokers, h.Live, ws.Hub = s.brokers, true, s.brokersLive
	}
	if s := a.svc; s.diagnosis != nil {
		h.Diagnosis = s.diagnosis
	}
	return []route{
		{http.MethodGet, "/brokers", h.List, read},
		{http.MethodGet, "/brokers/:name", h.Show, read},
		{http.MethodGet, "/api/v1/brokers", h.ListAPI, read},
		{http.MethodGet, "/api/v1/brokers/:name", h.ShowAPI, read},
		{http.MethodGet, "/ws/brokers/:name", ws.Serve, read},
	}
}
