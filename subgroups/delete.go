package subgroups

import (
	"context"
	"encoding/json"
	"errors"
	"rmqconsole/i18n"
	"slices"
	"strings"
	"unicode/utf8"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Impact is what deleting a group touches, for the page that asks to confirm it.
type Impact struct {
	Group string `json:"group"`
	// Brokers are the masters that have the group.
	Brokers []string `json:"brokers"`
	// Clients are the group's online clients (client ids), as the brokers and Proxies
	// list them.
	Clients []string `json:"clients"`
	// RetryTopic and DLQTopic are the group's retry and dead-letter topics, "" when the
	// NameServers route none.
	RetryTopic string                  `json:"retryTopic,omitempty"`
	DLQTopic   string                  `json:"dlqTopic,omitempty"`
	Failures   []cluster.BrokerFailure `json:"failures"`
}

// Impact reads what deleting group would touch.
func (s *Service) Impact(ctx context.Context, group string) (*Impact, error) {
	if err := CheckGroup(group); err != nil {
		return nil, err
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	c, fails := s.read(ctx, group, brokers)
	im := &Impact{Group: group, Brokers: []string{}, Clients: []string{}, Failures: fails}
	for _, b := range c.Present() {
		im.Brokers = append(im.Brokers, b.Name)
	}
	im.Clients, im.Failures = s.clients(ctx, group, brokers, im.Failures)
	for _, t := range []struct {
		name string
		dst  *string
	}{{rocketmq.RetryTopic(group), &im.RetryTopic}, {rocketmq.DLQTopic(group), &im.DLQTopic}} {
		if _, err := s.cluster.Route(ctx, t.name); err == nil {
			*t.dst = t.name
		}
	}
	return im, nil
}

// clients lists the group's online clients on every master and Proxy.
func (s *Service) clients(ctx context.Context, group string, brokers []cluster.Broker, fails []cluster.BrokerFailure) ([]string, []cluster.BrokerFailure) {
	seen := map[string]bool{}
	f := s.cluster.Fanout(ctx)
	answers := cluster.Each(f, brokers, "connections", func(ctx context.Context, addr string) (*rocketmq.ConsumerConnection, error) {
		cc, err := s.admin.ConsumerConnections(ctx, addr, group)
		if errors.Is(err, rocketmq.ErrConsumerNotOnline) {
			return nil, nil
		}
		return cc, err
	})
	fails = append(fails, f.Wait()...)
	for _, cc := range answers {
		if cc != nil {
			for _, conn := range cc.Connections {
				seen[conn.ClientID] = true
			}
		}
	}
	proxied, pf := s.cluster.ProxyConsumers(ctx, s.admin, group)
	fails = append(fails, pf...)
	for _, p := range proxied {
		for _, conn := range p.Conns.Connections {
			seen[conn.ClientID] = true
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out, fails
}

// DeleteRequest deletes a group's settings on every master that has it.
type DeleteRequest struct {
	Group string `json:"group"`
	// Confirm must repeat the group's name.
	Confirm string `json:"confirm"`
	// RemoveOffsets also drops the group's committed offsets on the brokers.
	RemoveOffsets bool `json:"removeOffsets"`
	// Force deletes a group that has clients online.
	Force bool `json:"force"`
}

// Delete deletes the group's settings on every master that has it, audited with each
// broker's settings before. RocketMQ's own groups are refused, and so is a group with
// clients online unless Force: both refusals are recorded in the audit log. Its offsets
// stay unless RemoveOffsets; its retry and dead-letter topics stay. Each broker is read
// back: a broker that still has the group is a failed row.
func (s *Service) Delete(ctx context.Context, who Who, r DeleteRequest) (*Applied, error) {
	ctx = context.WithoutCancel(ctx)
	if err := CheckGroup(r.Group); err != nil {
		if fault.Is(err, fault.Refused) {
			s.refuse(ctx, who, ModeDelete, r.Group, map[string]any{"removeOffsets": r.RemoveOffsets, "force": r.Force}, err)
		}
		return nil, err
	}
	if r.Confirm != r.Group {
		if r.Confirm == "" {
			return nil, fault.InvalidField("confirm", "subgroups.input.confirm.missing", "Group", r.Group)
		}
		return nil, fault.InvalidField("confirm", "subgroups.input.confirm.wrong", "Typed", freetext.Quote(r.Confirm), "Group", r.Group)
	}
	if s.audit == nil {
		return nil, fault.New(fault.Unavailable, "subgroups.noaudit")
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	c, fails := s.read(ctx, r.Group, brokers)
	if len(fails) > 0 {
		return nil, unreadable(r.Group, fails)
	}
	present := c.Present()
	if len(present) == 0 {
		return nil, fault.New(fault.NotFound, "subgroups.notfound", "Group", r.Group).Because("group_not_found")
	}
	clients, cfails := s.clients(ctx, r.Group, brokers, nil)
	if len(clients) > 0 && !r.Force {
		err := fault.New(fault.Conflict, "subgroups.refused.online", "Group", r.Group, "N", len(clients), "Clients", strings.Join(first(clients, 5), ", ")).Because("clients_online")
		s.refuse(ctx, who, ModeDelete, r.Group, map[string]any{"removeOffsets": r.RemoveOffsets, "clients": clients}, err)
		return nil, err
	}
	byName := map[string]cluster.Broker{}
	for _, b := range brokers {
		byName[b.Name] = b
	}
	before, after := map[string]rocketmq.GroupDoc{}, map[string]rocketmq.GroupDoc{}
	for _, b := range present {
		before[b.Name], after[b.Name] = b.Doc, nil
	}
	var unknownClients []string
	for _, f := range cfails {
		unknownClients = append(unknownClients, f.Error())
	}
	params, _ := json.Marshal(map[string]any{"group": r.Group, "removeOffsets": r.RemoveOffsets, "force": r.Force,
		"clientsOnline": clients, "clientsUnknown": unknownClients, "before": before, "after": after})
	e := &store.AuditEntry{StartedAt: s.now(), Actor: who.Actor, ActorAddr: who.Addr, Cluster: s.ns, Group: r.Group, Mode: ModeDelete, Params: params}
	err = s.audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		rows := make([]store.AuditQueue, len(present))
		note := i18n.M("subgroups.audit.deleted")
		if r.RemoveOffsets {
			note = i18n.M("subgroups.audit.deleted_offsets")
		}
		f := s.cluster.Fanout(ctx)
		for i, b := range present {
			rows[i] = store.AuditQueue{BrokerName: b.Name, BrokerAddr: b.Addr, Method: rocketmq.CodeDeleteSubscriptionGroup.String(), Note: i18n.TextOf(note)}
			f.Go(byName[b.Name], opDelete, func(ctx context.Context, addr string) error {
				return s.admin.DeleteSubscriptionGroup(ctx, addr, r.Group, r.RemoveOffsets)
			})
		}
		markFailures(rows, f.Wait())
		back, backFails := s.read(ctx, r.Group, brokers)
		for i := range rows {
			if len(rows[i].Error) > 0 {
				continue
			}
			bc, ok := back.Broker(rows[i].BrokerName)
			switch {
			case !ok:
				rows[i].Error = i18n.TextOf(i18n.M("subgroups.audit.deleted_unread_back", "Reason", reasonOf(backFails, rows[i].BrokerName)))
			case bc.Exists():
				// A client that reconnected at once makes a broker with
				// autoCreateSubscriptionGroup on create the group again.
				rows[i].Error = i18n.TextOf(i18n.M("subgroups.audit.back_again"))
			default:
				rows[i].Note = i18n.TextOf(i18n.M("audit.row.gone", "Note", rows[i].Note))
			}
		}
		return rows, nil
	})
	if err != nil {
		return nil, s.auditFailed(err, r.Group)
	}
	return &Applied{Entry: e}, nil
}

func first(s []string, n int) []string { return s[:min(len(s), n)] }

// Bounds of what a refusal stores: anyone with the role can cause one, and the audit log
// is never pruned.
const (
	refusalTextMax = 256
	refusalMax     = 1024
)

// refuse records a refused change in the audit log. A log that cannot be written is no
// reason to answer otherwise: the refusal is answered, nothing was changed.
func (s *Service) refuse(ctx context.Context, who Who, mode, group string, params map[string]any, why error) {
	if s.audit == nil {
		return
	}
	b, _ := json.Marshal(params)
	if len(b) > refusalMax {
		b, _ = json.Marshal(map[string]any{"truncated": true})
	}
	e := &store.AuditEntry{StartedAt: s.now(), Actor: cutRunes(who.Actor, refusalTextMax), ActorAddr: cutRunes(who.Addr, refusalTextMax),
		Cluster: s.ns, Group: cutRunes(group, refusalTextMax), Mode: mode, Params: b, Status: store.AuditRefused,
		Error: store.RefusalText(why, refusalMax)}
	e.FinishedAt = e.StartedAt
	_ = s.audit.Record(ctx, e)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
