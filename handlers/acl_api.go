package handlers

import (
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"rmqconsole/acl"
	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/views"
)

// ACLJSON answers GET /api/v1/acl/users and /api/v1/acl/policies: the processes read,
// with the users or policies as they agree (or not).
type ACLJSON struct {
	Mode      string                  `json:"mode"`
	Processes []ACLProcessJSON        `json:"processes"`
	Users     []acl.UserRow           `json:"users,omitempty"`
	Policies  []acl.PolicyRow         `json:"policies,omitempty"`
	Plain     []ACLPlainJSON          `json:"plain,omitempty"`
	Failures  []cluster.BrokerFailure `json:"failures"`
	CheckedAt string                  `json:"checkedAt"`
}

// ACLProcessJSON is one broker process and what it offers.
type ACLProcessJSON struct {
	BrokerName    string `json:"brokerName"`
	BrokerID      int64  `json:"brokerId"`
	Role          string `json:"role"`
	Addr          string `json:"addr"`
	Version       string `json:"version"`
	Mode          string `json:"mode"`
	Authorization bool   `json:"authorization"`
}

// ACLPlainJSON is a 4.x process's plain ACL, without secret keys.
type ACLPlainJSON struct {
	BrokerName string             `json:"brokerName"`
	Addr       string             `json:"addr"`
	ACL        *rocketmq.PlainACL `json:"acl"`
}

func (h *ACL) overview(c *gin.Context) (*acl.Overview, ACLJSON, bool) {
	if h.ACL == nil {
		h.Fail(c, errNoClusterSettings)
		return nil, ACLJSON{}, false
	}
	o, err := h.ACL.Overview(c.Request.Context())
	if err != nil {
		h.Fail(c, err)
		return nil, ACLJSON{}, false
	}
	out := ACLJSON{Mode: o.Mode, Processes: []ACLProcessJSON{}, Failures: o.Failures, CheckedAt: views.ISO(o.CheckedAt)}
	if out.Failures == nil {
		out.Failures = []cluster.BrokerFailure{}
	}
	for _, p := range o.Processes {
		out.Processes = append(out.Processes, ACLProcessJSON{BrokerName: p.Broker, BrokerID: p.ID, Role: p.Role, Addr: p.Addr,
			Version: p.Version, Mode: p.Mode, Authorization: p.Authorization})
		if p.Plain != nil {
			out.Plain = append(out.Plain, ACLPlainJSON{BrokerName: p.Broker, Addr: p.Addr, ACL: p.Plain})
		}
	}
	return o, out, true
}

// UsersAPI answers GET /api/v1/acl/users.
func (h *ACL) UsersAPI(c *gin.Context) {
	o, out, ok := h.overview(c)
	if !ok {
		return
	}
	out.Users = o.Users
	if out.Users == nil {
		out.Users = []acl.UserRow{}
	}
	c.JSON(http.StatusOK, out)
}

// UserAPI answers GET /api/v1/acl/users/{name}.
func (h *ACL) UserAPI(c *gin.Context) {
	name := c.Param("name")
	if e := acl.CheckUsername(name); e != nil {
		h.Fail(c, e)
		return
	}
	o, out, ok := h.overview(c)
	if !ok {
		return
	}
	i := slices.IndexFunc(o.Users, func(u acl.UserRow) bool { return u.Username == name })
	if i < 0 {
		h.Fail(c, fault.New(fault.NotFound, "acl.user.notfound", "User", name).Because("user_not_found"))
		return
	}
	out.Users = o.Users[i : i+1]
	c.JSON(http.StatusOK, out)
}

// PoliciesAPI answers GET /api/v1/acl/policies.
func (h *ACL) PoliciesAPI(c *gin.Context) {
	o, out, ok := h.overview(c)
	if !ok {
		return
	}
	out.Policies = o.Policies
	if out.Policies == nil {
		out.Policies = []acl.PolicyRow{}
	}
	c.JSON(http.StatusOK, out)
}

// PolicyAPI answers GET /api/v1/acl/policies/{subject}.
func (h *ACL) PolicyAPI(c *gin.Context) {
	subject := acl.Subject(c.Param("subject"))
	if e := acl.CheckUsername(acl.SubjectUser(subject)); e != nil {
		h.Fail(c, e.On("subject"))
		return
	}
	o, out, ok := h.overview(c)
	if !ok {
		return
	}
	out.Policies = []acl.PolicyRow{}
	for _, p := range o.Policies {
		if p.Subject == subject {
			out.Policies = append(out.Policies, p)
		}
	}
	if len(out.Policies) == 0 {
		h.Fail(c, fault.New(fault.NotFound, "acl.policy.none", "Subject", subject).Because("policy_not_found"))
		return
	}
	c.JSON(http.StatusOK, out)
}

// userBody is what POST /api/v1/acl/users and PUT /api/v1/acl/users/{name} take: the
// user (answered with a preview), or a preview's planId with "confirm": true (and the
// password again when the preview changes it) to apply it.
type userBody struct {
	acl.UserRequest
	PlanID  string `json:"planId"`
	Confirm bool   `json:"confirm"`
}

// policyBody is what POST /api/v1/acl/policies and PUT /api/v1/acl/policies/{subject}
// take: the policy (answered with a preview), or a preview's planId with "confirm": true.
type policyBody struct {
	acl.PolicyRequest
	PlanID  string `json:"planId"`
	Confirm bool   `json:"confirm"`
}

// applyOrPreview applies a preview named by planId, else answers the preview made by plan.
func (h *ACL) applyOrPreview(c *gin.Context, planID string, confirm bool, password string, plan func() (*acl.Plan, error)) {
	if planID != "" {
		e, p, err := h.ACL.Apply(c.Request.Context(), acl.Confirmation{PlanID: planID, Confirmed: confirm, Password: password, Who: aclWho(c)})
		if err != nil {
			h.Fail(c, err)
			return
		}
		created := p.Mode == acl.ModeUserCreate || p.Mode == acl.ModePolicyCreate
		h.answerChangeEntry(c, e, created && e.Status == "applied")
		return
	}
	p, err := plan()
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, p)
}

// CreateUserAPI answers POST /api/v1/acl/users.
func (h *ACL) CreateUserAPI(c *gin.Context) { h.userAPI(c, true) }

// UpdateUserAPI answers PUT /api/v1/acl/users/{name}.
func (h *ACL) UpdateUserAPI(c *gin.Context) { h.userAPI(c, false) }

func (h *ACL) userAPI(c *gin.Context, create bool) {
	if h.ACL == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	var body userBody
	if err := decodeAPIBody(c, &body); err != nil {
		h.Fail(c, badJSON(err))
		return
	}
	if name := c.Param("name"); !create {
		if body.Username != "" && body.Username != name {
			h.Fail(c, fault.InvalidField("username", "acl.input.username.path", "Name", name))
			return
		}
		body.Username = name
	}
	h.applyOrPreview(c, body.PlanID, body.Confirm, body.Password, func() (*acl.Plan, error) {
		return h.ACL.PlanUser(c.Request.Context(), aclWho(c), create, body.UserRequest)
	})
}

// DeleteUserAPI answers DELETE /api/v1/acl/users/{name}?confirm={name}.
func (h *ACL) DeleteUserAPI(c *gin.Context) {
	if h.ACL == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	e, err := h.ACL.DeleteUser(c.Request.Context(), aclWho(c), c.Param("name"), c.Query("confirm"))
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.answerChangeEntry(c, e, false)
}

// CreatePolicyAPI answers POST /api/v1/acl/policies.
func (h *ACL) CreatePolicyAPI(c *gin.Context) { h.policyAPI(c, true) }

// UpdatePolicyAPI answers PUT /api/v1/acl/policies/{subject}.
func (h *ACL) UpdatePolicyAPI(c *gin.Context) { h.policyAPI(c, false) }

func (h *ACL) policyAPI(c *gin.Context, create bool) {
	if h.ACL == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	var body policyBody
	if err := decodeAPIBody(c, &body); err != nil {
		h.Fail(c, badJSON(err))
		return
	}
	if !create {
		subject := acl.Subject(c.Param("subject"))
		if body.Subject != "" && acl.Subject(body.Subject) != subject {
			h.Fail(c, fault.InvalidField("subject", "acl.input.subject.path", "Subject", subject))
			return
		}
		body.Subject = subject
	}
	h.applyOrPreview(c, body.PlanID, body.Confirm, "", func() (*acl.Plan, error) {
		return h.ACL.PlanPolicy(c.Request.Context(), aclWho(c), create, body.PolicyRequest)
	})
}

// DeletePolicyAPI answers DELETE /api/v1/acl/policies/{subject}?confirm={subject}
// [&policyType=][&resource=].
func (h *ACL) DeletePolicyAPI(c *gin.Context) {
	if h.ACL == nil {
		h.Fail(c, errNoClusterSettings)
		return
	}
	e, err := h.ACL.DeletePolicy(c.Request.Context(), aclWho(c), c.Param("subject"), c.Query("confirm"), c.Query("policyType"), c.Query("resource"))
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.answerChangeEntry(c, e, false)
}
