package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"rmqconsole/brokers"
	"rmqconsole/dev"
)

// On a 5.x ACL 2.0 cluster the broker's configuration holds the credentials of its first
// user and of its own calls (initAuthenticationUser, innerClientAuthenticationCredentials):
// the console shows those keys, masked, and no page or API answer about brokers carries
// the secret anywhere.
func TestBrokerConfigShowsNoSecretOnARealACLBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	admin, ok := dev.AccountFor(cl.NameServer)
	if !ok {
		if os.Getenv("RMQC_TEST_ACL") == "true" {
			t.Fatal("RMQC_TEST_ACL=true but the test cluster has ACL off")
		}
		t.Skip("the test cluster has ACL off; run on `rmqdev up --acl` with RMQC_TEST_NAMESRV")
	}
	if strings.HasPrefix(cl.Version, "4.") {
		t.Skip("4.x keeps its ACL accounts in plain_acl.yml, not in the broker's configuration")
	}
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", cl.NameServer,
		"--access-key", admin.AccessKey, "--secret-key", admin.SecretKey}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()

	broker := cl.Brokers[0].Name
	read := func(path string) string {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %.300s", path, res.StatusCode, b)
		}
		return string(b)
	}
	// The broker reads its configuration a moment after it registers: wait until the
	// page has the credential keys, so the test cannot pass on a page without them.
	var page string
	dev.Eventually(t, 60*time.Second, "the broker page shows the ACL configuration keys", func() error {
		page = read("/brokers/" + broker)
		for _, k := range []string{"initAuthenticationUser", "innerClientAuthenticationCredentials"} {
			if !strings.Contains(page, `data-key="`+k+`"`) {
				return fmt.Errorf("%s is not on the page", k)
			}
		}
		return nil
	})
	answers := map[string]string{
		"/brokers/" + broker:        page,
		"/api/v1/brokers/" + broker: read("/api/v1/brokers/" + broker),
		"/brokers":                  read("/brokers"),
		"/api/v1/brokers":           read("/api/v1/brokers"),
		"/api/v1/cluster":           read("/api/v1/cluster"),
	}
	for path, body := range answers {
		if strings.Contains(body, admin.SecretKey) {
			i := strings.Index(body, admin.SecretKey)
			t.Errorf("GET %s shows the secret: …%s…", path, body[max(0, i-120):min(len(body), i+40)])
		}
	}
	api := answers["/api/v1/brokers/"+broker]
	for _, k := range []string{"initAuthenticationUser", "innerClientAuthenticationCredentials"} {
		if want := `{"key":"` + k + `","value":"` + brokers.MaskedValue + `","masked":true}`; !strings.Contains(api, want) {
			t.Errorf("the API does not show %s masked (want %s)", k, want)
		}
	}
}
