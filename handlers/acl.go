package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/acl"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
	"rmqconsole/views"
)

// ACLService is what the ACL page and API need from package acl.
type ACLService interface {
	Self() string
	Overview(ctx context.Context) (*acl.Overview, error)
	PlanUser(ctx context.Context, who acl.Who, create bool, r acl.UserRequest) (*acl.Plan, error)
	PlanPolicy(ctx context.Context, who acl.Who, create bool, r acl.PolicyRequest) (*acl.Plan, error)
	Apply(ctx context.Context, c acl.Confirmation) (*store.AuditEntry, *acl.Plan, error)
	DeleteUser(ctx context.Context, who acl.Who, name, confirm string) (*store.AuditEntry, error)
	DeletePolicy(ctx context.Context, who acl.Who, subject, confirm, policyType, resource string) (*store.AuditEntry, error)
}

// ACL is /acl and /api/v1/acl/...: admins only (access_rules.go).
type ACL struct {
	*Env
	// ACL is nil when no NameServer is configured.
	ACL ACLService
}

func aclWho(c *gin.Context) acl.Who { return acl.Who{Actor: Actor(c), Addr: c.ClientIP()} }

// Show renders /acl; ?user= starts the user form from that user, ?subject= the policy
// form from that subject's policy.
func (h *ACL) Show(c *gin.Context) {
	vm, ok := h.readPage(c)
	if !ok {
		return
	}
	h.renderACL(c, http.StatusOK, vm)
}

func (h *ACL) renderACL(c *gin.Context, status int, vm views.ACLVM) {
	h.render(c, status, h.page(c, i18n.From(c.Request.Context()).T("acl.title"), "brokers"), views.ACLPage(vm))
}

// readPage reads the cluster's access control into the page.
func (h *ACL) readPage(c *gin.Context) (views.ACLVM, bool) {
	var vm views.ACLVM
	if h.ACL == nil {
		h.Fail(c, errNoCluster())
		return vm, false
	}
	l := i18n.From(c.Request.Context())
	vm.Self = h.ACL.Self()
	o, err := h.ACL.Overview(c.Request.Context())
	if err != nil {
		vm.Error = l.T("acl.read_failed", "Error", sayErr(l, err))
		vm.Mode = acl.ModeOff
		return vm, true
	}
	fillACL(&vm, o)
	vm.Failures = sayFailures(l, o.Failures)
	if name := c.Query("user"); name != "" {
		for _, u := range o.Users {
			if u.Username == name {
				vm.UserForm = views.ACLUserForm{Update: true, Username: name}
			}
		}
	}
	if subject := c.Query("subject"); subject != "" {
		subject = acl.Subject(subject)
		var lines []string
		for _, p := range o.Policies {
			if p.Subject == subject && p.PolicyType == "Custom" {
				lines = append(lines, entryLine(p.PolicyEntry))
			}
		}
		if len(lines) > 0 {
			vm.PolicyForm = views.ACLPolicyForm{Update: true, Subject: subject, PolicyType: "Custom", Entries: strings.Join(lines, "\n")}
		}
	}
	return vm, true
}

func fillACL(vm *views.ACLVM, o *acl.Overview) {
	vm.Mode = o.Mode
	for _, p := range o.Processes {
		vm.Processes = append(vm.Processes, views.ACLProcessVM{Key: p.Key(), Name: p.Name(), Version: p.Version, Mode: p.Mode, Authorization: p.Authorization})
		if p.Plain != nil {
			pv := views.ACLPlainVM{Process: p.Name(), GlobalWhiteAddrs: orDash(strings.Join(p.Plain.GlobalWhiteAddrs, ", "))}
			for _, a := range p.Plain.Accounts {
				pv.Accounts = append(pv.Accounts, views.ACLPlainAccount{AccessKey: a.AccessKey, WhiteRemoteAddress: a.WhiteRemoteAddress,
					DefaultTopicPerm: a.DefaultTopicPerm, DefaultGroupPerm: a.DefaultGroupPerm, TopicPerms: strings.Join(a.TopicPerms, ", "),
					GroupPerms: strings.Join(a.GroupPerms, ", "), Admin: a.Admin})
			}
			vm.Plain = append(vm.Plain, pv)
		}
	}
	for _, u := range o.Users {
		vm.Users = append(vm.Users, views.ACLUserRow{Username: u.Username, UserType: u.UserType, UserStatus: u.UserStatus,
			Missing: strings.Join(u.Missing, ", "), Drift: u.Drift, Self: u.Self, EditURL: "/acl?user=" + url.QueryEscape(u.Username) + "#acl-user-form"})
	}
	for _, p := range o.Policies {
		vm.Policies = append(vm.Policies, views.ACLPolicyRow{Subject: p.Subject, PolicyType: p.PolicyType, Resource: p.Resource,
			Actions: strings.Join(p.Actions, ","), SourceIPs: strings.Join(p.SourceIPs, ", "), Decision: p.Decision,
			Missing: strings.Join(p.Missing, ", "), Drift: p.Drift})
	}
}

// entryLine is a policy entry as the policy form writes it: "Resource Actions Decision [IPs]".
func entryLine(e rocketmq.PolicyEntry) string {
	line := e.Resource + " " + strings.Join(e.Actions, ",") + " " + e.Decision
	if len(e.SourceIPs) > 0 {
		line += " " + strings.Join(e.SourceIPs, ",")
	}
	return line
}

// parseEntries reads the policy form's lines.
func parseEntries(s string) ([]rocketmq.PolicyEntry, error) {
	var out []rocketmq.PolicyEntry
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case len(f) < 3 || len(f) > 4:
			return out, fault.InvalidField("entries", "acl.form.entry", "Line", views.Cut(strings.TrimSpace(line)))
		}
		e := rocketmq.PolicyEntry{Resource: f[0], Actions: strings.Split(f[1], ","), Decision: f[2]}
		if len(f) == 4 {
			e.SourceIPs = strings.Split(f[3], ",")
		}
		out = append(out, e)
	}
	return out, nil
}

func planVM(l *i18n.Localizer, p *acl.Plan) *views.ACLPreviewVM {
	vm := &views.ACLPreviewVM{PlanID: p.ID, ExpiresAt: views.TimeUTC(p.ExpiresAt), Password: p.PasswordChanged, Drift: p.Drift,
		Title:  l.T("acl.preview."+p.Mode, "Subject", views.Cut(p.Subject())),
		Button: l.N("acl.apply", p.Changes(), "Subject", views.Cut(p.Subject()), "N", len(p.Processes))}
	for _, pp := range p.Processes {
		b := views.PreviewBrokerVM{Name: pp.Process, Addr: pp.Addr}
		switch {
		case !pp.Exists && p.User != nil:
			b.Note = l.T("acl.preview.creates")
		case !pp.Exists:
			b.Note = l.T("acl.preview.creates.policy", "Type", p.Policy.PolicyType)
		}
		for _, ch := range pp.Changes {
			b.Changes = append(b.Changes, views.PreviewChangeVM{Field: ch.Field, Current: orDash(ch.Current), New: orDash(ch.New)})
		}
		vm.Processes = append(vm.Processes, b)
	}
	return vm
}

// PreviewUser is POST /acl/users/preview.
func (h *ACL) PreviewUser(c *gin.Context) {
	vm, ok := h.readPage(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	update := c.PostForm("update") == "true"
	r := acl.UserRequest{Username: strings.TrimSpace(c.PostForm("username")), Password: c.PostForm("password"),
		UserType: c.PostForm("userType"), UserStatus: c.PostForm("userStatus")}
	vm.UserForm = views.ACLUserForm{Update: update, Username: r.Username, UserType: r.UserType, UserStatus: r.UserStatus}
	p, err := h.ACL.PlanUser(c.Request.Context(), aclWho(c), !update, r)
	if err != nil {
		if !showOnForm(l, &vm.UserForm.FieldErrors, &vm.UserForm.Error, err) {
			h.Fail(c, err)
			return
		}
		h.renderACL(c, http.StatusUnprocessableEntity, vm)
		return
	}
	vm.Preview = planVM(l, p)
	h.renderACL(c, http.StatusOK, vm)
}

// PreviewPolicy is POST /acl/policies/preview.
func (h *ACL) PreviewPolicy(c *gin.Context) {
	vm, ok := h.readPage(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	update := c.PostForm("update") == "true"
	vm.PolicyForm = views.ACLPolicyForm{Update: update, Subject: strings.TrimSpace(c.PostForm("subject")), PolicyType: c.PostForm("policyType"),
		Entries: c.PostForm("entries")}
	entries, err := parseEntries(vm.PolicyForm.Entries)
	var p *acl.Plan
	if err == nil {
		p, err = h.ACL.PlanPolicy(c.Request.Context(), aclWho(c), !update, acl.PolicyRequest{Subject: vm.PolicyForm.Subject,
			PolicyType: vm.PolicyForm.PolicyType, Entries: entries})
	}
	if err != nil {
		if !showOnForm(l, &vm.PolicyForm.FieldErrors, &vm.PolicyForm.Error, err) {
			h.Fail(c, err)
			return
		}
		h.renderACL(c, http.StatusUnprocessableEntity, vm)
		return
	}
	vm.Preview = planVM(l, p)
	h.renderACL(c, http.StatusOK, vm)
}

// Apply is POST /acl/apply: the outcome above the page read again.
func (h *ACL) Apply(c *gin.Context) {
	if h.ACL == nil {
		h.Fail(c, errNoCluster())
		return
	}
	l := i18n.From(c.Request.Context())
	e, _, err := h.ACL.Apply(c.Request.Context(), acl.Confirmation{PlanID: c.PostForm("planId"), Confirmed: c.PostForm("confirm") != "",
		Password: c.PostForm("password"), Who: aclWho(c)})
	vm, ok := h.readPage(c)
	if !ok {
		return
	}
	if err != nil {
		if !showOnForm(l, &vm.UserForm.FieldErrors, &vm.UserForm.Error, err) {
			h.Fail(c, err)
			return
		}
		status, _ := errorStatus(err)
		if status < 500 {
			status = http.StatusUnprocessableEntity
		}
		h.renderACL(c, status, vm)
		return
	}
	vm.Result = changeResultVM(l, e)
	h.renderACL(c, http.StatusOK, vm)
}

// Delete is POST /acl/delete: a user or a subject's policies, the name typed again.
func (h *ACL) Delete(c *gin.Context) {
	if h.ACL == nil {
		h.Fail(c, errNoCluster())
		return
	}
	l := i18n.From(c.Request.Context())
	f := views.ACLDeleteForm{Kind: c.PostForm("kind"), Name: strings.TrimSpace(c.PostForm("name")), Confirm: strings.TrimSpace(c.PostForm("confirm"))}
	var e *store.AuditEntry
	var err error
	if f.Kind == "policy" {
		e, err = h.ACL.DeletePolicy(c.Request.Context(), aclWho(c), f.Name, f.Confirm, "", "")
	} else {
		e, err = h.ACL.DeleteUser(c.Request.Context(), aclWho(c), f.Name, f.Confirm)
	}
	vm, ok := h.readPage(c)
	if !ok {
		return
	}
	vm.Delete = f
	if err != nil {
		if fe := fault.As(err); fe != nil && (fe.Field == "username" || fe.Field == "subject") {
			fe.Field = "name"
		}
		if !showOnForm(l, &vm.Delete.FieldErrors, &vm.Delete.Error, err) {
			h.Fail(c, err)
			return
		}
		h.renderACL(c, http.StatusUnprocessableEntity, vm)
		return
	}
	vm.Delete = views.ACLDeleteForm{}
	vm.Result = changeResultVM(l, e)
	h.renderACL(c, http.StatusOK, vm)
}
