// Package masking hides what a reader without the right to read bodies must not see of
// a message: fields of JSON bodies, properties, and what regular expressions find in a
// body. Rules name topics by pattern; every answer that shows a message — pages, the
// API, exports, the live tail — shows it masked, and filters match the masked message,
// so which rows match tells nothing a masked page would not.
//
// Who reads bodies whole is decided in one place, Policy.ReadsBodies; a finer table of
// rights can answer it later without the callers changing.
package masking

import (
	"bytes"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"rmqconsole/auth"
	"rmqconsole/rocketmq"
)

// Marker is what a masked value shows instead of itself.
const Marker = "••••"

// Policy is the masking rules and who reads bodies unmasked. A nil Policy masks nothing.
type Policy struct {
	readers []auth.Role
	rules   []rule
}

// rule is one checked rule: which topics, and what of their messages is masked.
type rule struct {
	cluster, topic string
	paths          []jsonPath
	properties     []string
	patterns       []*regexp.Regexp
}

func (r *rule) covers(cluster string, topics ...string) bool {
	if r.cluster != "" && r.cluster != cluster {
		return false
	}
	for _, t := range topics {
		if ok, _ := path.Match(r.topic, t); ok {
			return true
		}
	}
	return false
}

// ReadsBodies reports whether a caller with role may read the bodies and properties of
// topic's messages on cluster unmasked. Every caller asks here: the roles of the config
// file's read_bodies answer today.
func (p *Policy) ReadsBodies(role auth.Role, cluster, topic string) bool {
	if p == nil {
		return true
	}
	return p.readsAll(role)
}

// readsAll reports whether role reads every topic's bodies unmasked: read_bodies is
// per role today, so a masker is not needed for it at all.
func (p *Policy) readsAll(role auth.Role) bool { return slices.Contains(p.readers, role) }

// Masker masks messages for one reader on one cluster.
type Masker struct {
	p       *Policy
	role    auth.Role
	cluster string
}

// For is the masker of a caller with role on cluster; nil when nothing can be masked
// for it (no rules, or a role that reads every body), so such callers pay nothing: their
// filters are not wrapped and their live tails are the unmasked ones.
func (p *Policy) For(role auth.Role, cluster string) *Masker {
	if p == nil || len(p.rules) == 0 || p.readsAll(role) {
		return nil
	}
	return &Masker{p: p, role: role, cluster: cluster}
}

// Message is m as the reader may see it, and whether anything was masked: a copy with
// the rules of its topic applied, or m itself when none applies. A retried or dead
// letter message is judged by the topic it was sent to as well as its own.
func (mk *Masker) Message(m *rocketmq.Message) (*rocketmq.Message, bool) {
	if mk == nil || m == nil {
		return m, false
	}
	sent := sentTopic(m)
	if mk.p.ReadsBodies(mk.role, mk.cluster, m.Topic) && mk.p.ReadsBodies(mk.role, mk.cluster, sent) {
		return m, false
	}
	var applied []*rule
	for i := range mk.p.rules {
		if r := &mk.p.rules[i]; r.covers(mk.cluster, m.Topic, sent) {
			applied = append(applied, r)
		}
	}
	if len(applied) == 0 {
		return m, false
	}
	var paths []jsonPath
	var patterns []*regexp.Regexp
	props := map[string]bool{}
	for _, r := range applied {
		paths = append(paths, r.paths...)
		patterns = append(patterns, r.patterns...)
		for _, p := range r.properties {
			props[p] = true
		}
	}
	out := *m
	out.Body = maskBody(m.Body, paths, patterns)
	changed := !bytes.Equal(out.Body, m.Body)
	if changed {
		// The stored body's checksum would let a reader test guesses of a masked value,
		// on any surface that shows the message.
		out.BodyCRC = 0
	}
	if len(props) > 0 && len(m.Properties) > 0 {
		hidden := false
		for k := range m.Properties {
			hidden = hidden || props[k]
		}
		if hidden {
			out.Properties = maps.Clone(m.Properties)
			for k := range out.Properties {
				if props[k] {
					out.Properties[k] = Marker
				}
			}
			changed = true
		}
	}
	if !changed {
		// Nothing of this message is covered: it is shown as it is, and says so (the
		// copy form and the checksum follow this answer).
		return m, false
	}
	return &out, true
}

// maskedView names the view every masker gives: the rules do not depend on the role, so
// all readers without the right see the same masked messages.
const maskedView = "masked"

// Reader names the view the masker gives: filters that mask carry it in their key, so
// one live tail serves every reader who sees the same, whatever the role's name.
func (mk *Masker) Reader() string { return maskedView }

// Masked is fn for filters: the message as the reader may see it.
func (mk *Masker) Masked(m *rocketmq.Message) *rocketmq.Message {
	out, _ := mk.Message(m)
	return out
}

// Body masks a body that stands for a message of topic (a body rendered by a decoder,
// shown without the message), with the rules that apply to the reader.
func (mk *Masker) Body(topic string, body []byte) ([]byte, bool) {
	out, masked := mk.Message(&rocketmq.Message{Topic: topic, Body: body})
	return out.Body, masked
}

// WholeBody reports whether body is a body masked whole: one no rule could mask in
// part, such as a binary body under JSON paths.
func WholeBody(body []byte) bool { return string(body) == Marker }

// maskBody applies JSON paths and patterns to a body. A body the paths cannot be read
// in (not JSON: text, Protobuf, anything binary) is masked whole: what cannot be found
// cannot be kept from view, so nothing of it is shown.
func maskBody(body []byte, paths []jsonPath, patterns []*regexp.Regexp) []byte {
	if len(body) == 0 || len(paths) == 0 && len(patterns) == 0 {
		// A rule of properties alone leaves the body as it was stored, byte for byte.
		return body
	}
	if len(paths) > 0 || looksJSON(body) {
		if out, ok := maskJSON(body, paths, patterns); ok {
			return out
		}
		if len(paths) > 0 {
			return []byte(Marker)
		}
	}
	for _, re := range patterns {
		body = re.ReplaceAllLiteral(body, []byte(Marker))
	}
	return body
}

// looksJSON is a cheap first look: an object or an array.
func looksJSON(body []byte) bool {
	t := bytes.TrimSpace(body)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// sentTopic is the topic a retried or dead letter message was first sent to (the
// broker keeps it in RETRY_TOPIC), else its own.
func sentTopic(m *rocketmq.Message) string {
	if orig := m.Properties["RETRY_TOPIC"]; orig != "" && (strings.HasPrefix(m.Topic, "%RETRY%") || strings.HasPrefix(m.Topic, "%DLQ%")) {
		return orig
	}
	if real := m.Properties["REAL_TOPIC"]; real != "" {
		return real
	}
	return m.Topic
}

// HidesProperty reports whether the reader sees property name of topic's messages
// masked: a search by that property (a message key in the broker's index, a tag) would
// tell by what it finds what the rows hide.
func (mk *Masker) HidesProperty(topic, name string) bool {
	if mk == nil || mk.p.ReadsBodies(mk.role, mk.cluster, topic) {
		return false
	}
	// A retry or dead letter topic holds messages of any topic its group consumes, each
	// judged by its RETRY_TOPIC: any rule of the cluster that masks name may apply.
	mixed := strings.HasPrefix(topic, "%RETRY%") || strings.HasPrefix(topic, "%DLQ%")
	for i := range mk.p.rules {
		r := &mk.p.rules[i]
		if !slices.Contains(r.properties, name) {
			continue
		}
		if r.covers(mk.cluster, topic) || mixed && (r.cluster == "" || r.cluster == mk.cluster) {
			return true
		}
	}
	return false
}
