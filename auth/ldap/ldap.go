// Package ldap checks user names and passwords against an LDAP directory (OpenLDAP,
// Active Directory, FreeIPA …) with a simple bind as the user, and reads the user's
// groups to give a console role: auth.Directory over github.com/go-ldap/ldap/v3.
package ldap

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	goldap "github.com/go-ldap/ldap/v3"

	"rmqconsole/auth"
	"rmqconsole/fault"
)

// Config says where the directory is and how users and groups are found in it.
type Config struct {
	// URL is ldap://host[:389] or ldaps://host[:636].
	URL string
	// StartTLS upgrades an ldap:// connection to TLS before anything is sent.
	StartTLS bool
	// RootCAs verify the server's certificate (nil: the system's).
	RootCAs *x509.CertPool
	// BindDN and BindPassword are a service account that searches for users and their
	// groups. Without one, UserDN must name the user's entry.
	BindDN, BindPassword string
	// UserDN is a template of the user's DN with {user} in it
	// ("uid={user},ou=people,dc=example,dc=org"): then no search is needed.
	UserDN string
	// UserBase and UserFilter find the user's entry when UserDN is not set; {user} in
	// the filter is the name typed (escaped). Default filter: (uid={user}).
	UserBase, UserFilter string
	// NameAttr holds the user name the console records (default uid): the directory's
	// spelling, whatever case was typed.
	NameAttr string
	// GroupBase and GroupFilter search the user's groups ({dn} is the user's DN,
	// {user} the name; default (member={dn})), each group named by its cn. Without
	// GroupBase, the user entry's memberOf is read, each group named by its first RDN.
	GroupBase, GroupFilter string
	// Roles map group names to console roles.
	Roles auth.GroupRoles
	// Timeout bounds one sign-in's whole conversation with the directory (default 5s).
	Timeout time.Duration
}

// Directory is an LDAP directory people sign in with.
type Directory struct{ cfg Config }

// New checks cfg and returns the directory. Nothing is dialled until a sign-in.
func New(cfg Config) (*Directory, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "ldap" && u.Scheme != "ldaps") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an ldap:// or ldaps:// URL", cfg.URL)
	}
	if cfg.StartTLS && u.Scheme == "ldaps" {
		return nil, errors.New("StartTLS is for ldap:// URLs; ldaps:// is TLS from the start")
	}
	if cfg.UserDN == "" && (cfg.BindDN == "" || cfg.UserBase == "") {
		return nil, errors.New("set a user DN template with {user} in it, or a service account (bind DN) and a user search base")
	}
	if cfg.UserDN != "" && !strings.Contains(cfg.UserDN, "{user}") {
		return nil, fmt.Errorf("the user DN template %q has no {user} in it", cfg.UserDN)
	}
	if cfg.UserFilter == "" {
		cfg.UserFilter = "(uid={user})"
	}
	if cfg.GroupFilter == "" {
		cfg.GroupFilter = "(member={dn})"
	}
	if cfg.NameAttr == "" {
		cfg.NameAttr = "uid"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	return &Directory{cfg: cfg}, nil
}

// LoadCAs reads PEM certificates from a file, for Config.RootCAs.
func LoadCAs(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, errors.New("no PEM certificate in it")
	}
	return pool, nil
}

// Name is the directory's URL.
func (d *Directory) Name() string { return d.cfg.URL }

// Authenticate binds as the user with password and reads their groups.
func (d *Directory) Authenticate(ctx context.Context, name string, password []byte) (*auth.Identity, error) {
	// An LDAP bind with an empty password is an anonymous bind, which servers accept:
	// it proves nothing.
	if name == "" || len(password) == 0 {
		return nil, auth.ErrBadCredentials
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	conn, err := d.dial(ctx)
	if err != nil {
		return nil, d.unavailable(err)
	}
	defer conn.Close()
	// Whatever step hangs (a TLS handshake, a bind the server never answers), the
	// deadline closes the connection and the step fails.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	id, err := d.authenticate(conn, name, password)
	if err != nil && ctx.Err() != nil && !errors.Is(err, auth.ErrBadCredentials) {
		return nil, d.unavailable(fmt.Errorf("no answer within %s", d.cfg.Timeout))
	}
	return id, err
}

func (d *Directory) authenticate(conn *goldap.Conn, name string, password []byte) (*auth.Identity, error) {
	dn := ""
	if d.cfg.UserDN != "" {
		dn = strings.ReplaceAll(d.cfg.UserDN, "{user}", goldap.EscapeDN(name))
	} else {
		if err := d.bindService(conn); err != nil {
			return nil, err
		}
		var err error
		if dn, err = d.findUser(conn, name); err != nil {
			return nil, err
		}
	}
	if err := conn.Bind(dn, string(password)); err != nil {
		if goldap.IsErrorWithCode(err, goldap.LDAPResultInvalidCredentials) {
			return nil, auth.ErrBadCredentials
		}
		return nil, d.unavailable(err)
	}
	// Groups are read as the service account where there is one: directories often let
	// a user read little beyond their own entry.
	if d.cfg.BindDN != "" {
		if err := d.bindService(conn); err != nil {
			return nil, err
		}
	}
	entry, err := d.readUser(conn, dn)
	if err != nil {
		return nil, err
	}
	id := &auth.Identity{Name: entry.GetAttributeValue(d.cfg.NameAttr), Provider: auth.ProviderLDAP}
	if id.Name == "" {
		id.Name = name
	}
	if d.cfg.GroupBase != "" {
		if id.Groups, err = d.searchGroups(conn, dn, name); err != nil {
			return nil, err
		}
	} else {
		for _, g := range entry.GetAttributeValues("memberOf") {
			id.Groups = append(id.Groups, firstRDNValue(g))
		}
	}
	id.Role = d.cfg.Roles.RoleOf(id.Groups)
	return id, nil
}

func (d *Directory) dial(ctx context.Context) (*goldap.Conn, error) {
	dialer := &net.Dialer{}
	if dl, ok := ctx.Deadline(); ok {
		dialer.Deadline = dl
	}
	u, _ := url.Parse(d.cfg.URL)
	tc := &tls.Config{RootCAs: d.cfg.RootCAs, ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	conn, err := goldap.DialURL(d.cfg.URL, goldap.DialWithDialer(dialer), goldap.DialWithTLSConfig(tc))
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetTimeout(time.Until(dl))
	}
	if d.cfg.StartTLS {
		if err := conn.StartTLS(tc); err != nil {
			conn.Close()
			return nil, fmt.Errorf("StartTLS: %w", err)
		}
	}
	return conn, nil
}

func (d *Directory) bindService(conn *goldap.Conn) error {
	if err := conn.Bind(d.cfg.BindDN, d.cfg.BindPassword); err != nil {
		if goldap.IsErrorWithCode(err, goldap.LDAPResultInvalidCredentials) {
			return fault.Wrap(err, fault.Unavailable, "login.ldap.service_refused", "URL", d.cfg.URL, "DN", d.cfg.BindDN).Because("ldap_service_refused")
		}
		return d.unavailable(err)
	}
	return nil
}

// findUser searches for the one entry of name; no entry is a wrong user name.
func (d *Directory) findUser(conn *goldap.Conn, name string) (string, error) {
	filter := strings.ReplaceAll(d.cfg.UserFilter, "{user}", goldap.EscapeFilter(name))
	res, err := conn.Search(goldap.NewSearchRequest(d.cfg.UserBase, goldap.ScopeWholeSubtree, goldap.NeverDerefAliases,
		2, 0, false, filter, []string{"dn"}, nil))
	if err != nil && !goldap.IsErrorWithCode(err, goldap.LDAPResultSizeLimitExceeded) {
		return "", d.unavailable(err)
	}
	switch {
	case res == nil || len(res.Entries) == 0:
		return "", auth.ErrBadCredentials
	case len(res.Entries) > 1:
		return "", fault.New(fault.Unavailable, "login.ldap.ambiguous", "Name", name, "Filter", filter).Because("ldap_ambiguous")
	}
	return res.Entries[0].DN, nil
}

func (d *Directory) readUser(conn *goldap.Conn, dn string) (*goldap.Entry, error) {
	res, err := conn.Search(goldap.NewSearchRequest(dn, goldap.ScopeBaseObject, goldap.NeverDerefAliases,
		1, 0, false, "(objectClass=*)", []string{d.cfg.NameAttr, "memberOf"}, nil))
	if err != nil {
		return nil, d.unavailable(err)
	}
	if len(res.Entries) == 0 {
		return nil, d.unavailable(fmt.Errorf("entry %s cannot be read", dn))
	}
	return res.Entries[0], nil
}

func (d *Directory) searchGroups(conn *goldap.Conn, dn, name string) ([]string, error) {
	filter := strings.NewReplacer("{dn}", goldap.EscapeFilter(dn), "{user}", goldap.EscapeFilter(name)).Replace(d.cfg.GroupFilter)
	res, err := conn.Search(goldap.NewSearchRequest(d.cfg.GroupBase, goldap.ScopeWholeSubtree, goldap.NeverDerefAliases,
		0, 0, false, filter, []string{"cn"}, nil))
	if err != nil {
		return nil, d.unavailable(err)
	}
	var groups []string
	for _, e := range res.Entries {
		if cn := e.GetAttributeValue("cn"); cn != "" {
			groups = append(groups, cn)
		} else {
			groups = append(groups, firstRDNValue(e.DN))
		}
	}
	return groups, nil
}

// firstRDNValue is "rmq-admins" of "cn=rmq-admins,ou=groups,dc=example,dc=org".
func firstRDNValue(dn string) string {
	p, err := goldap.ParseDN(dn)
	if err != nil || len(p.RDNs) == 0 || len(p.RDNs[0].Attributes) == 0 {
		return dn
	}
	return p.RDNs[0].Attributes[0].Value
}

// unavailable is the sentence for a directory that could not be asked.
func (d *Directory) unavailable(err error) error {
	return fault.Wrap(err, fault.Unavailable, "login.ldap.unavailable", "URL", d.cfg.URL, "Error", err.Error()).Because("ldap_unavailable")
}
