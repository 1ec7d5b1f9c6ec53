package dev

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"

	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"
)

// LDAP is an OpenLDAP server (Debian's slapd) of the test binary's own: a temporary mdb
// database in a temp directory, on free loopback ports (ldap:// with StartTLS, and
// ldaps://), with the memberOf overlay, loaded with LDAPPeople and LDAPGroups.
type LDAP struct {
	// Dir holds the configuration, the database, the certificates and the log.
	Dir string
	// Port serves ldap:// (StartTLS offered), TLSPort ldaps://.
	Port, TLSPort int
	// CAFile is the PEM certificate of the CA that signed the server's certificate
	// (for 127.0.0.1).
	CAFile string
	cmd    *exec.Cmd
	exited chan struct{}
}

// The directory's layout and accounts.
const (
	LDAPBase          = "dc=example,dc=org"
	LDAPPeopleBase    = "ou=people," + LDAPBase
	LDAPGroupBase     = "ou=groups," + LDAPBase
	LDAPAdminDN       = "cn=admin," + LDAPBase
	LDAPAdminPassword = "admin-secret"
	// LDAPServiceDN may read the directory (it finds users and their groups) but not
	// passwords.
	LDAPServiceDN       = "cn=console,ou=services," + LDAPBase
	LDAPServicePassword = "console-secret"
)

// LDAPPerson is a person in ou=people, signing in as uid with Password.
type LDAPPerson struct{ UID, Password string }

// LDAPPeople are the directory's people; LDAPGroups its groupOfNames by cn, with their
// members' uids: two groups the console maps to roles, and one it does not.
var (
	LDAPPeople = []LDAPPerson{{"lena", "lena-password"}, {"omar", "omar-password"}, {"sam", "sam-password"}}
	LDAPGroups = map[string][]string{"rmq-admins": {"lena"}, "rmq-ops": {"omar"}, "sales": {"sam", "omar"}}
)

// LDAPPersonDN is the DN of the person with uid.
func LDAPPersonDN(uid string) string { return "uid=" + uid + "," + LDAPPeopleBase }

var slapd struct {
	once    sync.Once
	server  *LDAP
	err     error
	missing string
}

// RequireLDAP returns the test binary's OpenLDAP server, starting it on first use;
// RunTests stops it. Without slapd it skips the test saying what to install, or fails
// it when CI=true. It runs under -short too: it is no RocketMQ.
func RequireLDAP(t testing.TB) *LDAP {
	t.Helper()
	slapd.once.Do(func() {
		bin, err := exec.LookPath("slapd")
		if err != nil {
			if _, serr := os.Stat("/usr/sbin/slapd"); serr != nil {
				slapd.missing = "slapd not found in /usr/sbin or on PATH"
				return
			}
			bin = "/usr/sbin/slapd"
		}
		slapd.server, slapd.err = StartLDAP(bin)
	})
	if slapd.missing != "" {
		msg := "OpenLDAP: " + slapd.missing + " (Debian: apt-get install slapd ldap-utils)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if slapd.err != nil {
		t.Fatal(slapd.err)
	}
	return slapd.server
}

// StopLDAP stops the server RequireLDAP started, if any, and removes its files.
func StopLDAP() {
	if slapd.server != nil {
		slapd.server.Stop()
	}
}

// URL is the server's ldap:// URL, TLSURL its ldaps:// one.
func (l *LDAP) URL() string    { return "ldap://127.0.0.1:" + strconv.Itoa(l.Port) }
func (l *LDAP) TLSURL() string { return "ldaps://127.0.0.1:" + strconv.Itoa(l.TLSPort) }

// StartLDAP writes a slapd.conf and a TLS certificate into a new temp directory, starts
// slapd (bin) on two free loopback ports and loads the people and groups.
func StartLDAP(bin string) (*LDAP, error) {
	dir, err := os.MkdirTemp("", "rmqc-ldap-")
	if err != nil {
		return nil, err
	}
	l := &LDAP{Dir: dir}
	if err := l.writeFiles(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for attempt := 1; attempt <= 3; attempt++ {
		if l.Port, err = freeLoopbackPort(); err != nil {
			break
		}
		if l.TLSPort, err = freeLoopbackPort(); err != nil {
			break
		}
		if err = l.start(bin); err == nil {
			break
		}
	}
	if err == nil {
		err = l.load()
	}
	if err != nil {
		l.Stop()
		return nil, err
	}
	return l, nil
}

func (l *LDAP) writeFiles() error {
	if err := os.MkdirAll(filepath.Join(l.Dir, "db"), 0o700); err != nil {
		return err
	}
	if err := writeTestCertificates(l.Dir); err != nil {
		return err
	}
	l.CAFile = filepath.Join(l.Dir, "ca.crt")
	conf := fmt.Sprintf(`include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile %[1]s/slapd.pid
argsfile %[1]s/slapd.args
TLSCACertificateFile %[1]s/ca.crt
TLSCertificateFile %[1]s/server.crt
TLSCertificateKeyFile %[1]s/server.key

database mdb
maxsize 16777216
suffix "%[2]s"
rootdn "%[3]s"
rootpw %[4]s
directory %[1]s/db
overlay memberof

access to attrs=userPassword by anonymous auth by self write by * none
access to * by users read by * none
`, l.Dir, LDAPBase, LDAPAdminDN, LDAPAdminPassword)
	return os.WriteFile(filepath.Join(l.Dir, "slapd.conf"), []byte(conf), 0o600)
}

func (l *LDAP) start(bin string) error {
	logPath := filepath.Join(l.Dir, "slapd.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	urls := fmt.Sprintf("ldap://127.0.0.1:%d/ ldaps://127.0.0.1:%d/", l.Port, l.TLSPort)
	// -d keeps slapd in the foreground, logging connections and operations (stats).
	l.cmd = exec.Command(bin, "-f", filepath.Join(l.Dir, "slapd.conf"), "-h", urls, "-d", "stats")
	l.cmd.Stdout, l.cmd.Stderr = log, log
	// Pdeathsig: a test binary that dies without stopping it takes the server along.
	l.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := l.cmd.Start(); err != nil {
		return fmt.Errorf("start slapd: %w", err)
	}
	exited := make(chan struct{})
	l.exited = exited
	go func() { l.cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		conn, err := ldap.DialURL(l.URL(), ldap.DialWithDialer(&net.Dialer{Timeout: time.Second}))
		if err == nil {
			err = conn.Bind(LDAPAdminDN, LDAPAdminPassword)
			conn.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("slapd on ports %d and %d exited at start:\n%s", l.Port, l.TLSPort, out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			l.cmd.Process.Kill()
			<-exited
			return fmt.Errorf("slapd on port %d did not answer within 15s: %v (log %s)", l.Port, err, logPath)
		}
	}
}

// load adds the people and groups through the server, so the memberOf overlay records
// each person's groups as it would in a company directory.
func (l *LDAP) load() error {
	conn, err := ldap.DialURL(l.URL())
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Bind(LDAPAdminDN, LDAPAdminPassword); err != nil {
		return err
	}
	add := func(dn string, attrs map[string][]string) error {
		req := ldap.NewAddRequest(dn, nil)
		for k, v := range attrs {
			req.Attribute(k, v)
		}
		if err := conn.Add(req); err != nil {
			return fmt.Errorf("add %s to the test directory: %w", dn, err)
		}
		return nil
	}
	entries := []struct {
		dn    string
		attrs map[string][]string
	}{
		{LDAPBase, map[string][]string{"objectClass": {"dcObject", "organization"}, "dc": {"example"}, "o": {"Example"}}},
		{LDAPPeopleBase, map[string][]string{"objectClass": {"organizationalUnit"}, "ou": {"people"}}},
		{LDAPGroupBase, map[string][]string{"objectClass": {"organizationalUnit"}, "ou": {"groups"}}},
		{"ou=services," + LDAPBase, map[string][]string{"objectClass": {"organizationalUnit"}, "ou": {"services"}}},
		{LDAPServiceDN, map[string][]string{"objectClass": {"organizationalRole", "simpleSecurityObject"},
			"cn": {"console"}, "userPassword": {LDAPServicePassword}}},
	}
	for _, e := range entries {
		if err := add(e.dn, e.attrs); err != nil {
			return err
		}
	}
	for _, p := range LDAPPeople {
		if err := add(LDAPPersonDN(p.UID), map[string][]string{"objectClass": {"inetOrgPerson"}, "uid": {p.UID},
			"cn": {p.UID}, "sn": {p.UID}, "mail": {p.UID + "@example.org"}, "userPassword": {p.Password}}); err != nil {
			return err
		}
	}
	for cn, members := range LDAPGroups {
		var dns []string
		for _, uid := range members {
			dns = append(dns, LDAPPersonDN(uid))
		}
		if err := add("cn="+cn+","+LDAPGroupBase, map[string][]string{"objectClass": {"groupOfNames"}, "cn": {cn}, "member": dns}); err != nil {
			return err
		}
	}
	return nil
}

// Stop stops the server at once and removes its directory.
func (l *LDAP) Stop() {
	if l.cmd != nil && l.cmd.Process != nil && l.exited != nil {
		l.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-l.exited:
		case <-time.After(5 * time.Second):
			l.cmd.Process.Kill()
			<-l.exited
		}
	}
	os.RemoveAll(l.Dir)
}

// writeTestCertificates writes ca.crt, server.crt and server.key into dir: a CA made
// for this run and a certificate it signed for 127.0.0.1 and localhost.
func writeTestCertificates(dir string) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rmqconsole test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	for name, block := range map[string]*pem.Block{
		"ca.crt":     {Type: "CERTIFICATE", Bytes: caDER},
		"server.crt": {Type: "CERTIFICATE", Bytes: leafDER},
		"server.key": {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			return err
		}
	}
	return nil
}
