package ldap

import (
	"context"
	"errors"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/auth"
	"rmqconsole/dev"
	"rmqconsole/fault"
)

// One slapd serves every test of this binary.
func TestMain(m *testing.M) {
	code := m.Run()
	dev.StopLDAP()
	os.Exit(code)
}

var roles = auth.GroupRoles{"rmq-admins": auth.Admin, "rmq-ops": auth.Operator}

func newDirectory(t *testing.T, cfg Config) *Directory {
	t.Helper()
	if cfg.Roles == nil {
		cfg.Roles = roles
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// withServiceAccount finds users and groups by searching as the service account.
func withServiceAccount(l *dev.LDAP) Config {
	return Config{URL: l.URL(), BindDN: dev.LDAPServiceDN, BindPassword: dev.LDAPServicePassword,
		UserBase: dev.LDAPPeopleBase, GroupBase: dev.LDAPGroupBase}
}

// withTemplate binds straight to the user's DN and reads memberOf (no service account).
func withTemplate(l *dev.LDAP) Config {
	return Config{URL: l.URL(), UserDN: "uid={user}," + dev.LDAPPeopleBase}
}

func TestSignInBindsAsTheUserAndMapsGroupsToRoles(t *testing.T) {
	l := dev.RequireLDAP(t)
	ctx := context.Background()
	for name, cfg := range map[string]Config{"service account and group search": withServiceAccount(l), "DN template and memberOf": withTemplate(l)} {
		t.Run(name, func(t *testing.T) {
			d := newDirectory(t, cfg)
			for _, c := range []struct {
				user, password string
				role           auth.Role
				groups         []string
			}{
				{"lena", "lena-password", auth.Admin, []string{"rmq-admins"}},
				{"omar", "omar-password", auth.Operator, []string{"rmq-ops", "sales"}},
				{"sam", "sam-password", auth.NoRole, []string{"sales"}},
				// The directory's spelling is the console's user name.
				{"LENA", "lena-password", auth.Admin, []string{"rmq-admins"}},
			} {
				id, err := d.Authenticate(ctx, c.user, []byte(c.password))
				if err != nil {
					t.Fatalf("%s: %v", c.user, err)
				}
				slices.Sort(id.Groups)
				if id.Name != strings.ToLower(c.user) || id.Role != c.role || !slices.Equal(id.Groups, c.groups) || id.Provider != auth.ProviderLDAP {
					t.Errorf("%s: %+v, want role %v and groups %v", c.user, id, c.role, c.groups)
				}
			}
		})
	}
}

func TestWrongPasswordsAndUnknownNamesAreBadCredentials(t *testing.T) {
	l := dev.RequireLDAP(t)
	ctx := context.Background()
	for name, cfg := range map[string]Config{"search": withServiceAccount(l), "template": withTemplate(l)} {
		d := newDirectory(t, cfg)
		for _, c := range []struct{ user, password string }{
			{"lena", "wrong"},
			{"lena", ""}, // an empty password would be an anonymous bind, which slapd accepts
			{"nobody", "whatever"},
			{"lena)(uid=*", "lena-password"}, // a filter injection is only a strange name
			{"*", "lena-password"},
		} {
			if _, err := d.Authenticate(ctx, c.user, []byte(c.password)); !errors.Is(err, auth.ErrBadCredentials) {
				t.Errorf("%s: %q/%q: %v, want bad credentials", name, c.user, c.password, err)
			}
		}
	}
}

// TLS: ldaps:// and StartTLS verify the server against the CA given; without it the
// certificate is refused and nothing is sent.
func TestTLSAndStartTLS(t *testing.T) {
	l := dev.RequireLDAP(t)
	cas, err := LoadCAs(l.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ldaps := withTemplate(l)
	ldaps.URL, ldaps.RootCAs = l.TLSURL(), cas
	startTLS := withServiceAccount(l)
	startTLS.StartTLS, startTLS.RootCAs = true, cas
	for name, cfg := range map[string]Config{"ldaps": ldaps, "StartTLS": startTLS} {
		if id, err := newDirectory(t, cfg).Authenticate(ctx, "omar", []byte("omar-password")); err != nil || id.Role != auth.Operator {
			t.Errorf("%s: %+v, %v", name, id, err)
		}
		cfg.RootCAs = nil // the system's CAs do not know the test CA
		_, err := newDirectory(t, cfg).Authenticate(ctx, "omar", []byte("omar-password"))
		if !fault.Is(err, fault.Unavailable) || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("%s without the CA: %v, want the certificate refused", name, err)
		}
	}
}

// A directory that is down or does not answer is a sentence naming it, within the
// timeout: no sign-in, and no wrong-password answer either.
func TestDirectoryDownOrSilentIsUnavailable(t *testing.T) {
	ctx := context.Background()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "ldap://" + closed.Addr().String()
	closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() { // accepts and never answers
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for _, url := range []string{down, "ldap://" + silent.Addr().String()} {
		d := newDirectory(t, Config{URL: url, UserDN: "uid={user},ou=people,dc=example,dc=org", Timeout: 500 * time.Millisecond})
		start := time.Now()
		_, err := d.Authenticate(ctx, "lena", []byte("lena-password"))
		if !fault.Is(err, fault.Unavailable) || !strings.Contains(err.Error(), url) {
			t.Errorf("%s: %v, want unavailable naming the directory", url, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: answered after %s, past the 500ms timeout", url, took)
		}
	}
}

func TestServiceAccountRefusedIsSaid(t *testing.T) {
	l := dev.RequireLDAP(t)
	cfg := withServiceAccount(l)
	cfg.BindPassword = "not-the-password"
	_, err := newDirectory(t, cfg).Authenticate(context.Background(), "lena", []byte("lena-password"))
	if fe := fault.As(err); fe == nil || fe.Msg.ID != "login.ldap.service_refused" {
		t.Fatalf("%v, want the service account named as refused", err)
	}
}

func TestConfigMistakes(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "http://x", UserDN: "uid={user}"},
		{URL: "ldaps://x", StartTLS: true, UserDN: "uid={user}"},
		{URL: "ldap://x"},
		{URL: "ldap://x", UserDN: "uid=fixed"},
		{URL: "ldap://x", BindDN: "cn=s"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}
