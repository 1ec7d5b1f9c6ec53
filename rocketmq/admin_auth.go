package rocketmq

import (
	"context"
	"encoding/json"
	"fmt"
)

// User is an ACL 2.0 user as a broker lists it (5.3.0+). Brokers answer with the
// password in clear; it is dropped while decoding and never reaches the caller.
type User struct {
	Username string `json:"username"`
	// UserType is "Super" (not checked by authorization) or "Normal".
	UserType string `json:"userType"`
	// UserStatus is "enable" or "disable".
	UserStatus string `json:"userStatus"`
}

// UserChange is what creating or updating a user sends. An empty field is not sent: an
// update keeps what the user has (the broker changes only the fields it is sent).
type UserChange struct {
	Username   string `json:"username"`
	Password   string `json:"password,omitempty"`
	UserType   string `json:"userType,omitempty"`
	UserStatus string `json:"userStatus,omitempty"`
}

// String names the user and what is changed, never the password.
func (u UserChange) String() string {
	pw := ""
	if u.Password != "" {
		pw = ", password changed"
	}
	return fmt.Sprintf("user %s (type %q, status %q%s)", u.Username, u.UserType, u.UserStatus, pw)
}

// GoString masks the password in %#v too.
func (u UserChange) GoString() string { return "rocketmq.UserChange{" + u.String() + "}" }

// ACL is a subject's policies (ACL 2.0).
type ACL struct {
	// Subject is "User:<name>".
	Subject  string   `json:"subject"`
	Policies []Policy `json:"policies"`
}

// Policy is one policy type's entries of a subject.
type Policy struct {
	// PolicyType is "Custom" or "Default".
	PolicyType string        `json:"policyType"`
	Entries    []PolicyEntry `json:"entries"`
}

// PolicyEntry allows or denies actions on a resource, from source addresses.
type PolicyEntry struct {
	// Resource is "Cluster:<name>", "Namespace:<ns>", "Topic:<t>", "Group:<g>"; a name
	// ending in "*" is a prefix, "Topic:*" any topic and "*" anything.
	Resource string `json:"resource"`
	// Actions are among All, Pub, Sub, Create, Update, Delete, Get, List.
	Actions []string `json:"actions"`
	// SourceIPs are addresses or CIDR ranges; none means from anywhere.
	SourceIPs []string `json:"sourceIps,omitempty"`
	// Decision is "Allow" or "Deny".
	Decision string `json:"decision"`
}

func (c *Client) writeUser(ctx context.Context, addr string, code RequestCode, u UserChange) error {
	body, err := json.Marshal(u)
	if err == nil {
		_, err = c.call(ctx, addr, code, map[string]string{"username": u.Username}, body)
	}
	if err != nil {
		what := "create"
		if code == CodeAuthUpdateUser {
			what = "update"
		}
		return fmt.Errorf("%s user %s on %s: %w", what, u.Username, addr, err)
	}
	return nil
}

// CreateUser creates an ACL 2.0 user on the broker process at addr (AUTH_CREATE_USER).
// Users live in each broker process's own store, slaves included: create it on each.
func (c *Client) CreateUser(ctx context.Context, addr string, u UserChange) error {
	return c.writeUser(ctx, addr, CodeAuthCreateUser, u)
}

// UpdateUser changes the fields of u that are set on the broker process at addr
// (AUTH_UPDATE_USER).
func (c *Client) UpdateUser(ctx context.Context, addr string, u UserChange) error {
	return c.writeUser(ctx, addr, CodeAuthUpdateUser, u)
}

// DeleteUser deletes a user on the broker process at addr (AUTH_DELETE_USER); the broker
// deletes the user's policies with it.
func (c *Client) DeleteUser(ctx context.Context, addr, username string) error {
	if _, err := c.call(ctx, addr, CodeAuthDeleteUser, map[string]string{"username": username}, nil); err != nil {
		return fmt.Errorf("delete user %s on %s: %w", username, addr, err)
	}
	return nil
}

// GetUser returns one user of the broker process at addr (AUTH_GET_USER), nil when it
// has none of that name.
func (c *Client) GetUser(ctx context.Context, addr, username string) (*User, error) {
	resp, err := c.call(ctx, addr, CodeAuthGetUser, map[string]string{"username": username}, nil)
	if err != nil {
		return nil, fmt.Errorf("user %s on %s: %w", username, addr, err)
	}
	if len(resp.Body) == 0 || string(resp.Body) == "null" {
		return nil, nil
	}
	var u User
	if err := decodeBody(resp.Body, &u); err != nil {
		return nil, fmt.Errorf("user %s on %s: %w", username, addr, err)
	}
	return &u, nil
}

// ListUsers returns the users of the broker process at addr (AUTH_LIST_USER) whose name
// contains filter ("" for all).
func (c *Client) ListUsers(ctx context.Context, addr, filter string) ([]User, error) {
	var ext map[string]string
	if filter != "" {
		ext = map[string]string{"filter": filter}
	}
	resp, err := c.call(ctx, addr, CodeAuthListUser, ext, nil)
	if err != nil {
		return nil, fmt.Errorf("users on %s: %w", addr, err)
	}
	var us []User
	if len(resp.Body) > 0 {
		if err := decodeBody(resp.Body, &us); err != nil {
			return nil, fmt.Errorf("users on %s: %w", addr, err)
		}
	}
	return us, nil
}

func (c *Client) writeACL(ctx context.Context, addr string, code RequestCode, a ACL) error {
	body, err := json.Marshal(a)
	if err == nil {
		_, err = c.call(ctx, addr, code, map[string]string{"subject": a.Subject}, body)
	}
	if err != nil {
		what := "create"
		if code == CodeAuthUpdateACL {
			what = "update"
		}
		return fmt.Errorf("%s policy of %s on %s: %w", what, a.Subject, addr, err)
	}
	return nil
}

// CreateACL gives a subject policies on the broker process at addr (AUTH_CREATE_ACL).
// The subject's user must exist there.
func (c *Client) CreateACL(ctx context.Context, addr string, a ACL) error {
	return c.writeACL(ctx, addr, CodeAuthCreateACL, a)
}

// UpdateACL changes a subject's policies on the broker process at addr
// (AUTH_UPDATE_ACL): each entry sent replaces the entry of the same resource, or is
// added; entries not sent stay.
func (c *Client) UpdateACL(ctx context.Context, addr string, a ACL) error {
	return c.writeACL(ctx, addr, CodeAuthUpdateACL, a)
}

// DeleteACL deletes policies of a subject on the broker process at addr
// (AUTH_DELETE_ACL): every policy when policyType and resource are "", else the
// entries of that type and resource.
func (c *Client) DeleteACL(ctx context.Context, addr, subject, policyType, resource string) error {
	ext := map[string]string{"subject": subject}
	if policyType != "" {
		ext["policyType"] = policyType
	}
	if resource != "" {
		ext["resource"] = resource
	}
	if _, err := c.call(ctx, addr, CodeAuthDeleteACL, ext, nil); err != nil {
		return fmt.Errorf("delete policy of %s on %s: %w", subject, addr, err)
	}
	return nil
}

// GetACL returns a subject's policies on the broker process at addr (AUTH_GET_ACL), nil
// when it has none.
func (c *Client) GetACL(ctx context.Context, addr, subject string) (*ACL, error) {
	resp, err := c.call(ctx, addr, CodeAuthGetACL, map[string]string{"subject": subject}, nil)
	if err != nil {
		return nil, fmt.Errorf("policy of %s on %s: %w", subject, addr, err)
	}
	if len(resp.Body) == 0 || string(resp.Body) == "null" {
		return nil, nil
	}
	var a ACL
	if err := decodeBody(resp.Body, &a); err != nil {
		return nil, fmt.Errorf("policy of %s on %s: %w", subject, addr, err)
	}
	return &a, nil
}

// ListACLs returns the policies on the broker process at addr (AUTH_LIST_ACL), those of
// subjects containing subjectFilter and with a resource containing resourceFilter
// ("" for all).
func (c *Client) ListACLs(ctx context.Context, addr, subjectFilter, resourceFilter string) ([]ACL, error) {
	ext := map[string]string{}
	if subjectFilter != "" {
		ext["subjectFilter"] = subjectFilter
	}
	if resourceFilter != "" {
		ext["resourceFilter"] = resourceFilter
	}
	resp, err := c.call(ctx, addr, CodeAuthListACL, ext, nil)
	if err != nil {
		return nil, fmt.Errorf("policies on %s: %w", addr, err)
	}
	var as []ACL
	if len(resp.Body) > 0 {
		if err := decodeBody(resp.Body, &as); err != nil {
			return nil, fmt.Errorf("policies on %s: %w", addr, err)
		}
	}
	return as, nil
}

// PlainACL is a 4.x broker's plain ACL (plain_acl.yml) as GET_BROKER_CLUSTER_ACL_CONFIG
// answers it. The accounts' secret keys are dropped while decoding.
type PlainACL struct {
	GlobalWhiteAddrs []string       `json:"globalWhiteAddrs"`
	Accounts         []PlainAccount `json:"plainAccessConfigs"`
}

// PlainAccount is one plain ACL account, without its secret key.
type PlainAccount struct {
	AccessKey          string   `json:"accessKey"`
	WhiteRemoteAddress string   `json:"whiteRemoteAddress"`
	Admin              bool     `json:"admin"`
	DefaultTopicPerm   string   `json:"defaultTopicPerm"`
	DefaultGroupPerm   string   `json:"defaultGroupPerm"`
	TopicPerms         []string `json:"topicPerms"`
	GroupPerms         []string `json:"groupPerms"`
}

// PlainACLConfig reads the plain ACL of the 4.x broker at addr
// (GET_BROKER_CLUSTER_ACL_CONFIG, 54). 5.3.3 and later answer REQUEST_CODE_NOT_SUPPORTED
// (ErrNotSupported): plain ACL is gone there.
func (c *Client) PlainACLConfig(ctx context.Context, addr string) (*PlainACL, error) {
	resp, err := c.call(ctx, addr, CodeGetBrokerClusterACLConfig, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("plain ACL of %s: %w", addr, err)
	}
	var p PlainACL
	if err := decodeBody(resp.Body, &p); err != nil {
		return nil, fmt.Errorf("plain ACL of %s: %w", addr, err)
	}
	return &p, nil
}
