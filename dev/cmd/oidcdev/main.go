// Command oidcdev runs the test OpenID provider of dev/oidcprovider on a loopback port
// for trying OpenID Connect sign-in by hand: it registers the console at -console as a
// client and prints the RMQC_OIDC_* settings to start it with. Users: ada (rmq-admins),
// otto (rmq-ops) and nina (sales), each with the password NAME-password. Ctrl-C stops it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"rmqconsole/dev/oidcprovider"
)

func main() {
	console := flag.String("console", "http://127.0.0.1:8090", "the console's URL, as the browser reaches it")
	flag.Parse()
	p, err := oidcprovider.Start(oidcprovider.DefaultUsers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oidcdev:", err)
		os.Exit(1)
	}
	defer p.Close()
	secret := filepath.Join(os.TempDir(), "rmqc-oidcdev-secret")
	if err := os.WriteFile(secret, []byte("dev-secret\n"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "oidcdev:", err)
		os.Exit(1)
	}
	p.AddClient(oidcprovider.Client{ID: "rmqconsole", Secret: "dev-secret",
		RedirectURIs: []string{*console + "/login/oidc/callback"}, PostLogoutRedirectURIs: []string{*console + "/login?reason=signed-out"}})
	fmt.Printf("RMQC_OIDC_ISSUER=%s\nRMQC_OIDC_CLIENT_ID=rmqconsole\nRMQC_OIDC_CLIENT_SECRET_FILE=%s\n", p.Issuer, secret)
	fmt.Printf("RMQC_OIDC_REDIRECT_URL=%s/login/oidc/callback\nRMQC_OIDC_SCOPES=openid profile email groups\n", *console)
	fmt.Printf("RMQC_OIDC_ROLES=rmq-admins=admin,rmq-ops=operator\n")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
