package dev

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"rmqconsole/rocketmq/signature"
)

// Account is a credential of a local cluster with ACL on (Options.ACL): a 4.x
// plain_acl.yml account (accessKey, secretKey) or a 5.x ACL 2.0 user (name,
// password).
type Account struct {
	AccessKey string `json:"accessKey"`
	SecretKey string `json:"secretKey"`
}

// The accounts of a local ACL cluster. AdminAccount may do everything (4.x
// admin: true; 5.x a Super user, which authorization does not check).
// LimitedAccount is what ops teams hand a read-only tool: 4.x a non-admin
// account that may subscribe to topics and groups but not publish; 5.x a Normal
// user with no policy, so every request that names a resource (a topic, a
// group, the cluster) is refused. Keys are at least 7 characters, as 4.x
// requires.
var (
	AdminAccount   = Account{AccessKey: "rmqc-admin", SecretKey: "rmqc-admin-secret"}
	LimitedAccount = Account{AccessKey: "rmqc-viewer", SecretKey: "rmqc-viewer-secret"}
)

// aclBrokerProperties turns the broker's ACL on: 4.x plain ACL reads
// ROCKETMQ_HOME/conf/plain_acl.yml (writePlainACL); 5.x ACL 2.0 authenticates
// and authorizes every request, creates AdminAccount as its first (Super) user
// and signs its own calls to the NameServer with it.
func aclBrokerProperties(version string) [][2]string {
	if is4x(version) {
		return [][2]string{{"aclEnable", "true"}}
	}
	admin, _ := json.Marshal(map[string]string{"username": AdminAccount.AccessKey, "password": AdminAccount.SecretKey})
	inner, _ := json.Marshal(AdminAccount)
	return [][2]string{
		{"authenticationEnabled", "true"},
		{"authenticationProvider", "org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider"},
		{"authenticationMetadataProvider", "org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider"},
		{"initAuthenticationUser", string(admin)},
		{"innerClientAuthenticationCredentials", string(inner)},
		{"authorizationEnabled", "true"},
		{"authorizationProvider", "org.apache.rocketmq.auth.authorization.provider.DefaultAuthorizationProvider"},
		{"authorizationMetadataProvider", "org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider"},
	}
}

// plainACL is 4.x's plain_acl.yml. No address is white-listed, globally or per
// account: a white-listed address skips the signature check, and every test of
// the signature would then pass whatever it sent.
const plainACL = `accounts:
  - accessKey: %s
    secretKey: %s
    admin: true
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: PUB|SUB
  - accessKey: %s
    secretKey: %s
    admin: false
    defaultTopicPerm: SUB
    defaultGroupPerm: SUB
`

// writePlainACL writes home/conf/plain_acl.yml for a 4.x broker.
func writePlainACL(home string) error {
	path := filepath.Join(home, "conf", "plain_acl.yml")
	text := fmt.Sprintf(plainACL, AdminAccount.AccessKey, AdminAccount.SecretKey, LimitedAccount.AccessKey, LimitedAccount.SecretKey)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeToolsACL makes mqadmin sign its requests with account a: 4.x and 5.x
// MQAdminStartup read ROCKETMQ_HOME/conf/tools.yml when it exists.
func writeToolsACL(home string, a Account) error {
	path := filepath.Join(home, "conf", "tools.yml")
	text := fmt.Sprintf("accessKey: %s\nsecretKey: %s\n", a.AccessKey, a.SecretKey)
	if err := replaceFile(path, []byte(text)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// signed signs ext and body with AdminAccount when the cluster has ACL on.
func (c *Cluster) signed(ext map[string]string, body []byte) map[string]string {
	if !c.ACL {
		return ext
	}
	return signature.Sign(ext, body, AdminAccount.AccessKey, AdminAccount.SecretKey)
}

const codeAuthCreateUser = 3001 // AUTH_CREATE_USER, 5.3.0+

// createLimitedUser creates LimitedAccount on every broker of a 5.x cluster,
// slaves included (users are kept per broker: nothing replicates them). A user that exists
// already (a restarted store) is fine.
func (c *Cluster) createLimitedUser(ctx context.Context) error {
	body, _ := json.Marshal(map[string]string{"username": LimitedAccount.AccessKey, "password": LimitedAccount.SecretKey, "userType": "Normal"})
	ext := map[string]string{"username": LimitedAccount.AccessKey}
	for _, b := range append(append([]Broker{}, c.Brokers...), c.Slaves...) {
		code, remark, _, err := call(ctx, b.Addr, codeAuthCreateUser, c.signed(ext, body), body)
		switch {
		case err != nil:
			return fmt.Errorf("create user %s on %s: %w", LimitedAccount.AccessKey, b.Name, err)
		case code != 0 && !regexp.MustCompile(`(?i)is existed`).MatchString(remark):
			return fmt.Errorf("create user %s on %s: code %d: %s", LimitedAccount.AccessKey, b.Name, code, remark)
		}
	}
	return nil
}

// aclRefusal matches a broker refusing an unsigned request: 4.x "AclException:
// No accessKey is configured", 5.x "username cannot be null.".
var aclRefusal = regexp.MustCompile(`AclException|username cannot be null`)

// refusesUnsigned reports whether the broker at addr checks credentials.
func refusesUnsigned(ctx context.Context, addr string) (bool, error) {
	code, remark, _, err := call(ctx, addr, codeGetBrokerRuntimeInfo, nil, nil)
	if err != nil {
		return false, err
	}
	return code != 0 && aclRefusal.MatchString(remark), nil
}

const codeGetBrokerClusterInfo = 106

var brokerAddrPattern = regexp.MustCompile(`"(\d+\.\d+\.\d+\.\d+:\d+)"`)

// clusterHasACL asks the NameServer (which never checks credentials) for the
// brokers, and one of them whether it refuses an unsigned request.
func clusterHasACL(ctx context.Context, nameServer string) (bool, error) {
	code, remark, body, err := call(ctx, nameServer, codeGetBrokerClusterInfo, nil, nil)
	if err != nil {
		return false, err
	}
	if code != 0 {
		return false, fmt.Errorf("cluster info: code %d: %s", code, remark)
	}
	m := brokerAddrPattern.FindSubmatch(body) // fastjson, not JSON: {0:"127.0.0.1:20911"}
	if m == nil {
		return false, fmt.Errorf("cluster info names no broker: %.200s", body)
	}
	return refusesUnsigned(ctx, string(m[1]))
}

// AccountFor returns the account that clients of the test cluster at
// nameServer (RequireCluster's or RequirePrivateCluster's) sign with, and
// whether that cluster has ACL on at all, so that test clients (our own and
// rocketmq-client-go's) work on both kinds of cluster unchanged.
func AccountFor(nameServer string) (Account, bool) {
	for _, c := range []*Cluster{harness.cluster, harness.private.cluster} {
		if c != nil && c.NameServer == nameServer && c.ACL {
			return AdminAccount, true
		}
	}
	return Account{}, false
}

// TestAccount is AccountFor's account, or the zero Account (unsigned requests)
// when the cluster at nameServer has ACL off; rocketmq.Credentials(TestAccount(ns))
// configures a console client for either kind.
func TestAccount(nameServer string) Account {
	a, _ := AccountFor(nameServer)
	return a
}
