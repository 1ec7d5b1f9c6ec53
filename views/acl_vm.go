package views

// ACLVM is /acl: the cluster's ACL 2.0 users and policies on every broker process (where
// the processes differ marked), the forms that change them, a change's preview and its
// outcome; on 4.x the plain ACL accounts, read-only.
type ACLVM struct {
	// Mode is "acl2", "plain", "off" or "mixed".
	Mode string
	// Self is the access key the console signs with ("" for none).
	Self      string
	Processes []ACLProcessVM
	Users     []ACLUserRow
	Policies  []ACLPolicyRow
	Plain     []ACLPlainVM
	Error     string
	Failures  []string
	// Result is what the last change did; Preview a change waiting to be applied.
	Result  *ChangeResultVM
	Preview *ACLPreviewVM
	// UserForm and PolicyForm create or change a user or a policy; DeleteForm deletes one.
	UserForm   ACLUserForm
	PolicyForm ACLPolicyForm
	Delete     ACLDeleteForm
}

// ACLProcessVM is one broker process and what it offers.
type ACLProcessVM struct {
	Key, Name, Version, Mode string
	Authorization            bool
}

// ACLUserRow is one user.
type ACLUserRow struct {
	Username, UserType, UserStatus string
	Missing                        string
	Drift, Self                    bool
	EditURL                        string
}

// ACLPolicyRow is one entry of a subject's policy.
type ACLPolicyRow struct {
	Subject, PolicyType, Resource, Actions, SourceIPs, Decision string
	Missing                                                     string
	Drift                                                       bool
}

// ACLPlainVM is one 4.x process's plain ACL, without secret keys.
type ACLPlainVM struct {
	Process          string
	GlobalWhiteAddrs string
	Accounts         []ACLPlainAccount
}

// ACLPlainAccount is one plain ACL account.
type ACLPlainAccount struct {
	AccessKey, WhiteRemoteAddress, DefaultTopicPerm, DefaultGroupPerm, TopicPerms, GroupPerms string
	Admin                                                                                     bool
}

// ACLUserForm creates a user, or changes one (Update): a field left empty is kept.
type ACLUserForm struct {
	Update                         bool
	Username, UserType, UserStatus string
	FieldErrors                    map[string]string
	Error                          string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (f ACLUserForm) FieldError(name string) string { return f.FieldErrors[name] }

// ACLPolicyForm gives a subject a policy, or replaces one (Update): one entry per line,
// "Resource Actions Decision [sourceIPs]".
type ACLPolicyForm struct {
	Update                       bool
	Subject, PolicyType, Entries string
	FieldErrors                  map[string]string
	Error                        string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (f ACLPolicyForm) FieldError(name string) string { return f.FieldErrors[name] }

// ACLDeleteForm deletes a user or a subject's policies, the name typed again.
type ACLDeleteForm struct {
	Kind, Name, Confirm string
	FieldErrors         map[string]string
	Error               string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (f ACLDeleteForm) FieldError(name string) string { return f.FieldErrors[name] }

// ACLPreviewVM is a previewed ACL change, process by process.
type ACLPreviewVM struct {
	PlanID, Title, Button, ExpiresAt string
	// Password is set when applying takes the password again.
	Password      bool
	Drift         bool
	Processes     []PreviewBrokerVM
	ConfirmError  string
	PasswordError string
}
