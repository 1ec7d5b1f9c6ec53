package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// On a cluster with ACL on, a console whose secret is wrong says so on the home page,
// in the row of the broker that refused it, naming the access key and what to check and
// never the secret; with the right secret the same row shows the broker's version.
// RMQC_SCREENSHOT_DIR keeps a screenshot of each page for a person to look at.
func TestHomeSaysWhichBrokerRefusedTheCredentials(t *testing.T) {
	cl := dev.RequireCluster(t)
	admin, ok := dev.AccountFor(cl.NameServer)
	if !ok {
		if os.Getenv("RMQC_TEST_ACL") == "true" {
			t.Fatal("RMQC_TEST_ACL=true but the test cluster has ACL off")
		}
		t.Skip("the test cluster has ACL off; run on `rmqdev up --acl` with RMQC_TEST_NAMESRV")
	}
	const wrong = "not-the-secret-123"
	cases := []struct {
		name, secret, want string
		refused            bool
	}{
		{"wrong-secret", wrong, "refused access key " + admin.AccessKey + ": the signature does not match — check RMQC_SECRET_KEY", true},
		{"no-credentials", "", "has ACL on and refused a request without credentials — set RMQC_ACCESS_KEY", true},
		{"right-secret", admin.SecretKey, cl.Version, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"RMQC_NAMESRV=" + cl.NameServer, "RMQC_ACCESS_KEY=", "RMQC_SECRET_KEY="}
			if tc.secret != "" {
				env = append(env, "RMQC_ACCESS_KEY="+admin.AccessKey, "RMQC_SECRET_KEY="+tc.secret)
			}
			con := StartConsole(t, env...)
			ctx := Browser(t)
			cell := `[data-broker="` + cl.Brokers[0].Name + `"] [data-testid="broker-version"]`
			if tc.refused {
				cell = `[data-broker="` + cl.Brokers[0].Name + `"] [data-testid="broker-refused"]`
			}
			Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(chromedp.CSS(cell)))
			got := Get(t, ctx, "read the broker's row", chromedp.Text(chromedp.CSS(cell)))
			if !strings.Contains(got, tc.want) {
				t.Errorf("broker row says %q, want %q", got, tc.want)
			}
			if tc.refused && !strings.HasPrefix(got, "Broker "+cl.Brokers[0].Name+" ") {
				t.Errorf("the sentence %q does not start by naming the broker", got)
			}
			page := Get(t, ctx, "read the page", chromedp.OuterHTML(chromedp.CSS("html")))
			for where, text := range map[string]string{"page": page, "console log": con.Log()} {
				if strings.Contains(text, wrong) || strings.Contains(text, admin.SecretKey) {
					t.Errorf("the %s shows a secret key", where)
				}
			}
			Screenshot(t, ctx, "home-"+tc.name)
		})
	}
}
