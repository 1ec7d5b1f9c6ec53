package e2e

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

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

// With an account that may sign in but lacks the rights a page needs (a 5.x Normal user
// without policies), each page that asked a broker names it and the missing permission,
// as the home page does, and never shows the secret. RMQC_SCREENSHOT_DIR keeps each page
// for a person to look at.
func TestPagesSayWhichBrokerRefusedAPermission(t *testing.T) {
	cl := dev.RequireCluster(t)
	if _, ok := dev.AccountFor(cl.NameServer); !ok {
		if os.Getenv("RMQC_TEST_ACL") == "true" {
			t.Fatal("RMQC_TEST_ACL=true but the test cluster has ACL off")
		}
		t.Skip("the test cluster has ACL off; run on `rmqdev up --acl` with RMQC_TEST_NAMESRV")
	}
	if strings.HasPrefix(cl.Version, "4.") {
		// 4.x plain ACL checks only admin requests and publish/subscribe rights: the
		// limited account (SUB on every topic and group) reads these pages, and its
		// refusals (resets, topic changes) are the ACL test's.
		t.Skip("4.x plain ACL lets the limited account read these pages")
	}
	limited := dev.LimitedAccount
	topic, group := dev.UniqueName("AclPages"), dev.UniqueName("acl-pages")
	if err := cl.CreateTopic(t.Context(), topic, 2); err != nil {
		t.Fatal(err)
	}
	if out, err := cl.MQAdmin(t.Context(), "updateSubGroup", "-c", cl.ClusterName, "-g", group); err != nil {
		t.Fatalf("create group %s: %v\n%s", group, err, out)
	}
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_ACCESS_KEY="+limited.AccessKey, "RMQC_SECRET_KEY="+limited.SecretKey)
	ctx := Browser(t)
	broker := cl.Brokers[0].Name
	now := time.Now().UTC()
	for _, p := range []struct{ name, path, resource string }{
		{"topic", "/topics/" + topic, "Topic:" + topic},
		{"messages", "/messages?tab=range&topic=" + topic + "&begin=" + url.QueryEscape(now.Add(-time.Hour).Format("2006-01-02 15:04:05")) +
			"&end=" + url.QueryEscape(now.Format("2006-01-02 15:04:05")), "Topic:" + topic},
		{"group", "/groups/" + group, "Group:" + group},
	} {
		t.Run(p.name, func(t *testing.T) {
			Do(t, ctx, "open "+p.path, chromedp.Navigate(con.URL+p.path), chromedp.WaitReady("body"))
			text := Get(t, ctx, "read the page", chromedp.Text(chromedp.CSS("main")))
			want := "Broker " + broker + " refused access key " + limited.AccessKey + ": no permission for " + p.resource
			if n := strings.Count(text, want); n != 1 {
				t.Errorf("%s says %q %d times, want once: %q", p.path, want, n, cutText(text, 800))
			}
			if strings.Contains(text, "has no GET_ALL_PRODUCER_INFO") {
				t.Errorf("%s calls a refused producer list a limit of the broker's version", p.path)
			}
			page := Get(t, ctx, "read the html", chromedp.OuterHTML(chromedp.CSS("html")))
			if strings.Contains(page, limited.SecretKey) || strings.Contains(con.Log(), limited.SecretKey) {
				t.Errorf("%s or the console log shows the secret key", p.path)
			}
			Screenshot(t, ctx, "refused-"+p.name)
		})
	}
}

func cutText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
