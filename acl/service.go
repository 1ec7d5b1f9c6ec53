// Package acl manages a 5.x cluster's ACL 2.0 users and policies the way the console
// resets offsets: every change is previewed per broker process (current and new, where
// the processes differ today), applied with the audit entry written first, and read back.
// Users and policies live in each broker process's own store, slaves included, so every
// process of the cluster is read and changed. Passwords are never kept, shown or written
// to the audit log: a preview says that the password changes, and applying it takes the
// password again. The console refuses to delete the user it signs in with, to disable it,
// to take its Super type away, to change its password, or, when it is a Normal user, to
// change its own policies.
//
// On 4.x brokers (plain ACL) it reads the accounts and the global white list, without
// their secret keys, and changes nothing: plain_acl.yml is the broker's.
package acl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/previews"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// Admin is what the service asks RocketMQ; *rocketmq.Client implements it.
type Admin interface {
	cluster.Client
	BrokerConfig(ctx context.Context, addr string) (map[string]string, error)
	BrokerVersion(ctx context.Context, addr string) (rocketmq.BrokerVersion, error)
	ListUsers(ctx context.Context, addr, filter string) ([]rocketmq.User, error)
	CreateUser(ctx context.Context, addr string, u rocketmq.UserChange) error
	UpdateUser(ctx context.Context, addr string, u rocketmq.UserChange) error
	DeleteUser(ctx context.Context, addr, username string) error
	ListACLs(ctx context.Context, addr, subjectFilter, resourceFilter string) ([]rocketmq.ACL, error)
	CreateACL(ctx context.Context, addr string, a rocketmq.ACL) error
	UpdateACL(ctx context.Context, addr string, a rocketmq.ACL) error
	DeleteACL(ctx context.Context, addr, subject, policyType, resource string) error
	PlainACLConfig(ctx context.Context, addr string) (*rocketmq.PlainACL, error)
}

var _ Admin = (*rocketmq.Client)(nil)

// The audit modes of ACL changes.
const (
	ModeUserCreate   = "acl-user-create"
	ModeUserUpdate   = "acl-user-update"
	ModeUserDelete   = "acl-user-delete"
	ModePolicyCreate = "acl-policy-create"
	ModePolicyUpdate = "acl-policy-update"
	ModePolicyDelete = "acl-policy-delete"
)

const previewKind = "acl"

// Options configure a Service.
type Options struct {
	Cluster  *cluster.Cluster
	Audit    store.ChangeAuditor
	Previews *previews.Keeper
	// NameServers is the NameServer list the audit entries name as their cluster.
	NameServers string
	// Self is the access key the console signs its requests with ("" for none).
	Self string
	Now  func() time.Time
}

// Service reads and changes ACL 2.0 users and policies.
type Service struct {
	admin    Admin
	cluster  *cluster.Cluster
	audit    store.ChangeAuditor
	previews *previews.Keeper
	ns, self string
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
	return &Service{admin: admin, cluster: o.Cluster, audit: o.Audit, previews: o.Previews, ns: o.NameServers, self: o.Self, now: o.Now}
}

// Self is the access key the console signs with.
func (s *Service) Self() string { return s.self }

// Who is who asks for a change, for the audit log.
type Who struct{ Actor, Addr string }

// What a broker process offers.
const (
	// ModeACL2: a 5.x broker with authentication on (ACL 2.0 users and policies).
	ModeACL2 = "acl2"
	// ModePlain: a 4.x broker with plain ACL on (aclEnable).
	ModePlain = "plain"
	// ModeOff: neither is on.
	ModeOff = "off"
	// ModeMixed: the processes of the cluster do not agree.
	ModeMixed = "mixed"
)

// Process is one broker process and its access control.
type Process struct {
	Broker  string `json:"brokerName"`
	ID      int64  `json:"brokerId"`
	Role    string `json:"role"`
	Addr    string `json:"addr"`
	Version string `json:"version"`
	Mode    string `json:"mode"`
	// Authorization is set when a 5.x broker checks policies (authorizationEnabled).
	Authorization bool               `json:"authorization"`
	Users         []rocketmq.User    `json:"users,omitempty"`
	ACLs          []rocketmq.ACL     `json:"policies,omitempty"`
	Plain         *rocketmq.PlainACL `json:"plain,omitempty"`
}

// Name is how pages name the process: "broker-a master 127.0.0.1:10911".
func (p Process) Name() string { return fmt.Sprintf("%s %s %s", p.Broker, p.Role, p.Addr) }

// Key is the process's short name: "broker-a/0".
func (p Process) Key() string { return fmt.Sprintf("%s/%d", p.Broker, p.ID) }

// UserRow is a user as the processes that have it agree on, or not.
type UserRow struct {
	Username   string `json:"username"`
	UserType   string `json:"userType"`
	UserStatus string `json:"userStatus"`
	// Missing names the processes without the user; Drift is set when the processes
	// that have it disagree on its type or status.
	Missing []string `json:"missing"`
	Drift   bool     `json:"drift"`
	// Self is set for the user the console signs in with.
	Self bool `json:"self"`
}

// PolicyRow is one entry of a subject's policy, as the processes that have it agree on,
// or not.
type PolicyRow struct {
	Subject    string `json:"subject"`
	PolicyType string `json:"policyType"`
	rocketmq.PolicyEntry
	Missing []string `json:"missing"`
	Drift   bool     `json:"drift"`
}

// Overview is the cluster's access control.
type Overview struct {
	Mode      string                  `json:"mode"`
	Processes []Process               `json:"processes"`
	Users     []UserRow               `json:"users"`
	Policies  []PolicyRow             `json:"policies"`
	Failures  []cluster.BrokerFailure `json:"failures"`
	CheckedAt time.Time               `json:"checkedAt"`
}

// processes lists every broker process of the cluster, masters first per broker.
func (s *Service) processes(ctx context.Context) ([]Process, error) {
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return nil, err
	}
	bs, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	var out []Process
	for _, b := range bs {
		ids := slices.Sorted(maps.Keys(ci.Brokers[b.Name].Addrs))
		for _, id := range ids {
			p := Process{Broker: b.Name, ID: id, Addr: ci.Brokers[b.Name].Addrs[id], Role: "slave"}
			if id == 0 {
				p.Role = "master"
			}
			out = append(out, p)
		}
	}
	return out, nil
}

const (
	opConfig = "config"
	opUsers  = "users"
	opACLs   = "policies"
	opPlain  = "plain ACL"
)

// read reads every process's mode and, with users (and policies) when withACL.
func (s *Service) read(ctx context.Context, withACL bool) (*Overview, error) {
	ps, err := s.processes(ctx)
	if err != nil {
		return nil, err
	}
	f := s.cluster.Fanout(ctx)
	for i := range ps {
		p := &ps[i]
		f.At(p.Key(), p.Addr, opConfig, func(ctx context.Context, addr string) error {
			v, err := s.admin.BrokerVersion(ctx, addr)
			if err != nil {
				return err
			}
			cfg, err := s.admin.BrokerConfig(ctx, addr)
			if err != nil {
				return err
			}
			p.Version = v.String()
			switch {
			case v.Is5() && cfg["authenticationEnabled"] == "true":
				p.Mode, p.Authorization = ModeACL2, cfg["authorizationEnabled"] == "true"
			case !v.Is5() && cfg["aclEnable"] == "true":
				p.Mode = ModePlain
			default:
				p.Mode = ModeOff
			}
			return nil
		})
	}
	o := &Overview{Failures: f.Wait()}
	if withACL {
		f = s.cluster.Fanout(ctx)
		for i := range ps {
			p := &ps[i]
			switch p.Mode {
			case ModeACL2:
				f.At(p.Key(), p.Addr, opUsers, func(ctx context.Context, addr string) error {
					us, err := s.admin.ListUsers(ctx, addr, "")
					p.Users = us
					return err
				})
				if p.Authorization {
					f.At(p.Key(), p.Addr, opACLs, func(ctx context.Context, addr string) error {
						as, err := s.admin.ListACLs(ctx, addr, "", "")
						p.ACLs = as
						return err
					})
				}
			case ModePlain:
				f.At(p.Key(), p.Addr, opPlain, func(ctx context.Context, addr string) error {
					pa, err := s.admin.PlainACLConfig(ctx, addr)
					p.Plain = pa
					return err
				})
			}
		}
		o.Failures = append(o.Failures, f.Wait()...)
	}
	failed := map[string]bool{}
	for _, fl := range o.Failures {
		failed[fl.Broker] = true
	}
	for _, p := range ps {
		if !failed[p.Key()] {
			o.Processes = append(o.Processes, p)
		}
	}
	o.Mode = modeOf(o.Processes)
	o.CheckedAt = s.now()
	return o, nil
}

func modeOf(ps []Process) string {
	if len(ps) == 0 {
		return ModeOff
	}
	m := ps[0].Mode
	for _, p := range ps[1:] {
		if p.Mode != m {
			return ModeMixed
		}
	}
	return m
}

// Overview reads the cluster's users and policies on every process, and where the
// processes differ. A process that does not answer is named in Failures.
func (s *Service) Overview(ctx context.Context) (*Overview, error) {
	o, err := s.read(ctx, true)
	if err != nil {
		return nil, err
	}
	o.Users, o.Policies = mergeUsers(o.Processes, s.self), mergePolicies(o.Processes)
	return o, nil
}

func acl2(ps []Process) []Process {
	var out []Process
	for _, p := range ps {
		if p.Mode == ModeACL2 {
			out = append(out, p)
		}
	}
	return out
}

func mergeUsers(ps []Process, self string) []UserRow {
	ps = acl2(ps)
	rows := map[string]*UserRow{}
	for _, p := range ps {
		for _, u := range p.Users {
			r, ok := rows[u.Username]
			if !ok {
				r = &UserRow{Username: u.Username, UserType: u.UserType, UserStatus: u.UserStatus, Missing: []string{}, Self: u.Username == self}
				rows[u.Username] = r
			} else if r.UserType != u.UserType || r.UserStatus != u.UserStatus {
				r.Drift = true
			}
		}
	}
	out := []UserRow{}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		r := rows[name]
		for _, p := range ps {
			if !slices.ContainsFunc(p.Users, func(u rocketmq.User) bool { return u.Username == name }) {
				r.Missing = append(r.Missing, p.Key())
			}
		}
		out = append(out, *r)
	}
	return out
}

// entryOf finds the entry of resource in a subject's policy of policyType on a process.
func entryOf(p Process, subject, policyType, resource string) (rocketmq.PolicyEntry, bool) {
	for _, a := range p.ACLs {
		if a.Subject != subject {
			continue
		}
		for _, pol := range a.Policies {
			if pol.PolicyType != policyType {
				continue
			}
			for _, e := range pol.Entries {
				if e.Resource == resource {
					return e, true
				}
			}
		}
	}
	return rocketmq.PolicyEntry{}, false
}

func mergePolicies(ps []Process) []PolicyRow {
	var withAuthz []Process
	for _, p := range acl2(ps) {
		if p.Authorization {
			withAuthz = append(withAuthz, p)
		}
	}
	type key struct{ subject, policyType, resource string }
	rows := map[key]*PolicyRow{}
	for _, p := range withAuthz {
		for _, a := range p.ACLs {
			for _, pol := range a.Policies {
				for _, e := range pol.Entries {
					k := key{a.Subject, pol.PolicyType, e.Resource}
					r, ok := rows[k]
					if !ok {
						r = &PolicyRow{Subject: a.Subject, PolicyType: pol.PolicyType, PolicyEntry: e, Missing: []string{}}
						rows[k] = r
					} else if entryText(r.PolicyEntry) != entryText(e) {
						r.Drift = true
					}
				}
			}
		}
	}
	keys := slices.SortedFunc(maps.Keys(rows), func(a, b key) int {
		return strings.Compare(a.subject+"\x00"+a.policyType+"\x00"+a.resource, b.subject+"\x00"+b.policyType+"\x00"+b.resource)
	})
	out := []PolicyRow{}
	for _, k := range keys {
		r := rows[k]
		for _, p := range withAuthz {
			if _, ok := entryOf(p, k.subject, k.policyType, k.resource); !ok {
				r.Missing = append(r.Missing, p.Key())
			}
		}
		out = append(out, *r)
	}
	return out
}

// targets are the processes a change goes to: every process of the cluster, each with
// ACL 2.0 on (and, for policies, authorization on). A process that cannot be read, or
// without ACL 2.0, refuses the change: users live in each process's own store, and one
// left out would let the user in on one broker and not another.
func (s *Service) targets(ctx context.Context, policies bool) (*Overview, error) {
	o, err := s.read(ctx, true)
	if err != nil {
		return nil, err
	}
	if len(o.Failures) > 0 {
		parts := make([]string, len(o.Failures))
		errs := make([]error, len(o.Failures))
		for i, f := range o.Failures {
			parts[i], errs[i] = f.Error(), f
		}
		return nil, fault.Wrap(errors.Join(errs...), fault.Unavailable, "acl.unreadable", "Failures", strings.Join(parts, "; ")).Because("broker_unreadable")
	}
	for _, p := range o.Processes {
		switch {
		case p.Mode == ModePlain:
			return nil, fault.New(fault.Refused, "acl.refused.plain", "Process", p.Name(), "Version", p.Version).Because("plain_acl")
		case p.Mode != ModeACL2:
			return nil, fault.New(fault.Refused, "acl.refused.off", "Process", p.Name(), "Version", p.Version).Because("acl_off")
		case policies && !p.Authorization:
			return nil, fault.New(fault.Refused, "acl.refused.noauthz", "Process", p.Name()).Because("authorization_off")
		}
	}
	if len(o.Processes) == 0 {
		return nil, fault.New(fault.Unavailable, "acl.noprocess")
	}
	return o, nil
}
