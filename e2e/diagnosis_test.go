package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// diagnosisKinds reads the kinds the API finds for group ("" for every group).
func diagnosisKinds(t *testing.T, con *Console, group string) []string {
	t.Helper()
	u := con.URL + "/api/v1/diagnosis"
	if group != "" {
		u = con.URL + "/api/v1/groups/" + group + "/diagnosis"
	}
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Findings []struct{ Kind, Group, Evidence, Action string }
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("decode %s: %v", u, err)
	}
	var out []string
	for _, f := range body.Findings {
		if group == "" || f.Group == group {
			out = append(out, f.Kind+"@"+f.Group)
		}
	}
	return out
}

// A real consumer freezes (SIGSTOP: still connected, consuming nothing) while messages
// keep arriving: the overview leads with "Consumer stuck" for its group, with the evidence
// and a link to the group, and the group's page says the same in its Diagnosis section.
// Thawed, the consumer catches up and the finding goes.
func TestOverviewAndGroupPageShowAStuckConsumer(t *testing.T) {
	start := time.Now()
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "diag-t", 2)
	group := dev.UniqueName("diag-g")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL=1s")
	t.Logf("console up after %s", time.Since(start).Round(time.Second))
	send := sender(t, cl.NameServer, topic)
	c := dev.StartConsumerProcess(t, cl.NameServer, group, topic)
	send(4)
	dev.Eventually(t, 60*time.Second, "the consumer catches up", func() error {
		if l := groupLag(t, con, group); l != 0 {
			return fmt.Errorf("lag %d", l)
		}
		return nil
	})
	// A rule on the finding, beside lag: it fires when the group is found stuck.
	rule := fmt.Sprintf(`{"group":%q,"metric":"consumerStuck","webhookUrl":"http://127.0.0.1:9/hook"}`, group)
	res, err := http.Post(con.URL+"/api/v1/alert-rules", "application/json", strings.NewReader(rule))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		t.Fatalf("create a rule on consumerStuck: %s", res.Status)
	}
	setupDone := time.Now()
	if err := c.Freeze(); err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			_ = c.Thaw()
		}
	}()
	frozenAt := time.Now()
	dev.Eventually(t, 60*time.Second, "the API finds the group stuck", func() error {
		send(2)
		if k := diagnosisKinds(t, con, ""); !slices.Contains(k, "consumerStuck@"+group) {
			return fmt.Errorf("findings %v", k)
		}
		return nil
	})
	t.Logf("stuck found %s after the freeze (collector every 1 s, stuck after 10 s)", time.Since(frozenAt).Round(time.Second))

	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	// The rule fires at the read that found it (for: 0); the overview leads with it.
	Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"),
		chromedp.WaitVisible(fmt.Sprintf(`[data-testid=overview-firing-row][data-group=%q]`, group)))
	row := fmt.Sprintf(`[data-testid=overview-diagnosis] [data-testid=finding][data-kind=consumerStuck][data-group=%q]`, group)
	Do(t, ctx, "see the finding", chromedp.WaitVisible(row))
	text := TextNow(t, ctx, "read the finding", row)
	if !strings.Contains(text, "Consumer stuck") || !strings.Contains(text, "no committed offset moved") {
		t.Errorf("overview finding %q", text)
	}
	href := Get(t, ctx, "read the action", chromedp.Evaluate[string](`document.querySelector(`+strconv.Quote(row+` [data-testid=finding-action]`)+`).getAttribute("href")`))
	if href != "/groups/"+group {
		t.Errorf("action link %q, want the group's page", href)
	}
	Screenshot(t, ctx, "diagnosis-overview")

	Do(t, ctx, "open the group", chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(`[data-testid=group-diagnosis] [data-testid=finding][data-kind=consumerStuck]`))
	if s := TextNow(t, ctx, "read the section", `[data-testid=group-diagnosis]`); !strings.Contains(s, "Diagnosis") || !strings.Contains(s, "no committed offset moved") {
		t.Errorf("group Diagnosis %q", s)
	}
	Screenshot(t, ctx, "diagnosis-group")

	if err := c.Thaw(); err != nil {
		t.Fatal(err)
	}
	thawed = true
	dev.Eventually(t, 60*time.Second, "the finding goes once the consumer moves again", func() error {
		if k := diagnosisKinds(t, con, group); len(k) != 0 {
			return fmt.Errorf("findings %v", k)
		}
		return nil
	})
	Do(t, ctx, "reload the group", chromedp.Navigate(con.URL+"/groups/"+group), chromedp.WaitVisible(`[data-testid=diagnosis-none]`))
	t.Logf("setup %s, from the freeze to the end %s", setupDone.Sub(start).Round(time.Second), time.Since(setupDone).Round(time.Second))
}

// The console is given a NameServer that does not answer beside the cluster's: the
// diagnosis cannot compare the NameServers' views, and the overview says so in a muted
// line naming it and the cause (as the API does), rather than silently finding nothing.
func TestOverviewSaysWhatTheDiagnosisCouldNotRead(t *testing.T) {
	cl := dev.RequireCluster(t)
	const dead = "127.0.0.1:1"
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer+";"+dead, "RMQC_METRICS_INTERVAL=1s")
	dev.Eventually(t, 60*time.Second, "the API says the NameServer could not be read", func() error {
		res, err := http.Get(con.URL + "/api/v1/diagnosis")
		if err != nil {
			return err
		}
		defer res.Body.Close()
		var body struct {
			Unread []struct{ What, Subject, Cause, Text string }
		}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			return err
		}
		for _, u := range body.Unread {
			if u.What == "nameServer" && u.Subject == dead && u.Cause != "" {
				return nil
			}
		}
		return fmt.Errorf("unread %+v", body.Unread)
	})
	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	line := `[data-testid=diagnosis-unread]`
	Do(t, ctx, "open the overview", chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(line))
	if s := TextNow(t, ctx, "read the line", line); !strings.Contains(s, "Could not read NameServer "+dead) {
		t.Errorf("overview says %q", s)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		Do(t, ctx, "set the browser's language to "+lang, browserLanguage(t, ctx, lang))
		for _, scheme := range []string{"light", "dark"} {
			for _, width := range []int64{1280, 800, 390} {
				Do(t, ctx, fmt.Sprintf("open the overview at %d px, %s, %s", width, scheme, lang),
					colorScheme(scheme), chromedp.EmulateViewport(width, 900),
					chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(line))
				viewShot(t, ctx, fmt.Sprintf("diagnosis-unread-%s-%s-%d", lang, scheme, width))
			}
		}
	}
	if s := TextNow(t, ctx, "read the line in Chinese", line); !strings.Contains(s, "无法读取") || !strings.Contains(s, dead) {
		t.Errorf("overview in Chinese says %q", s)
	}
}

// Two real orderly consumers share a topic; the one holding some queues' locks is
// killed (SIGKILL: the broker keeps its locks until they expire) while messages arrive:
// the overview lists "Orderly queue blocked" for the group, naming the client that
// left, with a link to the group. (That the finding goes once the other client has
// locked the queues is diagnosis/'s integration test: waiting here for the locks to
// expire would add a minute to the browser suite.)
func TestOverviewShowsAnOrderlyQueueBlockedByAKilledClient(t *testing.T) {
	cl := dev.RequireCluster(t)
	topic := newTopic(t, cl, "diag-ord-t", 4)
	group := dev.UniqueName("diag-ord-g")
	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL=1s")
	send := sender(t, cl.NameServer, topic)
	o := dev.ConsumerOptions{Orderly: true, LockInterval: 2 * time.Second}
	a := dev.StartConsumerProcessWith(t, cl.NameServer, group, o, topic)
	dev.StartConsumerProcessWith(t, cl.NameServer, group, o, topic)
	send(8)
	dev.Eventually(t, 120*time.Second, "both clients hold locks", func() error {
		res, err := http.Get(con.URL + "/api/v1/groups/" + group)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		var g struct {
			Queues []struct {
				Lock *struct {
					Holder string
					Locked bool
				}
			}
		}
		if err := json.NewDecoder(res.Body).Decode(&g); err != nil {
			return err
		}
		holders := map[string]bool{}
		for _, q := range g.Queues {
			if q.Lock != nil && q.Lock.Locked {
				holders[q.Lock.Holder] = true
			}
		}
		if len(holders) != 2 {
			return fmt.Errorf("holders %v", holders)
		}
		return nil
	})
	// The collector's reads after this one (every 1 s) see the holders before one goes.
	held := time.Now()
	dev.Eventually(t, 30*time.Second, "two more collector reads", func() error {
		res, err := http.Get(con.URL + "/api/v1/diagnosis")
		if err != nil {
			return err
		}
		defer res.Body.Close()
		var body struct{ CheckedAt time.Time }
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			return err
		}
		if body.CheckedAt.Before(held.Add(2 * time.Second)) {
			return fmt.Errorf("last read at %v", body.CheckedAt)
		}
		return nil
	})
	a.Kill()
	dev.Eventually(t, 60*time.Second, "the API finds the queues blocked", func() error {
		send(4)
		if k := diagnosisKinds(t, con, group); !slices.Contains(k, "orderlyBlocked@"+group) {
			return fmt.Errorf("findings %v", k)
		}
		return nil
	})
	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	row := fmt.Sprintf(`[data-testid=overview-diagnosis] [data-testid=finding][data-kind=orderlyBlocked][data-group=%q]`, group)
	Do(t, ctx, "open the overview", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(con.URL+"/"), chromedp.WaitVisible(row))
	text := TextNow(t, ctx, "read the finding", row)
	if !strings.Contains(text, "Orderly queue blocked") || !strings.Contains(text, "@"+a.Instance) || !strings.Contains(text, "locked by a client that left") {
		t.Errorf("overview finding %q", text)
	}
	viewShot(t, ctx, "diagnosis-orderly-overview")
	Do(t, ctx, "open the group", chromedp.Navigate(con.URL+"/groups/"+group),
		chromedp.WaitVisible(`[data-testid=group-diagnosis] [data-testid=finding][data-kind=orderlyBlocked]`))
	Screenshot(t, ctx, "diagnosis-orderly-group")
	viewShot(t, ctx, "diagnosis-orderly-group")
}
