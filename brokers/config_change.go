package brokers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"rmqconsole/i18n"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/previews"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// ConfigChanger is what changing a broker's configuration asks; *rocketmq.Client
// implements it.
type ConfigChanger interface {
	UpdateBrokerConfig(ctx context.Context, addr string, kv map[string]string) error
}

var _ ConfigChanger = (*rocketmq.Client)(nil)

// Auditor writes the audit entry around a change; *store.AuditLog implements it.
type Auditor interface {
	Change(ctx context.Context, e *store.AuditEntry, apply func(ctx context.Context) ([]store.AuditQueue, error)) error
}

// ModeConfigUpdate is the audit mode of a broker configuration change.
const ModeConfigUpdate = "broker-config-update"

const configPreviewKind = "broker-config"

// ChangeOptions let a Service change brokers' configuration.
type ChangeOptions struct {
	Changer ConfigChanger
	// Audit records every change before it is made; without it nothing is changed.
	Audit Auditor
	// Previews keeps previews until applied; nil keeps them in this process.
	Previews *previews.Keeper
	// NameServers is the NameServer list the audit entries name as their cluster.
	NameServers string
}

// EnableChanges lets s change brokers' configuration (PlanConfig, ApplyConfig).
func (s *Service) EnableChanges(o ChangeOptions) {
	if o.Previews == nil {
		o.Previews = previews.New(nil, 0, s.now)
	}
	s.changes = &o
}

// Scopes of a configuration change: the broker's master only, the master and its slaves,
// or every master and slave of the broker's cluster (as mqadmin updateBrokerConfig -c).
const (
	ScopeMaster  = "master"
	ScopeBroker  = "broker"
	ScopeCluster = "cluster"
)

// ConfigRequest changes configuration keys of a broker's processes.
type ConfigRequest struct {
	Broker string `json:"brokerName"`
	// Config is each key's new value, as the broker's configuration writes it.
	Config map[string]string `json:"config"`
	// Scope is ScopeBroker (the default), ScopeMaster or ScopeCluster.
	Scope string `json:"scope,omitempty"`
}

// KeyChange is one key a change sets on one process.
type KeyChange struct {
	Key string `json:"key"`
	// Current and New are as pages show them: a secret's are MaskedValue and "changed".
	Current string `json:"current"`
	New     string `json:"new"`
	// Secret is set when the key holds a secret: its values are never shown.
	Secret bool `json:"secret,omitempty"`
	// Same is set when the process has the value already.
	Same bool `json:"same,omitempty"`
	// current is the value read at preview (never a secret's), for the check at apply.
	Was string `json:"was,omitempty"`
}

// ProcessPlan is what a change does on one broker process.
type ProcessPlan struct {
	Broker  string      `json:"brokerName"`
	ID      int64       `json:"brokerId"`
	Role    string      `json:"role"`
	Addr    string      `json:"addr"`
	Changes []KeyChange `json:"changes"`
}

// ConfigPlan is a previewed configuration change.
type ConfigPlan struct {
	ID        string    `json:"planId"`
	At        time.Time `json:"plannedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	Broker    string    `json:"brokerName"`
	Cluster   string    `json:"cluster"`
	Scope     string    `json:"scope"`
	Keys      []string  `json:"keys"`
	// Values are the new values of the keys that are not secrets (a secret's value is
	// typed again to apply: a preview keeps no secret).
	Values map[string]string `json:"values"`
	// Secrets names the keys whose new values must be sent again to apply.
	Secrets   []string      `json:"secrets"`
	Processes []ProcessPlan `json:"processes"`
	// Drift lists the keys whose values differ between the processes today.
	Drift []string `json:"drift"`
}

// Changes counts the keys that change on all processes.
func (p *ConfigPlan) Changes() int {
	n := 0
	for _, pp := range p.Processes {
		for _, c := range pp.Changes {
			if !c.Same {
				n++
			}
		}
	}
	return n
}

// configKey is what a broker configuration key looks like.
var configKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]{0,127}$`)

// maxConfigValue bounds a value; the longest a broker has (JSON credentials, addresses)
// are a few hundred characters.
const maxConfigValue = 4096

// fixedAtStart reports whether a key names what a process is (its name, id, role,
// cluster, ports, files): changing it at run time would take effect, wrongly, only at the
// next start, from the config file the broker rewrites.
func fixedAtStart(key string) bool {
	switch key {
	case "brokerName", "brokerClusterName", "brokerId", "brokerRole", "brokerIP1", "brokerIP2", "rocketmqHome",
		"brokerConfigPath", "enableDLegerCommitLog", "enableControllerMode":
		return true
	}
	return strings.HasSuffix(key, "Port") || strings.HasPrefix(key, "storePath") || strings.HasSuffix(key, "Dir")
}

// checkConfigRequest finds the mistakes that need no broker.
func checkConfigRequest(r ConfigRequest) error {
	var errs fault.List
	if !cluster.ValidName(r.Broker) {
		errs.Add(fault.InvalidField("brokerName", "brokerconfig.input.broker", "Broker", fmt.Sprintf("%q", cutText(r.Broker))))
	}
	switch r.Scope {
	case "", ScopeBroker, ScopeMaster, ScopeCluster:
	default:
		errs.Invalid("scope", "brokerconfig.input.scope", "Scope", fmt.Sprintf("%q", cutText(r.Scope)))
	}
	if len(r.Config) == 0 {
		errs.Invalid("config", "brokerconfig.input.nothing")
	}
	if len(r.Config) > 32 {
		errs.Invalid("config", "brokerconfig.input.many", "N", len(r.Config), "Max", 32)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Config)) {
		v := r.Config[k]
		switch {
		case !configKey.MatchString(k):
			errs.Invalid("config", "brokerconfig.input.key", "Key", fmt.Sprintf("%q", cutText(k)))
		case fixedAtStart(k):
			errs.Invalid("config", "brokerconfig.input.fixed", "Key", k)
		case len(v) > maxConfigValue || !utf8.ValidString(v) || strings.ContainsAny(v, "\n\r\x00"):
			errs.Invalid("config", "brokerconfig.input.value", "Key", k, "Max", maxConfigValue)
		}
	}
	return errs.Err()
}

func cutText(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// isSecret reports whether a key's value is a secret, by the one masking rule of the
// configuration page (masked): for the value a process has or the one asked.
func isSecret(key string, values ...string) bool {
	for _, v := range values {
		if e := masked(map[string]string{key: v}); len(e) == 1 && e[0].Masked {
			return true
		}
	}
	return false
}

// checkValue checks a value against the type of the value the process has now.
func checkValue(key, current, v string) *fault.Error {
	switch {
	case current == "true" || current == "false":
		if v != "true" && v != "false" {
			return fault.InvalidField("config", "brokerconfig.input.bool", "Key", key, "Value", fmt.Sprintf("%q", cutText(v)))
		}
	case isInt(current):
		if !isInt(v) {
			return fault.InvalidField("config", "brokerconfig.input.int", "Key", key, "Value", fmt.Sprintf("%q", cutText(v)))
		}
		if strings.HasPrefix(v, "-") && !strings.HasPrefix(current, "-") {
			return fault.InvalidField("config", "brokerconfig.input.negative", "Key", key, "Value", v, "Current", current)
		}
	case isFloat(current):
		if !isFloat(v) && !isInt(v) {
			return fault.InvalidField("config", "brokerconfig.input.float", "Key", key, "Value", fmt.Sprintf("%q", cutText(v)))
		}
	}
	return nil
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func isFloat(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && strings.ContainsAny(s, ".eE")
}

// sameValue compares a value read back with the one set, numbers by value.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	return ea == nil && eb == nil && fa == fb
}

// configTargets are the processes a change goes to.
func (s *Service) configTargets(ctx context.Context, r ConfigRequest) (cluster.Broker, []Runtime, error) {
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return cluster.Broker{}, nil, err
	}
	b, rs, err := s.processes(ctx, r.Broker)
	if err != nil {
		return b, nil, err
	}
	switch r.Scope {
	case ScopeMaster:
		rs = slices.DeleteFunc(rs, func(p Runtime) bool { return p.ID != 0 })
		if len(rs) == 0 {
			return b, nil, fault.New(fault.Unavailable, "brokerconfig.nomaster", "Broker", r.Broker)
		}
	case ScopeCluster:
		all, err := s.cluster.Brokers(ctx)
		if err != nil {
			return b, nil, err
		}
		rs = nil
		for _, o := range all {
			if o.Cluster == b.Cluster {
				rs = append(rs, members(ci, o)...)
			}
		}
	}
	return b, rs, nil
}

// readConfigs reads each process's configuration; a process that does not answer
// refuses the change: a change must know what it changes.
func (s *Service) readConfigs(ctx context.Context, rs []Runtime) ([]map[string]string, []cluster.BrokerFailure) {
	out := make([]map[string]string, len(rs))
	f := s.cluster.Fanout(ctx)
	for i, p := range rs {
		f.At(p.Name, p.Addr, opConfig, func(ctx context.Context, addr string) error {
			cfg, err := s.admin.BrokerConfig(ctx, addr)
			out[i] = cfg
			return err
		})
	}
	return out, f.Wait()
}

// PlanConfig previews a configuration change: each process's current and new value of
// every key (a secret's never shown), and the keys whose values differ between the
// processes today. It changes nothing. Keys must exist on every process, outside the
// broker's configBlackList and not fixed at start, with values of the key's type.
func (s *Service) PlanConfig(ctx context.Context, r ConfigRequest) (*ConfigPlan, error) {
	if s.changes == nil {
		return nil, fault.New(fault.Unavailable, "brokerconfig.noaudit")
	}
	if r.Scope == "" {
		r.Scope = ScopeBroker
	}
	if err := checkConfigRequest(r); err != nil {
		return nil, err
	}
	b, rs, err := s.configTargets(ctx, r)
	if err != nil {
		return nil, err
	}
	cfgs, fails := s.readConfigs(ctx, rs)
	if len(fails) > 0 {
		return nil, configUnreadable(r.Broker, fails)
	}
	var errs fault.List
	keys := slices.Sorted(maps.Keys(r.Config))
	for _, k := range keys {
		for i, p := range rs {
			cur, ok := cfgs[i][k]
			if !ok {
				errs.Add(fault.InvalidField("config", "brokerconfig.input.unknown", "Key", k, "Process", processName(p), "Hint", hint(cfgs[i], k)))
				break
			}
			if slices.Contains(strings.Split(cfgs[i]["configBlackList"], ";"), k) {
				errs.Add(fault.InvalidField("config", "brokerconfig.input.blacklist", "Key", k, "Process", processName(p), "List", cfgs[i]["configBlackList"]))
				break
			}
			if e := checkValue(k, cur, r.Config[k]); e != nil {
				errs.Add(e)
				break
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	p := &ConfigPlan{At: now, Broker: r.Broker, Cluster: b.Cluster, Scope: r.Scope, Keys: keys,
		Values: map[string]string{}, Secrets: []string{}, Drift: []string{}}
	for _, k := range keys {
		secret := false
		for i := range rs {
			secret = secret || isSecret(k, cfgs[i][k], r.Config[k])
		}
		if secret {
			p.Secrets = append(p.Secrets, k)
		} else {
			p.Values[k] = r.Config[k]
		}
		for i := range rs {
			if cfgs[i][k] != cfgs[0][k] {
				p.Drift = append(p.Drift, k)
				break
			}
		}
	}
	for i, pr := range rs {
		pp := ProcessPlan{Broker: pr.Name, ID: pr.ID, Role: pr.Role, Addr: pr.Addr}
		for _, k := range keys {
			cur, v := cfgs[i][k], r.Config[k]
			kc := KeyChange{Key: k, Current: cur, New: v, Was: cur, Same: sameValue(cur, v)}
			if slices.Contains(p.Secrets, k) {
				kc = KeyChange{Key: k, Current: MaskedValue, New: "changed", Secret: true, Same: cur == v}
				if kc.Same {
					kc.New = "unchanged"
				}
			}
			pp.Changes = append(pp.Changes, kc)
		}
		p.Processes = append(p.Processes, pp)
	}
	if p.Changes() == 0 {
		return nil, fault.New(fault.Invalid, "brokerconfig.input.same").Because("nothing_changes")
	}
	p.ID, p.ExpiresAt = previews.NewID(configPreviewKind), s.changes.Previews.ExpiresAt(now)
	if err := s.changes.Previews.Put(ctx, p.ID, now, p); err != nil {
		return nil, err
	}
	return p, nil
}

func processName(p Runtime) string {
	return fmt.Sprintf("%s's %s %s", p.Name, p.Role, p.Addr)
}

// hint names a key of cfg that differs from key only in case, "" when none.
func hint(cfg map[string]string, key string) string {
	for k := range cfg {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return ""
}

func configUnreadable(broker string, fails []cluster.BrokerFailure) error {
	parts := make([]string, len(fails))
	errs := make([]error, len(fails))
	for i, f := range fails {
		parts[i], errs[i] = f.Error(), f
	}
	return fault.Wrap(errors.Join(errs...), fault.Unavailable, "brokerconfig.unreadable", "Broker", broker, "Failures", strings.Join(parts, "; ")).Because("broker_unreadable")
}

// ConfigConfirmation is the go-ahead for a previewed configuration change; Secrets are
// the new values of the plan's secret keys, typed again.
type ConfigConfirmation struct {
	// Broker is the broker the go-ahead is given for: a preview of another is refused.
	Broker    string
	PlanID    string
	Confirmed bool
	Secrets   map[string]string
	Who       Who
}

// Who is who asks for a change, for the audit log.
type Who struct{ Actor, Addr string }

// ConfigStaleError is a preview that no longer describes the processes; Fresh is a new
// preview (nil when none could be made).
type ConfigStaleError struct {
	Reasons []i18n.Message
	Fresh   *ConfigPlan
}

func (e *ConfigStaleError) Error() string {
	return i18n.Series(i18n.ListSemicolon, e.Reasons...).String()
}

// ApplyConfig applies a previewed configuration change: the audit entry first (secrets
// masked: "changed"), then each process is read again (a key changed since the preview
// refuses the change, with a fresh preview), sent its keys, and read back; each process
// is one row of the entry.
func (s *Service) ApplyConfig(ctx context.Context, c ConfigConfirmation) (*store.AuditEntry, *ConfigPlan, error) {
	ctx = context.WithoutCancel(ctx)
	if s.changes == nil || s.changes.Audit == nil || s.changes.Changer == nil {
		return nil, nil, fault.New(fault.Unavailable, "brokerconfig.noaudit")
	}
	var errs fault.List
	if c.PlanID == "" {
		errs.Invalid("planId", "brokerconfig.input.plan")
	}
	if !c.Confirmed {
		errs.Invalid("confirm", "brokerconfig.input.confirm")
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	var p ConfigPlan
	if err := s.changes.Previews.Take(ctx, configPreviewKind, c.PlanID, &p); err != nil {
		return nil, nil, err
	}
	if c.Broker != "" && c.Broker != p.Broker {
		return nil, nil, fault.New(fault.Conflict, "brokerconfig.other_broker", "Broker", c.Broker, "Previewed", p.Broker).Because("preview_of_other_broker")
	}
	values := maps.Clone(p.Values)
	for _, k := range p.Secrets {
		v, ok := c.Secrets[k]
		if !ok || v == "" {
			errs.Invalid("secrets", "brokerconfig.input.secret", "Key", k)
			continue
		}
		if len(v) > maxConfigValue || strings.ContainsAny(v, "\n\r\x00") {
			errs.Invalid("secrets", "brokerconfig.input.value", "Key", k, "Max", maxConfigValue)
		}
		values[k] = v
	}
	if err := errs.Err(); err != nil {
		// The preview is used up: the secret is typed again on a fresh one.
		return nil, nil, err
	}
	before, after := map[string]map[string]string{}, map[string]map[string]string{}
	for _, pp := range p.Processes {
		name := fmt.Sprintf("%s/%d", pp.Broker, pp.ID)
		before[name], after[name] = map[string]string{}, map[string]string{}
		for _, kc := range pp.Changes {
			before[name][kc.Key], after[name][kc.Key] = kc.Current, kc.New
		}
	}
	params, _ := json.Marshal(map[string]any{"brokerName": p.Broker, "scope": p.Scope, "keys": p.Keys, "planId": p.ID,
		"before": before, "after": after})
	e := &store.AuditEntry{StartedAt: s.now(), Actor: c.Who.Actor, ActorAddr: c.Who.Addr, Cluster: s.changes.NameServers,
		Mode: ModeConfigUpdate, Params: params}
	var stale *ConfigStaleError
	err := s.changes.Audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		rows, st, err := s.executeConfig(ctx, &p, values)
		stale = st
		return rows, err
	})
	if err != nil {
		var busy *store.AuditBusyError
		if errors.As(err, &busy) {
			return nil, nil, fault.Wrap(err, fault.Conflict, "brokerconfig.busy", "ID", busy.Holder.ID, "Actor", busy.Holder.Actor).Because("change_in_progress")
		}
		return nil, nil, fault.Wrap(err, fault.Unavailable, "brokerconfig.audit_unwritable", "Error", err.Error()).Because("audit_unavailable")
	}
	if stale != nil {
		return nil, nil, fault.Wrap(stale, fault.Conflict, "brokerconfig.stale", "Reasons", i18n.Series(i18n.ListSemicolon, stale.Reasons...), "ID", e.ID).Because("preview_stale")
	}
	return e, &p, nil
}

func (s *Service) executeConfig(ctx context.Context, p *ConfigPlan, values map[string]string) ([]store.AuditQueue, *ConfigStaleError, error) {
	rs := make([]Runtime, len(p.Processes))
	rows := make([]store.AuditQueue, len(p.Processes))
	for i, pp := range p.Processes {
		rs[i] = Runtime{Name: pp.Broker, ID: pp.ID, Role: pp.Role, Addr: pp.Addr}
		notes := make([]i18n.Message, len(pp.Changes))
		for j, kc := range pp.Changes {
			notes[j] = i18n.M("audit.row.change", "Field", kc.Key, "Before", kc.Current, "After", kc.New)
		}
		rows[i] = store.AuditQueue{BrokerName: fmt.Sprintf("%s/%d", pp.Broker, pp.ID), BrokerAddr: pp.Addr,
			Method: rocketmq.CodeUpdateBrokerConfig.String(), Note: i18n.Series(i18n.ListComma, notes...)}
	}
	cfgs, fails := s.readConfigs(ctx, rs)
	var reasons []i18n.Message
	for _, fl := range fails {
		reasons = append(reasons, i18n.M("brokerconfig.stale.unread", "Addr", fl.Addr, "Reason", fl.Reason()))
	}
	for i, pp := range p.Processes {
		if cfgs[i] == nil {
			continue
		}
		for _, kc := range pp.Changes {
			if !kc.Secret && cfgs[i][kc.Key] != kc.Was {
				reasons = append(reasons, i18n.M("brokerconfig.stale.value", "Key", kc.Key, "Addr", pp.Addr, "Now", cfgs[i][kc.Key], "Was", kc.Was))
			}
		}
	}
	if len(reasons) > 0 {
		for i := range rows {
			rows[i].Error = i18n.TextOf(i18n.M("audit.row.stale"))
		}
		st := &ConfigStaleError{Reasons: reasons}
		req := ConfigRequest{Broker: p.Broker, Scope: p.Scope, Config: maps.Clone(values)}
		if fresh, err := s.PlanConfig(ctx, req); err == nil {
			st.Fresh = fresh
		}
		return rows, st, fault.Wrap(store.ErrChangeRefused, fault.Conflict, "audit.row.refused", "Reasons", i18n.Series(i18n.ListSemicolon, reasons...))
	}
	f := s.cluster.Fanout(ctx)
	unchanged := make([]bool, len(p.Processes))
	for i, pp := range p.Processes {
		kv := map[string]string{}
		for _, kc := range pp.Changes {
			if !kc.Same {
				kv[kc.Key] = values[kc.Key]
			}
		}
		if len(kv) == 0 {
			rows[i].Note, unchanged[i] = i18n.TextOf(i18n.M("brokerconfig.audit.unchanged")), true
			continue
		}
		f.At(rows[i].BrokerName, pp.Addr, "update config", func(ctx context.Context, addr string) error {
			return s.changes.Changer.UpdateBrokerConfig(ctx, addr, kv)
		})
	}
	for _, fl := range f.Wait() {
		for i := range rows {
			if rows[i].BrokerName == fl.Broker && len(rows[i].Error) == 0 {
				rows[i].Error = i18n.PlainText(fl.Reason())
			}
		}
	}
	back, backFails := s.readConfigs(ctx, rs)
	for i, pp := range p.Processes {
		if len(rows[i].Error) > 0 {
			continue
		}
		if back[i] == nil {
			rows[i].Error = i18n.TextOf(i18n.M("brokerconfig.audit.unread_back"))
			for _, fl := range backFails {
				if fl.Addr == pp.Addr {
					rows[i].Error = i18n.TextOf(i18n.M("brokerconfig.audit.unread_back_why", "Reason", fl.Reason()))
				}
			}
			continue
		}
		var bad []i18n.Message
		for _, kc := range pp.Changes {
			if got := back[i][kc.Key]; !sameValue(got, values[kc.Key]) {
				if kc.Secret {
					bad = append(bad, i18n.M("brokerconfig.audit.back_secret", "Key", kc.Key))
				} else {
					bad = append(bad, i18n.M("brokerconfig.audit.back_ignored", "Key", kc.Key, "Now", got, "Want", values[kc.Key]))
				}
			}
		}
		if len(bad) > 0 {
			rows[i].Error = append(i18n.TextOf(i18n.M("audit.row.back_differs")), i18n.Series(i18n.ListComma, bad...)...)
		} else if !unchanged[i] {
			rows[i].Note = i18n.TextOf(i18n.M("audit.row.read_back", "Note", rows[i].Note))
		}
	}
	return rows, nil, nil
}
