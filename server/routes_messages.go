package server

import (
	"net/http"

	"rmqconsole/handlers"
)

// messageRoutes are the pages and API of messages, dead letters sent back to their
// topics, and a message consumed again on one client.
func (a *clusterApp) messageRoutes(env *handlers.Env) []route {
	h := &handlers.Messages{Env: env, Heavy: handlers.NewHeavyGate(a.cfg.MaxHeavyQueries),
		Decoders: a.svc.decoding, ClusterName: a.cc.Name, Reads: a.readAudit(), Masking: a.cfg.Masking}
	a.registry.MustRegister(heavyMetrics{h.Heavy})
	dl := &handlers.DeadLetters{Env: env}
	dlq := &handlers.DeadLetterList{Env: env}
	if s := a.svc; s.lookup != nil {
		h.Lookup, dl.Service, dlq.Service = s.lookup, s.deadLetters, s.deadLetters
		h.Tails = s.lookup
	}
	return []route{
		{http.MethodGet, "/messages", h.Search, readBodies},
		{http.MethodGet, "/messages/export", h.Export, readBodies},
		{http.MethodGet, "/messages/:id", h.Show, read},
		{http.MethodGet, "/messages/:id/body", h.Body, read},
		// The send form of another topic, filled from the message: a read, as every page
		// is; sending it is the change.
		{http.MethodGet, "/messages/:id/copy", h.Copy, read},
		{http.MethodGet, "/api/v1/messages", h.API, readBodies},
		{http.MethodGet, "/api/v1/messages/:id", h.ShowAPI, read},
		{http.MethodGet, "/api/v1/messages/:id/trace", h.TraceAPI, read},
		// A deep scan streamed to its page; it holds a heavy-query slot while it runs.
		{http.MethodGet, "/ws/messages/scan", h.ScanWS, readBodies},
		// A topic's live tail and its page (beside the topic's page, but served by the
		// message handler, whose heavy-query gate one tail of a topic holds while it runs).
		{http.MethodGet, "/ws/topics/:topic/tail", h.TailWS, readBodies},
		{http.MethodGet, "/topics/:topic/tail", h.TailPage, readBodies},

		// Every group's dead-letter topic, newest arrivals first.
		{http.MethodGet, "/dead-letters", dlq.Show, read},
		{http.MethodGet, "/api/v1/dead-letters", dlq.API, read},

		// Dead letters back to their original topics: one, or all a search showed.
		{http.MethodPost, "/messages/resend", dl.ResendAll, resend},
		{http.MethodPost, "/messages/:id/resend", dl.Resend, resend},
		{http.MethodPost, "/api/v1/messages/resend", dl.ResendAllAPI, resend},
		{http.MethodPost, "/api/v1/messages/:id/resend", dl.ResendAPI, resend},

		{http.MethodPost, "/messages/:id/consume-directly", h.ConsumeDirectly, consumeAgain},
		{http.MethodPost, "/api/v1/messages/:id/consume-directly", h.ConsumeDirectlyAPI, consumeAgain},
	}
}
