package acl

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/previews"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Change is one field a change sets on one process: a user's userType, userStatus or
// password (whose values are only "set", "changed" or "unchanged"), or a policy's
// resource (its entry in words, "" when the process has none or it is removed).
type Change struct {
	Field   string `json:"field"`
	Current string `json:"current"`
	New     string `json:"new"`
}

// ProcessPlan is what a change does on one broker process.
type ProcessPlan struct {
	Process string `json:"process"`
	Name    string `json:"name"`
	Addr    string `json:"addr"`
	// Exists is set when the process has the user (or the subject's policy) now.
	Exists  bool     `json:"exists"`
	Changes []Change `json:"changes"`
}

// Plan is a previewed ACL change. It never holds a password: PasswordChanged says one is
// set, and applying takes it again.
type Plan struct {
	ID        string    `json:"planId"`
	At        time.Time `json:"plannedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Mode is the change's audit mode (ModeUserCreate, ...).
	Mode string `json:"mode"`
	// User is the user change without its password; Policy the policy change.
	User            *UserRequest   `json:"user,omitempty"`
	PasswordChanged bool           `json:"passwordChanged"`
	Policy          *PolicyRequest `json:"policy,omitempty"`
	Processes       []ProcessPlan  `json:"processes"`
	// Drift is set when the processes differ today on what the change sets.
	Drift bool `json:"drift"`
}

// Subject is what the change is about: a user's name or a policy's subject.
func (p *Plan) Subject() string {
	if p.User != nil {
		return p.User.Username
	}
	return p.Policy.Subject
}

// Changes counts the fields changed on all processes.
func (p *Plan) Changes() int {
	n := 0
	for _, pp := range p.Processes {
		n += len(pp.Changes)
	}
	return n
}

func userOf(p Process, name string) (rocketmq.User, bool) {
	i := slices.IndexFunc(p.Users, func(u rocketmq.User) bool { return u.Username == name })
	if i < 0 {
		return rocketmq.User{}, false
	}
	return p.Users[i], true
}

// selfType is the type of the console's own user: Super when any process says so.
func (s *Service) selfType(o *Overview) string {
	t := ""
	for _, p := range o.Processes {
		if u, ok := userOf(p, s.self); ok {
			if u.UserType == TypeSuper {
				return TypeSuper
			}
			t = u.UserType
		}
	}
	return t
}

// refusedSelf is the console refusing to cut its own access, recorded as refused.
func (s *Service) refusedSelf(ctx context.Context, who Who, mode, subject, id string, kv ...any) error {
	err := fault.New(fault.Refused, id, append([]any{"Key", s.self}, kv...)...).Because("own_access_key")
	s.refuse(ctx, who, mode, subject, err)
	return err
}

// PlanUser previews creating (create) or updating a user on every process: a process
// without the user gets it created, one with it gets the fields asked. It changes
// nothing; the password is checked and then forgotten.
func (s *Service) PlanUser(ctx context.Context, who Who, create bool, r UserRequest) (*Plan, error) {
	if err := r.check(create); err != nil {
		return nil, err
	}
	mode := ModeUserUpdate
	if create {
		mode = ModeUserCreate
	}
	if r.Username == s.self && !create {
		switch {
		case r.Password != "":
			return nil, s.refusedSelf(ctx, who, mode, r.Username, "acl.refused.self.password")
		case r.UserStatus == StatusDisable:
			return nil, s.refusedSelf(ctx, who, mode, r.Username, "acl.refused.self.disable")
		}
	}
	o, err := s.targets(ctx, false)
	if err != nil {
		return nil, err
	}
	if r.Username == s.self && r.UserType == TypeNormal && s.selfType(o) == TypeSuper {
		return nil, s.refusedSelf(ctx, who, mode, r.Username, "acl.refused.self.normal")
	}
	p := &Plan{At: s.now(), Mode: mode, PasswordChanged: r.Password != ""}
	u := r
	u.Password = ""
	p.User = &u
	have := 0
	var first *rocketmq.User
	for _, pr := range o.Processes {
		pp := ProcessPlan{Process: pr.Key(), Name: pr.Name(), Addr: pr.Addr, Changes: []Change{}}
		cur, ok := userOf(pr, r.Username)
		pp.Exists = ok
		if ok {
			have++
			if first == nil {
				first = &cur
			} else if first.UserType != cur.UserType || first.UserStatus != cur.UserStatus {
				p.Drift = true
			}
			if r.UserType != "" && r.UserType != cur.UserType {
				pp.Changes = append(pp.Changes, Change{Field: "userType", Current: cur.UserType, New: r.UserType})
			}
			if r.UserStatus != "" && r.UserStatus != cur.UserStatus {
				pp.Changes = append(pp.Changes, Change{Field: "userStatus", Current: cur.UserStatus, New: r.UserStatus})
			}
			if r.Password != "" {
				pp.Changes = append(pp.Changes, Change{Field: "password", Current: "unchanged", New: "changed"})
			}
		} else {
			if r.Password == "" {
				return nil, fault.InvalidField("password", "acl.input.password.missing.on", "User", r.Username, "Process", pr.Name())
			}
			pp.Changes = append(pp.Changes,
				Change{Field: "userType", New: orDefault(r.UserType, TypeNormal)},
				Change{Field: "userStatus", New: orDefault(r.UserStatus, StatusEnable)},
				Change{Field: "password", New: "set"})
		}
		p.Processes = append(p.Processes, pp)
	}
	if have > 0 && have < len(o.Processes) {
		p.Drift = true
	}
	switch {
	case create && have == len(o.Processes):
		return nil, fault.New(fault.Conflict, "acl.user.exists", "User", r.Username).Because("user_exists")
	case !create && have == 0:
		return nil, fault.New(fault.NotFound, "acl.user.notfound", "User", r.Username).Because("user_not_found")
	}
	return s.keep(ctx, p)
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

func (s *Service) keep(ctx context.Context, p *Plan) (*Plan, error) {
	if p.Changes() == 0 {
		return nil, fault.New(fault.Invalid, "acl.input.same", "Subject", p.Subject()).Because("nothing_changes")
	}
	p.ID, p.ExpiresAt = previews.NewID(previewKind), s.previews.ExpiresAt(p.At)
	if err := s.previews.Put(ctx, p.ID, p.At, p); err != nil {
		return nil, err
	}
	return p, nil
}

// policyOf is the entries of a subject's policy of policyType on a process, by resource.
func policyOf(p Process, subject, policyType string) (map[string]rocketmq.PolicyEntry, bool) {
	out := map[string]rocketmq.PolicyEntry{}
	found := false
	for _, a := range p.ACLs {
		if a.Subject != subject {
			continue
		}
		found = true
		for _, pol := range a.Policies {
			if pol.PolicyType == policyType {
				for _, e := range pol.Entries {
					out[e.Resource] = e
				}
			}
		}
	}
	return out, found
}

// PlanPolicy previews giving a subject exactly the entries of r's policy type on every
// process (create: the subject has no such policy yet). Entries of resources r does not
// name are removed; those of the subject's other policy type stay.
func (s *Service) PlanPolicy(ctx context.Context, who Who, create bool, r PolicyRequest) (*Plan, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	mode := ModePolicyUpdate
	if create {
		mode = ModePolicyCreate
	}
	o, err := s.targets(ctx, true)
	if err != nil {
		return nil, err
	}
	if SubjectUser(r.Subject) == s.self && s.selfType(o) != TypeSuper {
		return nil, s.refusedSelf(ctx, who, mode, r.Subject, "acl.refused.self.policy")
	}
	p := &Plan{At: s.now(), Mode: mode}
	rr := r
	rr.Entries = slices.Clone(r.Entries)
	p.Policy = &rr
	want := map[string]rocketmq.PolicyEntry{}
	for _, e := range r.Entries {
		want[e.Resource] = e
	}
	have := 0
	var first map[string]rocketmq.PolicyEntry
	for _, pr := range o.Processes {
		if _, ok := userOf(pr, SubjectUser(r.Subject)); !ok {
			return nil, fault.InvalidField("subject", "acl.input.subject.nouser", "User", SubjectUser(r.Subject), "Process", pr.Name())
		}
		cur, _ := policyOf(pr, r.Subject, r.PolicyType)
		pp := ProcessPlan{Process: pr.Key(), Name: pr.Name(), Addr: pr.Addr, Exists: len(cur) > 0, Changes: []Change{}}
		if len(cur) > 0 {
			have++
			if first == nil {
				first = cur
			} else if !sameEntries(first, cur) {
				p.Drift = true
			}
		}
		for _, res := range slices.Sorted(maps.Keys(union(cur, want))) {
			c, w := textOr(cur, res), textOr(want, res)
			if c != w {
				pp.Changes = append(pp.Changes, Change{Field: res, Current: c, New: w})
			}
		}
		p.Processes = append(p.Processes, pp)
	}
	if have > 0 && have < len(o.Processes) {
		p.Drift = true
	}
	switch {
	case create && have > 0:
		return nil, fault.New(fault.Conflict, "acl.policy.exists", "Subject", r.Subject, "Type", r.PolicyType).Because("policy_exists")
	case !create && have == 0:
		return nil, fault.New(fault.NotFound, "acl.policy.notfound", "Subject", r.Subject, "Type", r.PolicyType).Because("policy_not_found")
	}
	return s.keep(ctx, p)
}

func union(a, b map[string]rocketmq.PolicyEntry) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func textOr(m map[string]rocketmq.PolicyEntry, res string) string {
	if e, ok := m[res]; ok {
		return entryText(e)
	}
	return ""
}

func sameEntries(a, b map[string]rocketmq.PolicyEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for k, e := range a {
		if textOr(b, k) != entryText(e) {
			return false
		}
	}
	return true
}

// Confirmation is the go-ahead for a previewed change; Password is the user's password
// again when the preview changes it.
type Confirmation struct {
	PlanID    string
	Confirmed bool
	Password  string
	Who       Who
}

// Apply applies a previewed change: the audit entry first (saying whether the password
// changed, never what it is), then every process is read again (a preview that no longer
// holds is refused, recorded, with nothing changed), changed and read back. Each process
// is one row of the entry.
func (s *Service) Apply(ctx context.Context, c Confirmation) (*store.AuditEntry, *Plan, error) {
	ctx = context.WithoutCancel(ctx)
	var errs fault.List
	if c.PlanID == "" {
		errs.Invalid("planId", "acl.input.plan")
	}
	if !c.Confirmed {
		errs.Invalid("confirm", "acl.input.confirm")
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	if s.audit == nil {
		return nil, nil, fault.New(fault.Unavailable, "acl.noaudit")
	}
	var p Plan
	if err := s.previews.Take(ctx, previewKind, c.PlanID, &p); err != nil {
		return nil, nil, err
	}
	if p.PasswordChanged {
		checkPassword(c.Password, true, &errs)
		if err := errs.Err(); err != nil {
			return nil, nil, err
		}
	}
	before, after := map[string]map[string]string{}, map[string]map[string]string{}
	for _, pp := range p.Processes {
		before[pp.Process], after[pp.Process] = map[string]string{}, map[string]string{}
		for _, ch := range pp.Changes {
			before[pp.Process][ch.Field], after[pp.Process][ch.Field] = ch.Current, ch.New
		}
	}
	params, _ := json.Marshal(map[string]any{"subject": p.Subject(), "user": p.User, "passwordChanged": p.PasswordChanged,
		"policy": p.Policy, "planId": p.ID, "before": before, "after": after})
	e := &store.AuditEntry{StartedAt: s.now(), Actor: c.Who.Actor, ActorAddr: c.Who.Addr, Cluster: s.ns, Mode: p.Mode, Params: params}
	var stale []i18n.Message
	err := s.audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		rows, st, err := s.execute(ctx, &p, c.Password)
		stale = st
		return rows, err
	})
	if err != nil {
		return nil, nil, s.auditFailed(err)
	}
	if len(stale) > 0 {
		return nil, nil, fault.New(fault.Conflict, "acl.stale", "Reasons", i18n.Series(i18n.ListSemicolon, stale...), "ID", e.ID).Because("preview_stale")
	}
	return e, &p, nil
}

func (s *Service) auditFailed(err error) error {
	var busy *store.AuditBusyError
	if errors.As(err, &busy) {
		return fault.Wrap(err, fault.Conflict, "acl.busy", "ID", busy.Holder.ID, "Actor", busy.Holder.Actor).Because("change_in_progress")
	}
	return fault.Wrap(err, fault.Unavailable, "acl.audit_unwritable", "Error", err.Error()).Because("audit_unavailable")
}

func rowsOf(p *Plan, method string) []store.AuditQueue {
	rows := make([]store.AuditQueue, len(p.Processes))
	for i, pp := range p.Processes {
		notes := make([]i18n.Message, len(pp.Changes))
		for j, ch := range pp.Changes {
			notes[j] = i18n.M("audit.row.change", "Field", ch.Field, "Before", orNone(ch.Current), "After", orNone(ch.New))
		}
		rows[i] = store.AuditQueue{BrokerName: pp.Process, BrokerAddr: pp.Addr, Method: method, Note: i18n.Series(i18n.ListComma, notes...)}
		if len(pp.Changes) == 0 {
			rows[i].Note = i18n.TextOf(i18n.M("acl.audit.unchanged"))
		}
	}
	return rows
}

// orNone is s, or the catalogue's word for no value.
func orNone(s string) any {
	if s == "" {
		return i18n.M("audit.row.none")
	}
	return s
}

// execute re-reads, checks, changes and reads back, once the entry is pending.
func (s *Service) execute(ctx context.Context, p *Plan, password string) ([]store.AuditQueue, []i18n.Message, error) {
	method := rocketmq.CodeAuthUpdateUser.String()
	if p.Policy != nil {
		method = rocketmq.CodeAuthUpdateACL.String()
	}
	rows := rowsOf(p, method)
	o, err := s.targets(ctx, p.Policy != nil)
	if err != nil {
		for i := range rows {
			rows[i].Error = i18n.TextOf(i18n.M("acl.audit.unread"))
		}
		why := []i18n.Message{cluster.ErrorSentence(err)}
		return rows, why, refusedAtApply(err, why)
	}
	var stale []i18n.Message
	procs := map[string]Process{}
	for _, pr := range o.Processes {
		procs[pr.Key()] = pr
	}
	for _, pp := range p.Processes {
		pr, ok := procs[pp.Process]
		if !ok || pr.Addr != pp.Addr {
			stale = append(stale, i18n.M("acl.stale.moved", "Process", pp.Process, "Addr", pp.Addr))
			continue
		}
		if p.User != nil {
			cur, exists := userOf(pr, p.User.Username)
			if exists != pp.Exists {
				stale = append(stale, i18n.M(map[bool]string{true: "acl.stale.has_user", false: "acl.stale.lost_user"}[exists], "Process", pp.Name))
				continue
			}
			for _, ch := range pp.Changes {
				if exists && (ch.Field == "userType" && cur.UserType != ch.Current || ch.Field == "userStatus" && cur.UserStatus != ch.Current) {
					stale = append(stale, i18n.M("acl.stale.user_field", "Field", ch.Field, "User", p.User.Username, "Process", pp.Name,
						"Now", map[string]string{"userType": cur.UserType, "userStatus": cur.UserStatus}[ch.Field], "Was", ch.Current))
				}
			}
			continue
		}
		cur, _ := policyOf(pr, p.Policy.Subject, p.Policy.PolicyType)
		for _, ch := range pp.Changes {
			if textOr(cur, ch.Field) != ch.Current {
				stale = append(stale, i18n.M("acl.stale.policy_field", "Field", ch.Field, "Subject", p.Policy.Subject, "Process", pp.Name,
					"Now", strconv.Quote(textOr(cur, ch.Field)), "Was", strconv.Quote(ch.Current)))
			}
		}
	}
	if len(stale) > 0 {
		for i := range rows {
			rows[i].Error = i18n.TextOf(i18n.M("audit.row.stale"))
		}
		return rows, stale, refusedAtApply(nil, stale)
	}
	f := s.cluster.Fanout(ctx)
	for _, pp := range p.Processes {
		if len(pp.Changes) == 0 {
			continue
		}
		pr := procs[pp.Process]
		f.At(pp.Process, pp.Addr, "change", func(ctx context.Context, addr string) error {
			if p.User != nil {
				return s.applyUser(ctx, addr, p, pp, password)
			}
			return s.applyPolicy(ctx, addr, p, pr)
		})
	}
	for _, fl := range f.Wait() {
		for i := range rows {
			if rows[i].BrokerName == fl.Broker && len(rows[i].Error) == 0 {
				rows[i].Error = i18n.PlainText(fl.Reason())
			}
		}
	}
	back, err := s.read(ctx, true)
	if err != nil {
		return rows, nil, fault.Wrap(err, fault.Unavailable, "acl.audit.back_failed", "Error", cluster.ErrorMessage(err))
	}
	for i, pp := range p.Processes {
		if len(rows[i].Error) > 0 || len(pp.Changes) == 0 {
			continue
		}
		j := slices.IndexFunc(back.Processes, func(b Process) bool { return b.Key() == pp.Process })
		if j < 0 {
			rows[i].Error = i18n.TextOf(i18n.M("acl.audit.unread_back"))
			continue
		}
		if miss := readBack(back.Processes[j], p); miss.ID != "" {
			rows[i].Error = i18n.TextOf(i18n.M("acl.audit.back_differs", "Miss", miss))
			continue
		}
		rows[i].Note = i18n.TextOf(i18n.M("audit.row.read_back", "Note", rows[i].Note))
	}
	return rows, nil, nil
}

// refusedAtApply is the error that records a change as refused at apply, nothing changed,
// saying why in the catalogue's words (kept so by the audit entry); cause is what made
// it stop, nil when only the preview's reasons do.
func refusedAtApply(cause error, why []i18n.Message) error {
	return fault.Wrap(errors.Join(store.ErrChangeRefused, cause), fault.Conflict, "audit.row.refused",
		"Reasons", i18n.Series(i18n.ListSemicolon, why...))
}

func (s *Service) applyUser(ctx context.Context, addr string, p *Plan, pp ProcessPlan, password string) error {
	u := rocketmq.UserChange{Username: p.User.Username, Password: password, UserType: p.User.UserType, UserStatus: p.User.UserStatus}
	if !pp.Exists {
		u.UserType, u.UserStatus = orDefault(u.UserType, TypeNormal), orDefault(u.UserStatus, StatusEnable)
		return s.admin.CreateUser(ctx, addr, u)
	}
	return s.admin.UpdateUser(ctx, addr, u)
}

// applyPolicy sets the entries first and then removes those no longer wanted, so that no
// moment has fewer entries than both the old and the new policy.
func (s *Service) applyPolicy(ctx context.Context, addr string, p *Plan, pr Process) error {
	r := p.Policy
	a := rocketmq.ACL{Subject: r.Subject, Policies: []rocketmq.Policy{{PolicyType: r.PolicyType, Entries: r.Entries}}}
	_, has := policyOf(pr, r.Subject, r.PolicyType)
	var err error
	if has {
		err = s.admin.UpdateACL(ctx, addr, a)
	} else {
		err = s.admin.CreateACL(ctx, addr, a)
	}
	if err != nil {
		return err
	}
	cur, _ := policyOf(pr, r.Subject, r.PolicyType)
	for _, res := range slices.Sorted(maps.Keys(cur)) {
		if !slices.ContainsFunc(r.Entries, func(e rocketmq.PolicyEntry) bool { return e.Resource == res }) {
			if err := s.admin.DeleteACL(ctx, addr, r.Subject, r.PolicyType, res); err != nil {
				return err
			}
		}
	}
	return nil
}

// readBack says what a process does not hold as the change set, no message when it does.
func readBack(pr Process, p *Plan) i18n.Message {
	if p.User != nil {
		u, ok := userOf(pr, p.User.Username)
		switch {
		case !ok:
			return i18n.M("acl.back.no_user", "User", p.User.Username)
		case p.User.UserType != "" && u.UserType != p.User.UserType:
			return i18n.M("audit.row.back_field", "Field", "userType", "Now", u.UserType, "Want", p.User.UserType)
		case p.User.UserStatus != "" && u.UserStatus != p.User.UserStatus:
			return i18n.M("audit.row.back_field", "Field", "userStatus", "Now", u.UserStatus, "Want", p.User.UserStatus)
		}
		return i18n.Message{}
	}
	want := map[string]rocketmq.PolicyEntry{}
	for _, e := range p.Policy.Entries {
		want[e.Resource] = e
	}
	cur, _ := policyOf(pr, p.Policy.Subject, p.Policy.PolicyType)
	if !sameEntries(cur, want) {
		return i18n.M("acl.back.entries")
	}
	return i18n.Message{}
}

// DeleteUser deletes a user on every process that has it (the brokers delete its
// policies with it). The name must be typed again; the console's own user is refused.
func (s *Service) DeleteUser(ctx context.Context, who Who, name, confirm string) (*store.AuditEntry, error) {
	ctx = context.WithoutCancel(ctx)
	if e := CheckUsername(name); e != nil {
		return nil, e
	}
	if confirm != name {
		return nil, fault.InvalidField("confirm", "acl.input.confirm.name", "Name", name)
	}
	if name == s.self {
		return nil, s.refusedSelf(ctx, who, ModeUserDelete, name, "acl.refused.self.delete")
	}
	if s.audit == nil {
		return nil, fault.New(fault.Unavailable, "acl.noaudit")
	}
	o, err := s.targets(ctx, false)
	if err != nil {
		return nil, err
	}
	var have []Process
	before := map[string]any{}
	for _, pr := range o.Processes {
		if u, ok := userOf(pr, name); ok {
			have = append(have, pr)
			before[pr.Key()] = map[string]string{"userType": u.UserType, "userStatus": u.UserStatus}
		}
	}
	if len(have) == 0 {
		return nil, fault.New(fault.NotFound, "acl.user.notfound", "User", name).Because("user_not_found")
	}
	return s.deleteOn(ctx, who, ModeUserDelete, name, have, before, rocketmq.CodeAuthDeleteUser, func(ctx context.Context, addr string) error {
		return s.admin.DeleteUser(ctx, addr, name)
	}, func(pr Process) bool { _, ok := userOf(pr, name); return !ok })
}

// DeletePolicy deletes a subject's policies on every process that has them: all of them,
// or those of policyType, or only the entry of resource. The subject must be typed again;
// the console's own, when it is a Normal user, is refused.
func (s *Service) DeletePolicy(ctx context.Context, who Who, subject, confirm, policyType, resource string) (*store.AuditEntry, error) {
	ctx = context.WithoutCancel(ctx)
	subject = Subject(subject)
	if e := CheckUsername(SubjectUser(subject)); e != nil {
		return nil, e.On("subject")
	}
	if Subject(confirm) != subject {
		return nil, fault.InvalidField("confirm", "acl.input.confirm.name", "Name", subject)
	}
	if policyType != "" {
		t, ok := canonical(policyType, PolicyTypes)
		if !ok {
			return nil, fault.InvalidField("policyType", "acl.input.policytype", "Type", freetext.Quote(policyType))
		}
		policyType = t
	}
	if resource != "" {
		r, fe := checkResource(resource)
		if fe != nil {
			return nil, fe.On("resource")
		}
		resource = r
		if policyType == "" {
			policyType = "Custom"
		}
	}
	if s.audit == nil {
		return nil, fault.New(fault.Unavailable, "acl.noaudit")
	}
	o, err := s.targets(ctx, true)
	if err != nil {
		return nil, err
	}
	if SubjectUser(subject) == s.self && s.selfType(o) != TypeSuper {
		return nil, s.refusedSelf(ctx, who, ModePolicyDelete, subject, "acl.refused.self.policy")
	}
	matches := func(pr Process) map[string]string {
		out := map[string]string{}
		for _, a := range pr.ACLs {
			if a.Subject != subject {
				continue
			}
			for _, pol := range a.Policies {
				if policyType != "" && pol.PolicyType != policyType {
					continue
				}
				for _, e := range pol.Entries {
					if resource == "" || e.Resource == resource {
						out[pol.PolicyType+" "+e.Resource] = entryText(e)
					}
				}
			}
		}
		return out
	}
	var have []Process
	before := map[string]any{}
	for _, pr := range o.Processes {
		if m := matches(pr); len(m) > 0 {
			have = append(have, pr)
			before[pr.Key()] = m
		}
	}
	if len(have) == 0 {
		return nil, fault.New(fault.NotFound, "acl.policy.none", "Subject", subject).Because("policy_not_found")
	}
	return s.deleteOn(ctx, who, ModePolicyDelete, subject, have, before, rocketmq.CodeAuthDeleteACL, func(ctx context.Context, addr string) error {
		return s.admin.DeleteACL(ctx, addr, subject, policyType, resource)
	}, func(pr Process) bool { return len(matches(pr)) == 0 })
}

// deleteOn deletes on the processes that have the subject, audited, and reads back.
func (s *Service) deleteOn(ctx context.Context, who Who, mode, subject string, have []Process, before map[string]any,
	code rocketmq.RequestCode, del func(ctx context.Context, addr string) error, gone func(Process) bool) (*store.AuditEntry, error) {
	after := map[string]any{}
	for k := range before {
		after[k] = nil
	}
	params, _ := json.Marshal(map[string]any{"subject": subject, "before": before, "after": after})
	e := &store.AuditEntry{StartedAt: s.now(), Actor: who.Actor, ActorAddr: who.Addr, Cluster: s.ns, Mode: mode, Params: params}
	err := s.audit.Change(ctx, e, func(ctx context.Context) ([]store.AuditQueue, error) {
		rows := make([]store.AuditQueue, len(have))
		f := s.cluster.Fanout(ctx)
		for i, pr := range have {
			rows[i] = store.AuditQueue{BrokerName: pr.Key(), BrokerAddr: pr.Addr, Method: code.String(), Note: i18n.TextOf(i18n.M("acl.audit.deleted"))}
			f.At(pr.Key(), pr.Addr, "delete", del)
		}
		for _, fl := range f.Wait() {
			for i := range rows {
				if rows[i].BrokerName == fl.Broker && len(rows[i].Error) == 0 {
					rows[i].Error = i18n.PlainText(fl.Reason())
				}
			}
		}
		back, err := s.read(ctx, true)
		if err != nil {
			return rows, fault.Wrap(err, fault.Unavailable, "acl.audit.deleted_back_failed", "Error", cluster.ErrorMessage(err))
		}
		for i, pr := range have {
			if len(rows[i].Error) > 0 {
				continue
			}
			j := slices.IndexFunc(back.Processes, func(b Process) bool { return b.Key() == pr.Key() })
			switch {
			case j < 0:
				rows[i].Error = i18n.TextOf(i18n.M("acl.audit.deleted_unread_back"))
			case !gone(back.Processes[j]):
				rows[i].Error = i18n.TextOf(i18n.M("acl.audit.still_there"))
			default:
				rows[i].Note = i18n.TextOf(i18n.M("audit.row.gone", "Note", rows[i].Note))
			}
		}
		return rows, nil
	})
	if err != nil {
		return nil, s.auditFailed(err)
	}
	return e, nil
}

// refuse records a refused change in the audit log, bounded: anyone with the role can
// cause one, and the log is never pruned.
func (s *Service) refuse(ctx context.Context, who Who, mode, subject string, why error) {
	if s.audit == nil {
		return
	}
	params, _ := json.Marshal(map[string]string{"subject": cutRunes(subject, 256)})
	e := &store.AuditEntry{StartedAt: s.now(), Actor: cutRunes(who.Actor, 256), ActorAddr: cutRunes(who.Addr, 256), Cluster: s.ns,
		Mode: mode, Params: params, Status: store.AuditRefused, Error: store.RefusalText(why, 1024)}
	e.FinishedAt = e.StartedAt
	_ = s.audit.Record(ctx, e)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
