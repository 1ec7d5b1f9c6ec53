package acl

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

func TestMain(m *testing.M) { os.Exit(dev.RunTests(m)) }

type itEnv struct {
	cl    *dev.Cluster
	c     *rocketmq.Client
	audit *store.AuditLog
	svc   *Service
	who   Who
}

// newIT needs a cluster with ACL 2.0 on (`rmqdev up --acl`); with RMQC_TEST_ACL=true
// (CI's ACL runs) a cluster without it is a failure.
func newIT(t *testing.T) *itEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	acct, ok := dev.AccountFor(cl.NameServer)
	if !ok || strings.HasPrefix(cl.Version, "4.") {
		if os.Getenv("RMQC_TEST_ACL") == "true" && !strings.HasPrefix(cl.Version, "4.") {
			t.Fatal("RMQC_TEST_ACL=true but the test cluster has ACL off")
		}
		t.Skip("needs a 5.x cluster with ACL 2.0 on: run on `rmqdev up --acl` with RMQC_TEST_NAMESRV")
	}
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(acct)})
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &itEnv{cl: cl, c: c, audit: st.Audit(), svc: New(c, Options{Audit: st.Audit(), NameServers: cl.NameServer, Self: acct.AccessKey}),
		who: Who{Actor: "ada", Addr: "10.0.0.9"}}
}

func (e *itEnv) mqadmin(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := e.cl.MQAdmin(ctx, append(args, "-c", e.cl.ClusterName)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *itEnv) apply(t *testing.T, p *Plan, password string) *store.AuditEntry {
	t.Helper()
	entry, _, err := e.svc.Apply(t.Context(), Confirmation{PlanID: p.ID, Confirmed: true, Password: password, Who: e.who})
	if err != nil {
		t.Fatal(err)
	}
	if entry.Status != store.AuditApplied {
		t.Fatalf("entry %d %s: %s %+v", entry.ID, entry.Status, entry.Error, entry.Result)
	}
	return entry
}

// allowed waits until a real Java producer signed as a (mqadmin sendMessage) gets a
// message stored: a JVM client on a loaded machine may time out once.
func (e *itEnv) allowed(t *testing.T, a dev.Account, topic, why string) {
	t.Helper()
	dev.Eventually(t, 90*time.Second, why, func() error {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		_, err := e.cl.SendAs(ctx, a, topic, "acl-it")
		return err
	})
}

// refused waits until a real Java producer signed as a is refused by the broker's ACL
// (NO_PERMISSION, 16), not merely slow.
func (e *itEnv) refused(t *testing.T, a dev.Account, topic, why string) {
	t.Helper()
	dev.Eventually(t, 90*time.Second, why, func() error {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		out, err := e.cl.SendAs(ctx, a, topic, "acl-it")
		switch {
		case err == nil:
			return fmt.Errorf("the message was stored:\n%s", out)
		case !strings.Contains(out, "CODE: 16"):
			return fmt.Errorf("not refused by the ACL: %v", err)
		}
		return nil
	})
}

// A user created, given a policy, changed and deleted through the service is what
// mqadmin reads from every broker process, and a real client with the user's
// credentials is refused or allowed as each policy says. The password is in no preview
// and no audit entry, only that it changed.
func TestIntegrationUserAndPolicyDecideWhatARealClientMayDo(t *testing.T) {
	e := newIT(t)
	ctx := t.Context()
	topic := dev.UniqueName("acl-t")
	if err := e.cl.CreateTopic(ctx, topic, 1); err != nil {
		t.Fatal(err)
	}
	name := dev.UniqueName("alice")
	user := dev.Account{AccessKey: name, SecretKey: "pw-" + name}
	t.Cleanup(func() {
		// A failed run leaves no user behind on the cluster it shares.
		for _, b := range append(append([]dev.Broker{}, e.cl.Brokers...), e.cl.Slaves...) {
			e.c.DeleteUser(context.Background(), b.Addr, name)
		}
	})
	p, err := e.svc.PlanUser(ctx, e.who, true, UserRequest{Username: name, Password: user.SecretKey, UserType: "normal"})
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := json.Marshal(p)
	if strings.Contains(string(shown), user.SecretKey) || !p.PasswordChanged {
		t.Fatalf("preview: %s", shown)
	}
	if _, _, err := e.svc.Apply(ctx, Confirmation{PlanID: p.ID, Confirmed: true, Who: e.who}); fault.As(err) == nil || fault.As(err).Field != "password" {
		t.Fatalf("apply without the password again: %v", err)
	}
	p, _ = e.svc.PlanUser(ctx, e.who, true, UserRequest{Username: name, Password: user.SecretKey, UserType: "Normal"})
	entry := e.apply(t, p, user.SecretKey)
	if s, _ := json.Marshal(entry); strings.Contains(string(s), user.SecretKey) || !strings.Contains(string(entry.Params), `"passwordChanged":true`) {
		t.Fatalf("audit entry: %s", s)
	}
	if out := e.mqadmin(t, "getUser", "-u", name); !regexp.MustCompile(name + `\s+\S+\s+Normal\s+enable`).MatchString(out) {
		t.Fatalf("mqadmin getUser:\n%s", out)
	}
	e.refused(t, user, topic, "a user without a policy is refused")

	p, err = e.svc.PlanPolicy(ctx, e.who, true, PolicyRequest{Subject: name, Entries: []rocketmq.PolicyEntry{
		{Resource: "Topic:" + topic, Actions: []string{"Pub"}, Decision: "Allow"}}})
	if err != nil {
		t.Fatal(err)
	}
	e.apply(t, p, "")
	if out := e.mqadmin(t, "getAcl", "-s", "User:"+name); !regexp.MustCompile(`Topic:` + topic + `\s+\[Pub\]\s+\S*\s*Allow`).MatchString(out) {
		t.Fatalf("mqadmin getAcl:\n%s", out)
	}
	e.allowed(t, user, topic, "a user allowed to publish can send")

	p, err = e.svc.PlanPolicy(ctx, e.who, false, PolicyRequest{Subject: "User:" + name, Entries: []rocketmq.PolicyEntry{
		{Resource: "Topic:" + topic, Actions: []string{"Pub"}, Decision: "Deny"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ch := p.Processes[0].Changes; len(ch) != 1 || ch[0].Current != "Allow Pub from any address" || ch[0].New != "Deny Pub from any address" {
		t.Fatalf("update preview: %+v", ch)
	}
	e.apply(t, p, "")
	e.refused(t, user, topic, "a user denied to publish is refused")

	if _, err := e.svc.DeletePolicy(ctx, e.who, name, "User:"+name, "", ""); err != nil {
		t.Fatal(err)
	}
	if out := e.mqadmin(t, "getAcl", "-s", "User:"+name); strings.Contains(out, "Topic:"+topic) {
		t.Fatalf("mqadmin getAcl after the delete:\n%s", out)
	}
	d, err := e.svc.DeleteUser(ctx, e.who, name, name)
	if err != nil || d.Status != store.AuditApplied {
		t.Fatalf("delete user: %v %+v", err, d)
	}
	if out := e.mqadmin(t, "listUser"); strings.Contains(out, name) {
		t.Fatalf("mqadmin listUser after the delete:\n%s", out)
	}
}

// The console refuses to cut its own access, and refuses bad input (a policy with no
// resource, names RocketMQ refuses or cannot use) with a sentence each, before any
// change; the refusals of its own key are audited as refused, the bad input not at all.
func TestIntegrationRefusalsChangeNothing(t *testing.T) {
	e := newIT(t)
	ctx := t.Context()
	before, err := e.svc.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	self := e.svc.Self()
	_, err = e.svc.DeleteUser(ctx, e.who, self, self)
	if fe := fault.As(err); fe == nil || fe.Reason != "own_access_key" {
		t.Fatalf("deleting the console's own key: %v", err)
	}
	_, err = e.svc.PlanUser(ctx, e.who, false, UserRequest{Username: self, UserStatus: "disable"})
	if fe := fault.As(err); fe == nil || fe.Reason != "own_access_key" {
		t.Fatalf("disabling the console's own key: %v", err)
	}
	_, err = e.svc.PlanUser(ctx, e.who, false, UserRequest{Username: self, UserType: "Normal"})
	if fe := fault.As(err); fe == nil || fe.Reason != "own_access_key" {
		t.Fatalf("taking the console's Super type: %v", err)
	}
	for _, c := range []struct {
		name string
		plan func() error
		id   string
	}{
		{"a policy with no resource", func() error {
			_, err := e.svc.PlanPolicy(ctx, e.who, true, PolicyRequest{Subject: "User:rmqc-viewer", Entries: []rocketmq.PolicyEntry{{Actions: []string{"Pub"}, Decision: "Allow"}}})
			return err
		}, "acl.input.resource.blank"},
		{"a policy with no entry", func() error {
			_, err := e.svc.PlanPolicy(ctx, e.who, true, PolicyRequest{Subject: "User:rmqc-viewer"})
			return err
		}, "acl.input.entries.none"},
		{"a blank user name, which RocketMQ refuses", func() error {
			_, err := e.svc.PlanUser(ctx, e.who, true, UserRequest{Username: "  ", Password: "pw"})
			return err
		}, "acl.input.username.blank"},
		{"a user name that cannot be a subject", func() error {
			_, err := e.svc.PlanUser(ctx, e.who, true, UserRequest{Username: "a:b", Password: "pw"})
			return err
		}, "acl.input.username.bad"},
		{"an address that is none", func() error {
			_, err := e.svc.PlanPolicy(ctx, e.who, true, PolicyRequest{Subject: "User:rmqc-viewer", Entries: []rocketmq.PolicyEntry{
				{Resource: "Topic:t", Actions: []string{"Pub"}, Decision: "Allow", SourceIPs: []string{"10.0.0.300"}}}})
			return err
		}, "acl.input.ips.bad"},
	} {
		err := c.plan()
		if fe := fault.As(err); fe == nil || fe.Code != fault.Invalid || fe.Msg.ID != c.id {
			t.Errorf("%s: %v, want %s", c.name, err, c.id)
		}
	}
	after, err := e.svc.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before.Users) != fmt.Sprint(after.Users) || fmt.Sprint(before.Policies) != fmt.Sprint(after.Policies) {
		t.Errorf("refusals changed the ACL:\n%v\n%v", before.Users, after.Users)
	}
	entries, _, err := e.audit.List(ctx, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("%d audit entries, want the 3 refusals of the console's own key: %+v", len(entries), entries)
	}
	for _, en := range entries {
		if en.Status != store.AuditRefused {
			t.Errorf("entry %d is %s", en.ID, en.Status)
		}
	}
}

// On 4.x with plain ACL the console shows the accounts and the global white list as each
// broker reads its plain_acl.yml, never a secret key, and changes nothing: a change is
// refused saying where the accounts live.
func TestIntegrationPlainACLIsReadOnlyWithoutSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	acct, ok := dev.AccountFor(cl.NameServer)
	if !ok || !strings.HasPrefix(cl.Version, "4.") {
		t.Skip("needs a 4.x cluster with plain ACL on: run on `RMQ_VERSION=4.9.7 rmqdev up --acl` with RMQC_TEST_NAMESRV")
	}
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(acct)})
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := New(c, Options{Audit: st.Audit(), Self: acct.AccessKey})
	o, err := svc.Overview(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if o.Mode != ModePlain || len(o.Processes) == 0 || o.Processes[0].Plain == nil {
		t.Fatalf("overview of a 4.x cluster: %+v", o)
	}
	shown, _ := json.Marshal(o)
	for _, a := range []dev.Account{dev.AdminAccount, dev.LimitedAccount} {
		if !strings.Contains(string(shown), a.AccessKey) || strings.Contains(string(shown), a.SecretKey) {
			t.Errorf("account %s: shown without its secret key? %s", a.AccessKey, shown)
		}
	}
	_, err = svc.PlanUser(t.Context(), Who{}, true, UserRequest{Username: "alice", Password: "pw"})
	if fe := fault.As(err); fe == nil || fe.Reason != "plain_acl" {
		t.Fatalf("a user change on plain ACL: %v", err)
	}
}
