package server

import (
	"net/http"

	"rmqconsole/handlers"
	"rmqconsole/rights"
)

// topicRoutes are the pages and API of topics. Changes are an operator's, each audited
// by the service.
func (a *clusterApp) topicRoutes(env *handlers.Env) []route {
	h := &handlers.Topics{Env: env}
	send := &handlers.TopicSend{Env: env}
	dec := &handlers.TopicDecoder{Env: env, Decoding: a.svc.decoding, Masking: a.cfg.Masking, ClusterName: a.cc.Name}
	if s := a.svc; s.topics != nil {
		h.Topics, h.Viewer, h.Changes, send.Sender = s.topics, s.topics, s.topics, s.topics
	}
	return []route{
		{http.MethodGet, "/topics", h.List, read},
		{http.MethodGet, "/topics/:topic", h.Show, read},
		{http.MethodGet, "/api/v1/topics", h.ListAPI, read},
		{http.MethodGet, "/api/v1/topics/:topic", h.ShowAPI, read},
		{http.MethodPost, "/topics", h.SaveForm, change.on(rights.ManageTopics)},
		{http.MethodPost, "/topics/:topic", h.SaveForm, change.on(rights.ManageTopics)},
		{http.MethodPost, "/topics/:topic/delete", h.DeleteForm, change.on(rights.ManageTopics)},
		{http.MethodPost, "/api/v1/topics", h.SaveAPI, change.on(rights.ManageTopics)},
		{http.MethodPut, "/api/v1/topics/:topic", h.UpdateAPI, change.on(rights.ManageTopics)},
		{http.MethodDelete, "/api/v1/topics/:topic", h.DeleteAPI, change.on(rights.ManageTopics)},
		// A message sent from the console, audited by the service.
		{http.MethodPost, "/topics/:topic/messages", send.SendForm, change.on(rights.Send)},
		{http.MethodPost, "/api/v1/topics/:topic/messages", send.SendAPI, change.on(rights.Send)},
		// How the topic's bodies are read: anyone sees it, an admin sets it.
		{http.MethodGet, "/topics/:topic/decoder", dec.Show, read},
		{http.MethodPost, "/topics/:topic/decoder", dec.Post, topicDecoder},
		{http.MethodPost, "/topics/:topic/decoder/delete", dec.Remove, topicDecoder},
	}
}
