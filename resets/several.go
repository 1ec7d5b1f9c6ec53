package resets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// ModeSeveral is the mode of the audit entry that sums up a reset of several groups;
// each group's reset has its own entry, in the mode asked.
const ModeSeveral = "several"

// MaxSeveralGroups bounds the groups one reset of several groups covers.
const MaxSeveralGroups = 100

// SeveralRequest resets several groups of one topic alike: the groups named, or those
// consuming the topic whose name matches GroupPattern (a shell pattern: "orders-*").
type SeveralRequest struct {
	Topic        string
	Groups       []string
	GroupPattern string
	// Request holds the mode, its fields and the reason; its Group and Topic are set
	// for each group.
	Request Request
	// MaySee, when set, says which groups a refusal may name: a pattern that matches
	// nothing lists the topic's groups the caller may see, not the others.
	MaySee func(group string) bool `json:"-"`
}

// GroupPlan is one group of a reset of several groups: its plan, or why it cannot be
// reset (a system group, clients online where the mode needs them offline, ...).
type GroupPlan struct {
	Group string
	Plan  *Plan
	Err   error
}

// SeveralPlan is a previewed reset of several groups. ApplySeveral takes its ID.
type SeveralPlan struct {
	ID      string
	Request SeveralRequest
	Groups  []GroupPlan
	At      time.Time
}

func (p *SeveralPlan) previewed() (string, time.Time) { return p.ID, p.At }

// Moves counts the groups that will be reset and the queues whose offset moves.
func (p *SeveralPlan) Moves() (groups, queues int) {
	for _, g := range p.Groups {
		if g.Plan != nil {
			groups++
			queues += g.Plan.Changes()
		}
	}
	return groups, queues
}

// Refused counts the groups that will not be reset.
func (p *SeveralPlan) Refused() int {
	n := 0
	for _, g := range p.Groups {
		if g.Plan == nil {
			n++
		}
	}
	return n
}

// Action names what applying does, for its one confirmation: "Reset 3 groups (12
// queues move) of topic T to ...".
func (p *SeveralPlan) Action() i18n.Message {
	g, q := p.Moves()
	return i18n.M("resets.several.action", "Groups", g, "Queues", q, "Topic", p.Request.Topic, "To", p.Request.Request.Describe())
}

// check finds what is wrong with the request as a whole before any broker is asked;
// what concerns one group only (a system group) is that group's refusal in the plan.
func (r SeveralRequest) check(now time.Time) fault.List {
	var errs fault.List
	if r.Topic == "" {
		errs.Invalid("topic", "resets.input.several.no_topic")
	}
	switch {
	case len(r.Groups) == 0 && r.GroupPattern == "":
		errs.Invalid("groups", "resets.input.several.no_groups")
	case len(r.Groups) > 0 && r.GroupPattern != "":
		errs.Invalid("groupPattern", "resets.input.several.both")
	case len(r.Groups) > MaxSeveralGroups:
		errs.Invalid("groups", "resets.input.several.too_many", "N", len(r.Groups), "Max", MaxSeveralGroups)
	case r.GroupPattern != "":
		if _, err := path.Match(r.GroupPattern, ""); err != nil || len(r.GroupPattern) > rocketmq.MaxNameLen {
			errs.Invalid("groupPattern", "resets.input.several.bad_pattern", "Pattern", cut(r.GroupPattern, 80))
		}
	}
	if r.Request.Mode == ModeUndo {
		errs.Invalid("mode", "resets.input.several.undo")
	}
	// The mode's own fields, checked once for every group: any valid name stands in
	// for the groups.
	one := r.Request
	one.Group, one.Topic = "G", r.Topic
	for _, e := range one.Check(now) {
		if e.Field != "group" {
			errs.Add(e)
		}
	}
	return errs
}

// groups are the groups the request covers, in order, without repeats: those named, or
// those consuming the topic on any of its brokers whose name matches the pattern.
func (s *Service) severalGroups(ctx context.Context, r SeveralRequest) ([]string, error) {
	if r.GroupPattern == "" {
		var out []string
		for _, g := range r.Groups {
			if g = strings.TrimSpace(g); g != "" && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
		if len(out) == 0 {
			return nil, fault.InvalidField("groups", "resets.input.several.no_groups")
		}
		return out, nil
	}
	route, err := s.cluster.Route(ctx, r.Topic)
	if errors.Is(err, rocketmq.ErrTopicNotFound) {
		return nil, fault.InvalidField("topic", "resets.input.several.no_such_topic", "Topic", r.Topic)
	}
	if err != nil {
		return nil, wrapf(err, "read the route of topic %q", r.Topic)
	}
	fo := s.cluster.Fanout(ctx)
	lists := cluster.EachRead(fo, route.Brokers, "consumer groups", func(ctx context.Context, addr string) ([]string, error) {
		return s.admin.TopicConsumerGroups(ctx, addr, r.Topic)
	})
	if failed := fo.Wait(); len(failed) == len(route.Brokers) && len(failed) > 0 {
		return nil, wrapf(failures(failed), "list the consumer groups of topic %q", r.Topic)
	}
	seen := map[string]bool{}
	for _, gs := range lists {
		for _, g := range gs {
			seen[g] = true
		}
	}
	var all, out []string
	for g := range seen {
		if r.MaySee == nil || r.MaySee(g) {
			all = append(all, g)
		}
		if ok, _ := path.Match(r.GroupPattern, g); ok {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		slices.Sort(all)
		return nil, fault.InvalidField("groupPattern", "resets.input.several.no_match", "Pattern", r.GroupPattern, "Topic", r.Topic,
			"Groups", cut(strings.Join(all, ", "), 400))
	}
	if len(out) > MaxSeveralGroups {
		return nil, fault.InvalidField("groupPattern", "resets.input.several.too_many", "N", len(out), "Max", MaxSeveralGroups)
	}
	return out, nil
}

// PlanSeveral previews a reset of several groups: one plan per group, each kept as a
// preview of its own, or the reason that group cannot be reset. It changes nothing.
// Bad input common to every group is a fault.Invalid, as for Plan.
func (s *Service) PlanSeveral(ctx context.Context, r SeveralRequest) (*SeveralPlan, error) {
	r.Topic, r.GroupPattern = strings.TrimSpace(r.Topic), strings.TrimSpace(r.GroupPattern)
	if errs := r.check(s.now()); len(errs) > 0 {
		return nil, errs
	}
	if s.admin == nil {
		return nil, errNoCluster()
	}
	groups, err := s.severalGroups(ctx, r)
	if err != nil {
		return nil, err
	}
	var found *foundMessage
	if r.Request.Mode == ModeMessage { // one message, whatever the group: read it once
		req := r.Request
		req.Topic = r.Topic
		f := s.lookupMessage(ctx, req)
		found = &f
	}
	p := &SeveralPlan{ID: newID(), Request: r, At: s.now(), Groups: make([]GroupPlan, len(groups))}
	var wg sync.WaitGroup
	limit := make(chan struct{}, 4) // a few groups at a time: each preview reads every queue
	for i, g := range groups {
		p.Groups[i].Group = g
		wg.Go(func() {
			limit <- struct{}{}
			defer func() { <-limit }()
			req := r.Request
			req.Group, req.Topic = g, r.Topic
			p.Groups[i].Plan, p.Groups[i].Err = s.planKept(ctx, req, found)
		})
	}
	wg.Wait()
	s.several.put(p)
	return p, nil
}

// SeveralConfirmation is the go-ahead for a previewed reset of several groups.
type SeveralConfirmation struct {
	PlanID    string
	Confirmed bool
	// Reason, when set, replaces the preview's.
	Reason string
	Who    Who
	// May, when set, is asked about every group of the preview before any is reset: an
	// error refuses the whole apply (the caller's rights may not cover a group of a
	// preview someone else made).
	May func(group string) error
}

// GroupOutcome is how one group of a reset of several groups went: its audit entry
// (when one was written) or why it was not reset.
type GroupOutcome struct {
	Group string
	Entry *store.AuditEntry
	Err   error
}

// SeveralResult is an applied reset of several groups: the summary entry linking every
// group's entry, and each group's outcome.
type SeveralResult struct {
	Summary *store.AuditEntry
	Groups  []GroupOutcome
}

// ApplySeveral applies a previewed reset of several groups, group by group, each as
// Apply does (its own audit entry, its own checks that the preview still holds). A group
// that fails does not stop the others. The summary entry, written last, names every
// group's entry and which groups were not reset, and why.
func (s *Service) ApplySeveral(ctx context.Context, c SeveralConfirmation) (*SeveralResult, error) {
	ctx = context.WithoutCancel(ctx)
	var errs fault.List
	if c.PlanID == "" {
		errs.Invalid("planId", "resets.input.no_plan")
	}
	if !c.Confirmed {
		errs.Invalid("confirm", "resets.input.confirm")
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if s.admin == nil {
		return nil, errNoCluster()
	}
	// Asked before the preview is taken, so a refused apply leaves it to its maker.
	if p, ok := s.several.peek(c.PlanID, s.now()); ok && c.May != nil {
		for _, g := range p.Groups {
			if err := c.May(g.Group); err != nil {
				return nil, err
			}
		}
	}
	p, found, expired, err := s.several.take(c.PlanID, s.now())
	switch {
	case err != nil:
		return nil, fmt.Errorf("read preview %s to apply it (nothing was changed): %w", c.PlanID, err)
	case !found:
		return nil, reject(i18n.M("resets.conflict.unknown_preview"), &Rejected{})
	case expired:
		return nil, reject(i18n.M("resets.conflict.expired", "TTL", s.previewTTL.String()), &Rejected{})
	}
	res := &SeveralResult{}
	var links []SeveralLink
	var failed []i18n.Message
	applied := 0
	for _, g := range p.Groups {
		out := GroupOutcome{Group: g.Group, Err: g.Err}
		if g.Plan != nil {
			req := g.Plan.Request
			if c.Reason != "" {
				req.Reason = c.Reason
			}
			out.Entry, out.Err = s.Apply(ctx, Confirmation{PlanID: g.Plan.ID, Request: req, Confirmed: true, Who: c.Who})
		}
		l := SeveralLink{Group: g.Group, Status: string(store.AuditRefused)}
		if out.Entry != nil {
			l.AuditID, l.Status = out.Entry.ID, string(out.Entry.Status)
		}
		var rej *Rejected
		if errors.As(out.Err, &rej) && rej.EntryID > 0 {
			l.AuditID = rej.EntryID
		}
		switch {
		case out.Err == nil && out.Entry != nil && out.Entry.Status == store.AuditApplied:
			applied++
		default:
			why := errorMessage(out.Err)
			if out.Err == nil && out.Entry != nil {
				why = i18n.M("resets.several.group_status", "Status", string(out.Entry.Status), "ID", out.Entry.ID)
				l.Status = string(out.Entry.Status)
			}
			l.Error = why.String()
			failed = append(failed, i18n.M("resets.several.group_failed", "Group", g.Group, "Why", why))
		}
		links = append(links, l)
		res.Groups = append(res.Groups, out)
	}
	r := p.Request.Request
	params := map[string]any{"several": p.ID, "mode": string(r.Mode), "params": r.Params(), "groups": links}
	if p.Request.GroupPattern != "" {
		params["groupPattern"] = p.Request.GroupPattern
	}
	sum := &store.AuditEntry{
		StartedAt: p.At, Actor: c.Who.Actor, ActorAddr: c.Who.Addr, Cluster: s.nameServers, Topics: []string{p.Request.Topic},
		Mode: ModeSeveral, Params: mustJSON(params), Reason: r.Reason, FinishedAt: s.now(),
	}
	if c.Reason != "" {
		sum.Reason = c.Reason
	}
	switch {
	case len(failed) == 0:
		sum.Status = store.AuditApplied
	case applied > 0:
		sum.Status = store.AuditPartial
	default:
		sum.Status = store.AuditFailed
	}
	if len(failed) > 0 {
		sum.Error = i18n.TextOf(i18n.M("resets.several.failed", "N", len(failed), "Of", len(p.Groups), "Groups", i18n.Series(i18n.ListSemicolon, failed...)))
	}
	if err := s.audit.Record(ctx, sum); err != nil {
		s.log.Error("summary of a reset of several groups not recorded", "topic", p.Request.Topic, "err", err)
		return res, fault.Wrap(err, fault.Unavailable, "resets.unrecorded", "ID", 0, "Error", errorMessage(err)).Because("audit_unavailable")
	}
	res.Summary = sum
	return res, nil
}

// SeveralLinks are the entries a summary entry links: group and audit id (0 for a group
// refused before any entry was written), with status and error.
func SeveralLinks(e *store.AuditEntry) []SeveralLink {
	if e.Mode != ModeSeveral {
		return nil
	}
	var p struct {
		Groups []SeveralLink `json:"groups"`
	}
	if err := json.Unmarshal(e.Params, &p); err != nil {
		return nil
	}
	return p.Groups
}

// SeveralLink is one group of a summary entry.
type SeveralLink struct {
	Group   string `json:"group"`
	AuditID int64  `json:"auditId,omitempty"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
}

// severalJSON is a SeveralPlan as kept in the database: each group's plan as a preview
// of one group is, its refusal as the fault errors it is made of.
type severalJSON struct {
	ID      string
	Request SeveralRequest
	At      time.Time
	Groups  []groupJSON
}

type groupJSON struct {
	Group string
	Plan  json.RawMessage `json:",omitempty"`
	// Err is the refusal's English; Faults its fault errors, with their sentences as
	// i18n.Encode writes them, to be said in the language of whoever reads them.
	Err    string      `json:",omitempty"`
	Faults []faultJSON `json:",omitempty"`
}

type faultJSON struct {
	Code                fault.Code
	Reason, Field, Says string
}

func encodeSeveralPlan(p *SeveralPlan) ([]byte, error) {
	w := severalJSON{ID: p.ID, Request: p.Request, At: p.At, Groups: make([]groupJSON, len(p.Groups))}
	for i, g := range p.Groups {
		w.Groups[i] = groupJSON{Group: g.Group, Err: errText(g.Err)}
		if g.Plan != nil {
			b, err := encodePlan(g.Plan)
			if err != nil {
				return nil, fmt.Errorf("keep the plan of group %q: %w", g.Group, err)
			}
			w.Groups[i].Plan = b
		}
		for _, fe := range fault.All(g.Err) {
			says, err := i18n.Encode(i18n.TextOf(fe.Msg))
			if err != nil {
				return nil, fmt.Errorf("keep the refusal of group %q: %w", g.Group, err)
			}
			w.Groups[i].Faults = append(w.Groups[i].Faults, faultJSON{fe.Code, fe.Reason, fe.Field, says})
		}
	}
	return json.Marshal(w)
}

func decodeSeveralPlan(b []byte) (*SeveralPlan, error) {
	var w severalJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	p := &SeveralPlan{ID: w.ID, Request: w.Request, At: w.At, Groups: make([]GroupPlan, len(w.Groups))}
	for i, g := range w.Groups {
		p.Groups[i] = GroupPlan{Group: g.Group, Err: errOf(g.Err)}
		if len(g.Plan) > 0 {
			plan, err := decodePlan(g.Plan)
			if err != nil {
				return nil, fmt.Errorf("the plan of group %q: %w", g.Group, err)
			}
			p.Groups[i].Plan = plan
		}
		var fes fault.List
		for _, f := range g.Faults {
			if says := i18n.Decode(f.Says); len(says) == 1 {
				fes = append(fes, &fault.Error{Code: f.Code, Reason: f.Reason, Field: f.Field, Msg: says[0]})
			}
		}
		switch {
		case len(fes) == 1:
			p.Groups[i].Err = fes[0]
		case len(fes) > 1:
			p.Groups[i].Err = fes
		}
	}
	return p, nil
}
