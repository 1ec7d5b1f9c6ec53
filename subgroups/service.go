// Package subgroups manages consumer groups' subscription settings on the brokers (what
// mqadmin's updateSubGroup and deleteSubGroup do), the way the console resets offsets:
// Config reads every master's settings and where they differ; Plan previews a change
// per broker (each field's current and new value) and keeps the preview; Apply writes
// the audit entry first, re-reads each broker and refuses a preview that no longer holds,
// changes only the fields asked (every other field the broker has is sent back as it
// was), and reads the settings back. Delete removes a group's settings, refusing
// RocketMQ's own groups and, unless forced, a group with clients online.
package subgroups

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"rmqconsole/i18n"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/previews"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Admin is what the service asks RocketMQ; *rocketmq.Client implements it.
type Admin interface {
	cluster.Client
	GroupDocs(ctx context.Context, addr string) (map[string]rocketmq.GroupDoc, error)
	PutGroupDoc(ctx context.Context, addr string, doc rocketmq.GroupDoc) error
	DeleteSubscriptionGroup(ctx context.Context, addr, group string, removeOffsets bool) error
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
	ConsumerConnections(ctx context.Context, addr, group string) (*rocketmq.ConsumerConnection, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// The audit modes of subscription group changes.
const (
	ModeCreate = "group-config-create"
	ModeUpdate = "group-config-update"
	ModeDelete = "group-delete"
)

// previewKind names the service's previews.
const previewKind = "group-config"

// Options configure a Service.
type Options struct {
	// Cluster is the console's view of the cluster; nil builds one over the Admin.
	Cluster *cluster.Cluster
	// Audit records every change before it is made; without it nothing is changed.
	Audit store.ChangeAuditor
	// Previews keeps previews until applied; nil keeps them in this process.
	Previews *previews.Keeper
	// NameServers is the NameServer list the audit entries name as their cluster.
	NameServers string
	// Now is the clock (tests).
	Now func() time.Time
}

// Service reads and changes subscription groups.
type Service struct {
	admin    Admin
	cluster  *cluster.Cluster
	audit    store.ChangeAuditor
	previews *previews.Keeper
	ns       string
	now      func() time.Time
}

// New returns a Service over admin.
func New(admin Admin, o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Cluster == nil {
		o.Cluster = cluster.New(admin, cluster.Options{Now: o.Now})
	}
	if o.Previews == nil {
		o.Previews = previews.New(nil, 0, o.Now)
	}
	return &Service{admin: admin, cluster: o.Cluster, audit: o.Audit, previews: o.Previews, ns: o.NameServers, now: o.Now}
}

// Who is who asks for a change, for the audit log.
type Who struct{ Actor, Addr string }

// BrokerConfig is a group's settings on one broker's master.
type BrokerConfig struct {
	Name    string `json:"brokerName"`
	Cluster string `json:"cluster"`
	Addr    string `json:"addr"`
	Version string `json:"version"`
	Is5     bool   `json:"is5"`
	// Doc is every field the broker holds for the group; nil when it has none.
	Doc rocketmq.GroupDoc `json:"config"`
}

// Exists reports whether the broker has the group.
func (b BrokerConfig) Exists() bool { return b.Doc != nil }

// Drift is a field whose value differs between the masters that have the group.
type Drift struct {
	Field string `json:"field"`
	// Values by broker name, as pages show them.
	Values map[string]string `json:"values"`
}

// Config is a group's settings on every master that answered.
type Config struct {
	Group   string         `json:"group"`
	Brokers []BrokerConfig `json:"brokers"`
	// Drift lists the fields whose values differ between the masters that have the group.
	Drift []Drift `json:"drift"`
	// Missing names the masters without the group while others have it.
	Missing   []string                `json:"missing"`
	Failures  []cluster.BrokerFailure `json:"failures"`
	CheckedAt time.Time               `json:"checkedAt"`
}

// Present are the brokers that have the group.
func (c *Config) Present() []BrokerConfig {
	var out []BrokerConfig
	for _, b := range c.Brokers {
		if b.Exists() {
			out = append(out, b)
		}
	}
	return out
}

// Broker returns the named broker's settings.
func (c *Config) Broker(name string) (BrokerConfig, bool) {
	i := slices.IndexFunc(c.Brokers, func(b BrokerConfig) bool { return b.Name == name })
	if i < 0 {
		return BrokerConfig{}, false
	}
	return c.Brokers[i], true
}

const (
	opRead    = "subscription groups"
	opVersion = "version"
	opPut     = "update subscription group"
	opDelete  = "delete subscription group"
)

// Config reads the group's settings on every master. A master that does not answer is
// named in Failures; the others are shown.
func (s *Service) Config(ctx context.Context, group string) (*Config, error) {
	if group == "" || !cluster.ValidName(group) {
		return nil, CheckGroup(group)
	}
	brokers, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	c, fails := s.read(ctx, group, brokers)
	c.Failures = fails
	return c, nil
}

// read reads the group on brokers' masters, with their versions.
func (s *Service) read(ctx context.Context, group string, brokers []cluster.Broker) (*Config, []cluster.BrokerFailure) {
	c := &Config{Group: group, Brokers: make([]BrokerConfig, len(brokers)), Drift: []Drift{}, Missing: []string{}}
	f := s.cluster.Fanout(ctx)
	for i, b := range brokers {
		c.Brokers[i] = BrokerConfig{Name: b.Name, Cluster: b.Cluster, Addr: b.Master}
		bc := &c.Brokers[i]
		f.Go(b, opRead, func(ctx context.Context, addr string) error {
			docs, err := s.admin.GroupDocs(ctx, addr)
			if err != nil {
				return err
			}
			bc.Doc = docs[group]
			v, err := s.admin.BrokerVersion(ctx, addr)
			if err != nil {
				return err
			}
			bc.Version, bc.Is5 = v.String(), v.Is5()
			return nil
		})
	}
	fails := f.Wait()
	failed := map[string]bool{}
	for _, fl := range fails {
		failed[fl.Broker] = true
	}
	c.Brokers = slices.DeleteFunc(c.Brokers, func(b BrokerConfig) bool { return failed[b.Name] })
	c.Drift, c.Missing = drift(c.Brokers)
	c.CheckedAt = s.now()
	return c, fails
}

// drift lists the fields whose values differ between the brokers that have the group,
// and the brokers that lack it while others have it.
func drift(bs []BrokerConfig) ([]Drift, []string) {
	out, missing := []Drift{}, []string{}
	var present []BrokerConfig
	for _, b := range bs {
		if b.Exists() {
			present = append(present, b)
		} else {
			missing = append(missing, b.Name)
		}
	}
	if len(present) == 0 {
		return out, []string{}
	}
	names := map[string]bool{}
	for _, b := range present {
		for k := range b.Doc {
			names[k] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		vals := map[string]string{}
		differs := false
		for _, b := range present {
			vals[b.Name] = Text(b.Doc[name])
			if !same(b.Doc[name], present[0].Doc[name]) {
				differs = true
			}
		}
		if differs {
			out = append(out, Drift{Field: name, Values: vals})
		}
	}
	return out, missing
}

// Request is a change of a group's settings: on the named brokers, on the named
// cluster's, or (neither) on every master that has the group, or every master of the
// only cluster for a group none has.
type Request struct {
	Group       string   `json:"group"`
	BrokerNames []string `json:"brokerNames,omitempty"`
	ClusterName string   `json:"clusterName,omitempty"`
	Settings
}

// Change is one field that a change sets on a broker.
type Change struct {
	Field string `json:"field"`
	// Current is the broker's value now ("" when it has none), New the value set ("" when
	// an attribute is removed).
	Current string `json:"current"`
	New     string `json:"new"`
	// currentRaw and newRaw are the values as JSON, for the checks at apply.
	CurrentRaw json.RawMessage `json:"currentRaw,omitempty"`
	NewRaw     json.RawMessage `json:"newRaw,omitempty"`
}

// BrokerPlan is what a change does on one broker.
type BrokerPlan struct {
	Name    string `json:"brokerName"`
	Addr    string `json:"addr"`
	Version string `json:"version"`
	// Exists is set when the broker has the group now; a broker without it gets it.
	Exists  bool     `json:"exists"`
	Changes []Change `json:"changes"`
	// From names the broker whose settings a broker that lacks the group starts from
	// ("" for RocketMQ's defaults).
	From string `json:"from,omitempty"`
}

// Plan is a previewed change, kept until it is applied or expires.
type Plan struct {
	ID        string    `json:"planId"`
	At        time.Time `json:"plannedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	Group     string    `json:"group"`
	// Create is set when no broker has the group yet.
	Create  bool         `json:"create"`
	Request Request      `json:"request"`
	Brokers []BrokerPlan `json:"brokers"`
	// Drift and Missing are the group's differences between masters today.
	Drift   []Drift  `json:"drift"`
	Missing []string `json:"missing"`
}

// Changes counts the fields changed on all brokers.
func (p *Plan) Changes() int {
	n := 0
	for _, b := range p.Brokers {
		n += len(b.Changes)
	}
	return n
}

// Mode is the audit mode of the change.
func (p *Plan) Mode() string {
	if p.Create {
		return ModeCreate
	}
	return ModeUpdate
}

// BrokerNames are the brokers the change goes to.
func (p *Plan) BrokerNames() []string {
	out := make([]string, len(p.Brokers))
	for i, b := range p.Brokers {
		out[i] = b.Name
	}
	return out
}

// checkRequest finds every mistake that needs no broker.
func checkRequest(r Request) error {
	if err := CheckGroup(r.Group); err != nil {
		return err
	}
	var errs fault.List
	if r.Settings.Empty() {
		errs.Invalid("", "subgroups.input.nothing")
	}
	r.Settings.check(&errs)
	if len(r.BrokerNames) > 0 && r.ClusterName != "" {
		errs.Invalid("brokerNames", "subgroups.input.both")
	}
	for _, b := range r.BrokerNames {
		if !cluster.ValidName(b) {
			errs.Invalid("brokerNames", "subgroups.input.broker.bad", "Broker", freetext.Quote(b))
		}
	}
	if r.ClusterName != "" && !cluster.ValidName(r.ClusterName) {
		errs.Invalid("clusterName", "subgroups.input.cluster.bad", "Cluster", freetext.Quote(r.ClusterName))
	}
	return errs.Err()
}

// Plan previews a change: for each broker it goes to, every field whose value changes,
// current and new, and where the masters differ today. It changes nothing. Bad input is
// a fault.Invalid (a fault.List of every mistake), a system group fault.Refused, and a
// broker that cannot be read refuses the preview: a change must know what it changes.
func (s *Service) Plan(ctx context.Context, r Request) (*Plan, error) {
	if err := checkRequest(r); err != nil {
		return nil, err
	}
	return s.plan(ctx, r)
}

func (s *Service) plan(ctx context.Context, r Request) (*Plan, error) {
	all, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	c, fails := s.read(ctx, r.Group, all)
	targets, err := s.targets(ctx, c, all, r)
	if err != nil {
		return nil, err
	}
	if bad := failuresOf(fails, targets); len(bad) > 0 {
		return nil, unreadable(r.Group, bad)
	}
	p := &Plan{At: s.now(), Group: r.Group, Request: r, Drift: c.Drift, Missing: c.Missing, Create: true}
	var old []string
	for _, t := range targets {
		bc, _ := c.Broker(t.Name)
		if !bc.Is5 && len(r.Settings.only5()) > 0 {
			old = append(old, t.Name)
		}
		if bc.Exists() {
			p.Create = false
		}
	}
	if len(old) > 0 {
		return nil, fault.InvalidField(r.Settings.only5()[0], "subgroups.input.only5", "Fields", strings.Join(r.Settings.only5(), ", "), "Brokers", strings.Join(old, ", "))
	}
	model, from := modelOf(c)
	for _, t := range targets {
		bc, _ := c.Broker(t.Name)
		bp := BrokerPlan{Name: bc.Name, Addr: bc.Addr, Version: bc.Version, Exists: bc.Exists(), Changes: []Change{}}
		if !bc.Exists() {
			bp.From = from
		}
		bp.Changes = changesOn(bc, model, r.Settings)
		p.Brokers = append(p.Brokers, bp)
	}
	if p.Changes() == 0 {
		return nil, fault.New(fault.Invalid, "subgroups.input.same", "Group", r.Group).Because("nothing_changes")
	}
	p.ID, p.ExpiresAt = previews.NewID(previewKind), s.previews.ExpiresAt(p.At)
	if err := s.previews.Put(ctx, p.ID, p.At, p); err != nil {
		return nil, err
	}
	return p, nil
}

// modelOf is the settings a broker that lacks the group starts from: those of the first
// broker (by name) that has it, with the broker's name; RocketMQ's defaults when none has.
func modelOf(c *Config) (rocketmq.GroupDoc, string) {
	if ps := c.Present(); len(ps) > 0 {
		return ps[0].Doc, ps[0].Name
	}
	d := rocketmq.GroupDoc{}
	maps.Copy(d, defaults)
	return d, ""
}

// changesOn lists what s changes on broker bc; a broker without the group gets every
// field of the model, with s applied.
func changesOn(bc BrokerConfig, model rocketmq.GroupDoc, s Settings) []Change {
	asked := s.asked()
	out := []Change{}
	if !bc.Exists() {
		for _, f := range Fields {
			if f.Only5 && !bc.Is5 || f.Name == "attributes" {
				continue
			}
			v, ok := asked[f.Name]
			if !ok {
				v = model[f.Name]
			}
			if v == nil {
				continue
			}
			out = append(out, Change{Field: f.Name, New: Text(v), NewRaw: v})
		}
		for _, k := range slices.Sorted(maps.Keys(s.Attributes)) {
			if s.Attributes[k] != "" {
				out = append(out, Change{Field: "attributes." + k, New: s.Attributes[k], NewRaw: jsonString(s.Attributes[k])})
			}
		}
		return out
	}
	for _, f := range Fields {
		v, ok := asked[f.Name]
		if !ok || same(bc.Doc[f.Name], v) {
			continue
		}
		out = append(out, Change{Field: f.Name, Current: Text(bc.Doc[f.Name]), New: Text(v), CurrentRaw: bc.Doc[f.Name], NewRaw: v})
	}
	cur := attributesOf(bc.Doc)
	for _, k := range slices.Sorted(maps.Keys(s.Attributes)) {
		v, had := cur[k]
		switch {
		case s.Attributes[k] == "" && !had, had && v == s.Attributes[k]:
			continue
		}
		c := Change{Field: "attributes." + k, Current: v, New: s.Attributes[k], NewRaw: jsonString(s.Attributes[k])}
		if had {
			c.CurrentRaw = jsonString(v)
		}
		out = append(out, c)
	}
	return out
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// targets resolves where a change goes.
func (s *Service) targets(ctx context.Context, c *Config, all []cluster.Broker, r Request) ([]cluster.Broker, error) {
	byName := map[string]cluster.Broker{}
	for _, b := range all {
		byName[b.Name] = b
	}
	var out []cluster.Broker
	switch {
	case len(r.BrokerNames) > 0:
		for _, n := range r.BrokerNames {
			b, ok := byName[n]
			if !ok {
				return nil, fault.InvalidField("brokerNames", "subgroups.input.broker.unknown", "Broker", n, "Brokers", strings.Join(slices.Sorted(maps.Keys(byName)), ", "))
			}
			if !slices.ContainsFunc(out, func(o cluster.Broker) bool { return o.Name == n }) {
				out = append(out, b)
			}
		}
	case r.ClusterName != "":
		ci, err := s.cluster.Info(ctx)
		if err != nil {
			return nil, err
		}
		names, ok := ci.Clusters[r.ClusterName]
		if !ok {
			return nil, fault.InvalidField("clusterName", "subgroups.input.cluster.unknown", "Cluster", r.ClusterName, "Clusters", strings.Join(slices.Sorted(maps.Keys(ci.Clusters)), ", "))
		}
		for _, n := range names {
			if b, ok := byName[n]; ok {
				out = append(out, b)
			}
		}
	default:
		for _, b := range c.Present() {
			out = append(out, byName[b.Name])
		}
		if len(out) == 0 {
			clusters := map[string]bool{}
			for _, b := range all {
				clusters[b.Cluster] = true
			}
			if len(clusters) > 1 {
				return nil, fault.InvalidField("clusterName", "subgroups.input.cluster.which", "Group", r.Group, "Clusters", strings.Join(slices.Sorted(maps.Keys(clusters)), ", "))
			}
			out = all
		}
	}
	if len(out) == 0 {
		return nil, fault.InvalidField("clusterName", "subgroups.input.cluster.empty", "Cluster", r.ClusterName)
	}
	slices.SortFunc(out, func(a, b cluster.Broker) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// failuresOf are the failures of the named brokers.
func failuresOf(fails []cluster.BrokerFailure, brokers []cluster.Broker) []cluster.BrokerFailure {
	var out []cluster.BrokerFailure
	for _, f := range fails {
		if slices.ContainsFunc(brokers, func(b cluster.Broker) bool { return b.Name == f.Broker }) {
			out = append(out, f)
		}
	}
	return out
}

// unreadable refuses a change because brokers it concerns could not be read first.
func unreadable(group string, fails []cluster.BrokerFailure) error {
	parts := make([]i18n.Message, len(fails))
	errs := make([]error, len(fails))
	for i, f := range fails {
		parts[i], errs[i] = f.Message(), f
	}
	return fault.Wrap(errors.Join(errs...), fault.Unavailable, "subgroups.unreadable", "Group", group, "Failures", i18n.Series(i18n.ListSemicolon, parts...)).Because("broker_unreadable")
}

// StaleError is a preview that no longer describes the brokers: Fresh is a new preview
// of the same request (nil when none could be made).
type StaleError struct {
	Reasons []i18n.Message
	Fresh   *Plan
}

func (e *StaleError) Error() string { return i18n.Series(i18n.ListSemicolon, e.Reasons...).String() }

// Confirmation is the go-ahead for a previewed change.
type Confirmation struct {
	// Group is the group the go-ahead is given for: a preview of another is refused.
	Group     string
	PlanID    string
	Confirmed bool
	Who       Who
}

// Applied is the outcome of a change: its audit entry, sealed, one row per broker.
type Applied struct {
	Entry *store.AuditEntry
	Plan  *Plan
}

// Apply applies a previewed change. The audit entry is written first (nothing is changed
// when it cannot be); then every broker is read again, and a preview that no longer holds
// (a field changed since, a broker that gained or lost the group) is refused with a fresh
// preview and recorded as refused. Otherwise each broker gets its settings as read now
// with only the previewed fields changed, and is read back; each broker is one row of
// the entry, with what was read back or why it failed.
func (s *Service) Apply(ctx context.Context, c Confirmation) (*Applied, error) {
	ctx = context.WithoutCancel(ctx) // once begun, a change runs to its end and is recorded
	var errs fault.List
	if c.PlanID == "" {
		errs.Invalid("planId", "subgroups.input.plan")
	}
	if !c.Confirmed {
		errs.Invalid("confirm", "subgroups.input.confirm")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if s.audit == nil {
		return nil, fault.New(fault.Unavailable, "subgroups.noaudit")
	}
	var p Plan
	if err := s.previews.Take(ctx, previewKind, c.PlanID, &p); err != nil {
		return nil, err
	}
	if c.Group != "" && p.Group != c.Group {
		return nil, fault.New(fault.Conflict, "subgroups.other_group", "Group", c.Group, "Previewed", p.Group).Because("preview_of_other_group")
	}
	before, after := map[string]map[string]json.RawMessage{}, map[string]map[string]json.RawMessage{}
	for _, b := range p.Brokers {
		after[b.Name] = map[string]json.RawMessage{}
		if b.Exists {
			before[b.Name] = map[string]json.RawMessage{}
		} else {
			before[b.Name] = nil
		}
		for _, ch := range b.Changes {
			if b.Exists {
				before[b.Name][ch.Field] = orNull(ch.CurrentRaw)
			}
			after[b.Name][ch.Field] = orNull(ch.NewRaw)
		}
	}
	params, _ := json.Marshal(struct {
		Request Request                               `json:"request"`
		PlanID  string                                `json:"planId"`
		Before  map[string]map[string]json.RawMessage `json:"before"`
		After   map[string]map[string]json.RawMessage `json:"after"`
	}{p.Request, p.ID, before, after})
	e := &store.AuditEntry{StartedAt: s.now(), Actor: c.Who.Actor, ActorAddr: c.Who.Addr, Cluster: s.ns, Group: p.Group,
		Mode: p.Mode(), Params: params}
	var stale *StaleError
	err := s.audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		rows, st, err := s.execute(ctx, &p)
		stale = st
		return rows, err
	})
	if err != nil {
		return nil, s.auditFailed(err, p.Group)
	}
	if stale != nil {
		return nil, fault.Wrap(stale, fault.Conflict, "subgroups.stale", "Group", p.Group, "Reasons", i18n.Series(i18n.ListSemicolon, stale.Reasons...), "ID", e.ID).Because("preview_stale")
	}
	return &Applied{Entry: e, Plan: &p}, nil
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// auditFailed turns an audit log that could not be written into what the caller reads.
func (s *Service) auditFailed(err error, group string) error {
	var busy *store.AuditBusyError
	if errors.As(err, &busy) {
		return fault.Wrap(err, fault.Conflict, "subgroups.busy", "Group", group, "ID", busy.Holder.ID, "Actor", busy.Holder.Actor).Because("change_in_progress")
	}
	return fault.Wrap(err, fault.Unavailable, "subgroups.audit_unwritable", "Error", err.Error()).Because("audit_unavailable")
}

// execute re-reads, checks, changes and reads back, once the entry is pending. A stale
// preview changes nothing: its rows say why, and stale holds a fresh preview.
func (s *Service) execute(ctx context.Context, p *Plan) ([]store.AuditQueue, *StaleError, error) {
	all, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, nil, err
	}
	c, fails := s.read(ctx, p.Group, all)
	rows := make([]store.AuditQueue, len(p.Brokers))
	for i, b := range p.Brokers {
		rows[i] = store.AuditQueue{BrokerName: b.Name, BrokerAddr: b.Addr, Method: rocketmq.CodeUpdateSubscriptionGroup.String(), Note: describe(b)}
	}
	if reasons := staleReasons(p, c, fails); len(reasons) > 0 {
		for i := range rows {
			rows[i].Error = i18n.TextOf(i18n.M("audit.row.stale"))
		}
		st := &StaleError{Reasons: reasons}
		if fresh, err := s.plan(ctx, p.Request); err == nil {
			st.Fresh = fresh
		}
		return rows, st, fault.Wrap(store.ErrChangeRefused, fault.Conflict, "audit.row.refused", "Reasons", i18n.Series(i18n.ListSemicolon, reasons...))
	}
	model, _ := modelOf(c)
	byName := map[string]cluster.Broker{}
	for _, b := range all {
		byName[b.Name] = b
	}
	f := s.cluster.Fanout(ctx)
	for i, bp := range p.Brokers {
		if len(bp.Changes) == 0 {
			rows[i].Note = i18n.TextOf(i18n.M("subgroups.audit.unchanged"))
			continue
		}
		bc, _ := c.Broker(bp.Name)
		doc := newDoc(bc, model, p.Group, bp.Changes)
		f.Go(byName[bp.Name], opPut, func(ctx context.Context, addr string) error {
			return s.admin.PutGroupDoc(ctx, addr, doc)
		})
	}
	markFailures(rows, f.Wait())
	// Read back what every broker holds now.
	back, backFails := s.read(ctx, p.Group, all)
	for i, bp := range p.Brokers {
		if len(rows[i].Error) > 0 {
			continue
		}
		bc, ok := back.Broker(bp.Name)
		if !ok {
			rows[i].Error = i18n.TextOf(i18n.M("subgroups.audit.unread_back", "Reason", reasonOf(backFails, bp.Name)))
			continue
		}
		if miss := readBackMismatch(bc, bp.Changes); miss != nil {
			rows[i].Error = miss
			continue
		}
		if len(bp.Changes) > 0 {
			rows[i].Note = i18n.TextOf(i18n.M("audit.row.read_back", "Note", rows[i].Note))
		}
	}
	return rows, nil, nil
}

// staleReasons says why a preview no longer describes the brokers, if it does not.
func staleReasons(p *Plan, c *Config, fails []cluster.BrokerFailure) []i18n.Message {
	var r []i18n.Message
	for _, bp := range p.Brokers {
		bc, ok := c.Broker(bp.Name)
		switch {
		case !ok:
			r = append(r, i18n.M("subgroups.stale.unread", "Broker", bp.Name, "Reason", reasonOf(fails, bp.Name)))
			continue
		case bc.Exists() != bp.Exists && bp.Exists:
			r = append(r, i18n.M("subgroups.stale.lost_group", "Broker", bp.Name))
			continue
		case bc.Exists() != bp.Exists:
			r = append(r, i18n.M("subgroups.stale.has_group", "Broker", bp.Name))
			continue
		case bc.Addr != bp.Addr:
			r = append(r, i18n.M("subgroups.stale.moved", "Broker", bp.Name, "From", bp.Addr, "To", bc.Addr))
			continue
		}
		if !bp.Exists {
			continue
		}
		cur := attributesOf(bc.Doc)
		for _, ch := range bp.Changes {
			now := bc.Doc[ch.Field]
			if k, ok := strings.CutPrefix(ch.Field, "attributes."); ok {
				now = nil
				if v, had := cur[k]; had {
					now = jsonString(v)
				}
			}
			if !same(now, ch.CurrentRaw) {
				r = append(r, i18n.M("subgroups.stale.field", "Field", ch.Field, "Broker", bp.Name, "Now", orNone(Text(now)), "Was", orNone(ch.Current)))
			}
		}
	}
	return r
}

// orNone is s, or the catalogue's word for no value.
func orNone(s string) any {
	if s == "" {
		return i18n.M("audit.row.none")
	}
	return s
}

// newDoc is what a broker is sent: what it holds now (or, lacking the group, the
// model), with the changes applied. Only the attributes changed are sent, as "+key"
// (set) or "-key" (removed): a broker merges those it is sent into the group's.
func newDoc(bc BrokerConfig, model rocketmq.GroupDoc, group string, changes []Change) rocketmq.GroupDoc {
	base := bc.Doc
	if base == nil {
		base = model
	}
	doc := base.Clone()
	doc["groupName"] = jsonString(group)
	attrs := map[string]string{}
	if bc.Doc == nil {
		for k, v := range attributesOf(model) {
			attrs["+"+k] = v
		}
	}
	for _, ch := range changes {
		if k, ok := strings.CutPrefix(ch.Field, "attributes."); ok {
			if ch.New == "" {
				attrs["-"+k] = ""
			} else {
				attrs["+"+k] = ch.New
			}
			continue
		}
		doc[ch.Field] = ch.NewRaw
	}
	if _, ok := doc["attributes"]; ok || len(attrs) > 0 {
		b, _ := json.Marshal(attrs)
		doc["attributes"] = b
	}
	return doc
}

// readBackMismatch says which changed field a broker does not hold as set, nil when all do.
func readBackMismatch(bc BrokerConfig, changes []Change) i18n.Text {
	if !bc.Exists() {
		return i18n.TextOf(i18n.M("subgroups.audit.back_no_group"))
	}
	attrs := attributesOf(bc.Doc)
	var bad []i18n.Message
	for _, ch := range changes {
		if k, ok := strings.CutPrefix(ch.Field, "attributes."); ok {
			if attrs[k] != ch.New {
				bad = append(bad, i18n.M("audit.row.back_field", "Field", ch.Field, "Now", orNone(attrs[k]), "Want", orNone(ch.New)))
			}
			continue
		}
		if !same(bc.Doc[ch.Field], ch.NewRaw) {
			bad = append(bad, i18n.M("audit.row.back_field", "Field", ch.Field, "Now", orNone(Text(bc.Doc[ch.Field])), "Want", ch.New))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return append(i18n.TextOf(i18n.M("audit.row.back_differs")), i18n.Series(i18n.ListComma, bad...)...)
}

// describe says in a few words what a change does on one broker.
func describe(b BrokerPlan) i18n.Text {
	parts := make([]i18n.Message, len(b.Changes))
	for i, ch := range b.Changes {
		parts[i] = i18n.M("audit.row.change", "Field", ch.Field, "Before", orNone(ch.Current), "After", orNone(ch.New))
	}
	what := i18n.M("subgroups.audit.updated")
	if !b.Exists {
		what = i18n.M("subgroups.audit.created")
	}
	return append(i18n.TextOf(what), i18n.Series(i18n.ListComma, parts...)...)
}

// reasonOf is why broker could not be read, in the broker's own words.
func reasonOf(fails []cluster.BrokerFailure, broker string) any {
	for _, f := range fails {
		if f.Broker == broker {
			return f.Reason()
		}
	}
	return i18n.M("subgroups.audit.no_answer")
}

// markFailures writes each failed broker's failure into its row.
func markFailures(rows []store.AuditQueue, fails []cluster.BrokerFailure) {
	for _, fl := range fails {
		for i := range rows {
			if rows[i].BrokerName == fl.Broker && len(rows[i].Error) == 0 {
				rows[i].Error = i18n.PlainText(fl.Reason())
			}
		}
	}
}
