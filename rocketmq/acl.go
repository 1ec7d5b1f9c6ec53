package rocketmq

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"rmqconsole/rocketmq/signature"
)

// Credentials are what an ACL-enabled cluster asks of a client: an access key and
// its secret (4.x plain ACL: an account's accessKey and secretKey; 5.x ACL 2.0: a
// user's name and password). The zero value sends unsigned requests.
//
// The secret never leaves the process: String, GoString and LogValue show only
// the access key, so a Config printed or logged by mistake does not leak it.
type Credentials struct {
	AccessKey string
	SecretKey string
}

// Set reports whether requests are signed.
func (c Credentials) Set() bool { return c.AccessKey != "" }

// String shows the access key and masks the secret.
func (c Credentials) String() string {
	if !c.Set() {
		return "no credentials"
	}
	return "access key " + c.AccessKey + " (secret key masked)"
}

// GoString masks the secret in %#v too.
func (c Credentials) GoString() string { return "rocketmq.Credentials{" + c.String() + "}" }

// LogValue masks the secret in slog output.
func (c Credentials) LogValue() slog.Value { return slog.StringValue(c.String()) }

// sign returns ext with AccessKey and Signature added (see package signature).
func (c Credentials) sign(ext map[string]string, body []byte) map[string]string {
	return signature.Sign(ext, body, c.AccessKey, c.SecretKey)
}

// ErrAccessDenied matches every *AccessError with errors.Is.
var ErrAccessDenied = errors.New("access denied by the cluster's ACL")

// Denial is why a broker refused a request under its ACL.
type Denial int

const (
	// DenialNoCredentials: the broker needs an access key and we sent none.
	DenialNoCredentials Denial = iota + 1
	// DenialUnknownKey: the broker has no account (4.x) or user (5.x) of that access key.
	DenialUnknownKey
	// DenialBadSignature: the signature does not match the broker's secret for the key.
	DenialBadSignature
	// DenialDisabled: the 5.x user exists but is disabled.
	DenialDisabled
	// DenialNotAdmin: the request needs an admin account (4.x) and the key's is not one.
	DenialNotAdmin
	// DenialNoPermission: the key may not do this to Resource (a topic, group or cluster).
	DenialNoPermission
)

// AccessError is a broker refusing a request under its ACL: our credentials (no
// access key, an unknown one, a signature that does not match) or their rights
// (not an admin account, no permission for a resource). It names the access key,
// never the secret, and unwraps to the broker's *BrokerError.
type AccessError struct {
	Addr      string // the broker that refused
	AccessKey string // the key we signed with; "" when the client has none
	Denial    Denial
	// Resource is what permission was missing for, as the broker named it
	// ("Topic:orders", "Cluster:DefaultCluster"), when it did.
	Resource string
	Broker   *BrokerError
}

func (e *AccessError) Error() string {
	return fmt.Sprintf("%s refused %s: %s", e.Addr, e.who(), e.Reason())
}

func (e *AccessError) who() string {
	if e.AccessKey == "" {
		return "an unsigned request"
	}
	return "access key " + e.AccessKey
}

// Reason says what went wrong, in a few words an operator can act on.
func (e *AccessError) Reason() string {
	switch e.Denial {
	case DenialNoCredentials:
		return "the cluster has ACL on and needs an access key and secret key"
	case DenialUnknownKey:
		return "the broker has no account or user with this access key"
	case DenialBadSignature:
		return "the signature does not match (wrong secret key)"
	case DenialDisabled:
		return "the user is disabled"
	case DenialNotAdmin:
		return "it is not an admin account"
	case DenialNoPermission:
		if e.Resource != "" {
			return "no permission for " + e.Resource
		}
		return "no permission for this request"
	}
	return "access denied"
}

// Is lets errors.Is(err, ErrAccessDenied) match.
func (e *AccessError) Is(target error) bool { return target == ErrAccessDenied }

// Unwrap returns the broker's answer.
func (e *AccessError) Unwrap() error { return e.Broker }

// What brokers answer when their ACL refuses a request. 4.x plain ACL throws an
// AclException, answered as SYSTEM_ERROR (1) with the exception's text; 5.x ACL
// 2.0 answers NO_PERMISSION (16) with the bare message. NO_PERMISSION also
// means a topic or broker without read/write permission, so only these texts
// make an answer an ACL refusal.
var aclRemarks = []struct {
	text   string
	denial Denial
}{
	// 4.x (PlainPermissionManager.validate / checkPerm)
	{"No accessKey is configured", DenialNoCredentials},
	{"No acl config for", DenialUnknownKey},
	{"Check signature failed", DenialBadSignature},
	{"Need admin permission", DenialNotAdmin},
	{"No default permission", DenialNoPermission},
	{"No permission", DenialNoPermission},
	// 5.x (DefaultAuthenticationHandler, AclAuthorizationHandler)
	{"username cannot be null", DenialNoCredentials},
	{"check signature failed", DenialBadSignature},
	{"is not found", DenialUnknownKey},
	{"is disabled", DenialDisabled},
	{"has no permission to access", DenialNoPermission},
}

var (
	// "User:carol has no permission to access Cluster:DefaultCluster from 127.0.0.1, ..."
	resource5 = regexp.MustCompile(`no permission to access (\S+) from`)
	// "No default permission for Topic:orders" / "No permission for ..."
	resource4 = regexp.MustCompile(`(?i)permission for (\S+?),? `)
)

// answerError turns a non-success answer into an error: an *AccessError when the
// broker's ACL refused it, else a *BrokerError.
func (c *Client) answerError(addr string, resp *command) error {
	be := &BrokerError{Addr: addr, Code: ResponseCode(resp.Code), Remark: resp.Remark}
	if ae := c.accessError(be); ae != nil {
		return ae
	}
	return be
}

func (c *Client) accessError(be *BrokerError) *AccessError {
	switch {
	case be.Code == CodeSystemError && strings.Contains(be.Remark, "AclException"):
	case be.Code == CodeNoPermission && (strings.HasPrefix(be.Remark, "User:") || strings.Contains(be.Remark, "signature") ||
		strings.Contains(be.Remark, "username cannot be null")):
		// Not any remark naming a username: AUTH_CREATE_USER answers NO_PERMISSION "The
		// username is blank" for a request's own user name, which is no refusal of ours.
	default:
		return nil
	}
	e := &AccessError{Addr: be.Addr, AccessKey: c.creds.AccessKey, Broker: be, Denial: DenialNoPermission}
	for _, r := range aclRemarks {
		if strings.Contains(be.Remark, r.text) {
			e.Denial = r.denial
			break
		}
	}
	if m := resource5.FindStringSubmatch(be.Remark); m != nil {
		e.Resource = m[1]
	} else if e.Denial == DenialNoPermission {
		if m := resource4.FindStringSubmatch(be.Remark); m != nil {
			e.Resource = m[1]
		}
	}
	return e
}
