package server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/handlers"
)

// cli runs a users or tokens subcommand through run, as the binary does, with stdin.
type cli struct {
	t   *testing.T
	dir string
}

func (c cli) run(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	args = append(args, "--data-dir", c.dir)
	if args[0] == "users" {
		code = usersCommand(context.Background(), args[1:], noEnv, strings.NewReader(stdin), &out, &errb)
	} else {
		code = run(context.Background(), args, noEnv, &out, &errb)
	}
	return code, out.String(), errb.String()
}

func (c cli) app() *App {
	cfg, err := ParseConfig([]string{"--data-dir", c.dir}, noEnv, io.Discard)
	if err != nil {
		c.t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(a.Close)
	return a
}

func TestUsersCommand(t *testing.T) {
	c := cli{t, t.TempDir()}
	if code, out, _ := c.run("", "users", "list"); code != 0 || !strings.Contains(out, "single-user local mode") {
		t.Fatalf("list without users: %d %q", code, out)
	}
	if code, out, errb := c.run(testPassword+"\n", "users", "add", "alice", "--role", "operator"); code != 0 || out != "Added user alice (operator).\n" {
		t.Fatalf("add: %d %q %q", code, out, errb)
	}
	// Usage mistakes exit 2 and say what is wrong; nothing is added.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"users", "add", "bob"}, "--role"},
		{[]string{"users", "add", "bob", "--role", "root"}, "viewer, operator or admin"},
		{[]string{"users", "add", "--role", "admin"}, "one user name"},
		{[]string{"users", "frobnicate"}, "unknown command"},
		{[]string{"users"}, "Usage:"},
	} {
		code, _, errb := c.run(testPassword+"\n", tc.args...)
		if code != 2 || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 mentioning %q", tc.args, code, errb, tc.want)
		}
	}
	// Refusals exit 1 with one sentence.
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{strings.Repeat("p", 73) + "\n", []string{"users", "add", "bob", "--role", "viewer"}, "72"},
		{"short\n", []string{"users", "add", "bob", "--role", "viewer"}, "at least 8"},
		{"", []string{"users", "add", "bob", "--role", "viewer"}, "no password"},
		{testPassword + "\n", []string{"users", "add", "alice", "--role", "viewer"}, "already exists"},
		{testPassword + "\n", []string{"users", "add", "b b", "--role", "viewer"}, "letters, digits"},
		{testPassword + "\n", []string{"users", "passwd", "nobody"}, "no user nobody"},
		{"", []string{"users", "remove", "nobody"}, "no user nobody"},
	} {
		code, _, errb := c.run(tc.stdin, tc.args...)
		if code != 1 || !strings.Contains(errb, tc.want) || strings.Count(strings.TrimSpace(errb), "\n") != 0 {
			t.Errorf("%v: exit %d %q, want 1 with one line mentioning %q", tc.args, code, errb, tc.want)
		}
	}
	if code, out, _ := c.run("", "users", "list"); code != 0 || !strings.Contains(out, "alice") || strings.Contains(out, "bob") {
		t.Fatalf("list: %d %q", code, out)
	}

	// The console started on the same database accepts alice; passwd signs her out.
	a := c.app()
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	login := func(pw string) int {
		res, err := browser(t).PostForm(srv.URL+"/login", url.Values{"name": {"alice"}, "password": {pw}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := login(testPassword); got != http.StatusSeeOther {
		t.Fatalf("alice cannot sign in: %d", got)
	}
	ck := sessionCookie(t, a, "alice")
	if code, out, errb := c.run("brand new password\n", "users", "passwd", "alice"); code != 0 || !strings.Contains(out, "2 session(s) signed out") {
		t.Fatalf("passwd: %d %q %q", code, out, errb)
	}
	req := newRequest(http.MethodGet, "/", nil)
	req.AddCookie(ck)
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	if classify(rec) != signIn {
		t.Fatalf("session survived passwd: %d", rec.Code)
	}
	if login(testPassword) != http.StatusUnauthorized || login("brand new password") != http.StatusSeeOther {
		t.Fatal("passwd did not replace the password")
	}

	if code, out, _ := c.run("", "users", "remove", "alice"); code != 0 || !strings.Contains(out, "Removed user alice") {
		t.Fatalf("remove: %d %q", code, out)
	}
	if login("brand new password") != http.StatusUnauthorized {
		t.Fatal("a removed user can still sign in")
	}
}

func TestTokensCommand(t *testing.T) {
	c := cli{t, t.TempDir()}
	c.run(testPassword+"\n", "users", "add", "ci", "--role", "viewer")
	code, secret, errb := c.run("", "tokens", "create", "--user", "ci", "--name", "nightly")
	secret = strings.TrimSpace(secret)
	if code != 0 || !strings.HasPrefix(secret, "rmqc_") || strings.Contains(secret, "\n") || !strings.Contains(errb, "shown only this once") {
		t.Fatalf("create: %d stdout %q stderr %q: want the token alone on stdout", code, secret, errb)
	}
	if code, _, errb := c.run("", "tokens", "create", "--user", "ghost"); code != 1 || !strings.Contains(errb, "no user ghost") {
		t.Fatalf("token for unknown user: %d %q", code, errb)
	}
	if code, _, errb := c.run("", "tokens", "create"); code != 2 || !strings.Contains(errb, "--user") {
		t.Fatalf("create without --user: %d %q", code, errb)
	}

	a := c.app()
	call := func() int {
		req := newRequest(http.MethodGet, "/api/v1/users/ci/tokens", nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	if got := call(); got != 200 {
		t.Fatalf("the printed token does not work: %d", got)
	}
	code, out, _ := c.run("", "tokens", "list")
	if code != 0 || !strings.Contains(out, "nightly") || !strings.Contains(out, "viewer") || strings.Contains(out, secret) {
		t.Fatalf("list: %d %q (must not show the secret)", code, out)
	}
	if code, _, errb := c.run("", "tokens", "revoke", "1", "--user", "someone-else"); code != 1 || !strings.Contains(errb, "no API token 1") {
		t.Fatalf("revoke scoped to another user: %d %q", code, errb)
	}
	if code, out, _ := c.run("", "tokens", "revoke", "1"); code != 0 || !strings.Contains(out, "Revoked API token 1 (nightly) of ci") {
		t.Fatalf("revoke: %d %q", code, out)
	}
	if got := call(); got != http.StatusUnauthorized {
		t.Fatalf("revoked token still works: %d", got)
	}
	if code, out, _ := c.run("", "tokens", "list", "--user", "ci"); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("list after revoke: %d %q", code, out)
	}
}

// selfSignedCert writes a certificate and key for 127.0.0.1 and returns their paths and
// a pool that trusts it.
func selfSignedCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rmqconsole test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// With --tls-cert and --tls-key the console serves HTTPS only, and its session cookie is
// Secure.
func TestServeTLS(t *testing.T) {
	certFile, keyFile, pool := selfSignedCert(t)
	a := newAuthApp(t, "--tls-cert", certFile, "--tls-key", keyFile)
	addUsers(t, a, roleUsers)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	base := "https://" + ln.Addr().String()
	c := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	res, err := c.PostForm(base+"/login", url.Values{"name": {"vera"}, "password": {testPassword}})
	if err != nil {
		t.Fatalf("HTTPS sign-in: %v", err)
	}
	res.Body.Close()
	var secure bool
	for _, k := range res.Cookies() {
		secure = secure || (k.Name == handlers.SessionCookie && k.Secure)
	}
	if res.StatusCode != http.StatusSeeOther || !secure {
		t.Fatalf("HTTPS sign-in: %d, Secure cookie %v", res.StatusCode, secure)
	}
	// Plain HTTP on the same port gets nothing useful.
	if res, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Fatal("plain HTTP served on the TLS port")
		}
	}
}

// Behind a trusted TLS-terminating proxy that says the request was HTTPS, the cookie is
// Secure; the same claim from anyone else is ignored.
func TestSecureCookieBehindTrustedProxy(t *testing.T) {
	a := newAuthApp(t, "--trusted-proxies", "10.0.0.1")
	addUsers(t, a, roleUsers)
	for remote, want := range map[string]bool{"10.0.0.1:1234": true, "10.0.0.2:1234": false} {
		req := newRequest(http.MethodPost, "/login", strings.NewReader(url.Values{"name": {"vera"}, "password": {testPassword}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-Proto", "https")
		req.RemoteAddr = remote
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		cookies := rec.Result().Cookies()
		if rec.Code != http.StatusSeeOther || len(cookies) != 1 || cookies[0].Secure != want {
			t.Errorf("from %s: %d %v, want Secure=%v", remote, rec.Code, cookies, want)
		}
	}
}
