package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
)

// lagHistoryAnswer is GET /api/v1/groups/{group}/lag-history: the samples and the trend.
type lagHistoryAnswer struct {
	Trend struct {
		Direction string `json:"direction"`
		Never     bool   `json:"never"`
		DrainMs   *int64 `json:"drainMs"`
		How       string `json:"how"`
	} `json:"trend"`
	Samples []struct {
		At         time.Time `json:"at"`
		Lag        *int64    `json:"lag"`
		LagTimeMs  *int64    `json:"lagTimeMs"`
		ConsumeTps *float64  `json:"consumeTps"`
		ProduceTps *float64  `json:"produceTps"`
	} `json:"samples"`
}

func lagHistory(t *testing.T, con *Console, group, query string) lagHistoryAnswer {
	t.Helper()
	res, err := http.Get(con.URL + "/api/v1/groups/" + group + "/lag-history" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var a lagHistoryAnswer
	if res.StatusCode != http.StatusOK {
		t.Fatalf("lag-history%s: %s", query, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return a
}

// The lag history is collected whether or not anyone watches, and is still there after a
// restart: a console collects a group nobody opens, stops, and a second console on the
// same database with the collector off answers the samples, draws them on the group page
// before any live poll, and shows the last hour as a sparkline in the group list.
func TestLagHistorySurvivesRestart(t *testing.T) {
	cl := dev.RequireCluster(t)
	_, group := offlineGroupWithBacklog(t, cl, 30)
	first := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL=1s")
	var collected int
	dev.Eventually(t, 90*time.Second, "the collector stores three samples of the group", func() error {
		a := lagHistory(t, first, group, "")
		collected = 0
		for _, s := range a.Samples {
			if s.Lag != nil && *s.Lag == 30 {
				collected++
			}
		}
		if collected < 3 {
			return fmt.Errorf("%d samples with lag 30 of %d", collected, len(a.Samples))
		}
		return nil
	})
	first.Stop(t)

	con := StartConsole(t, "RMQC_NAMESRV="+cl.NameServer, "RMQC_METRICS_INTERVAL=0", "RMQC_DATA_DIR="+first.DataDir)
	a := lagHistory(t, con, group, "")
	if len(a.Samples) < collected {
		t.Fatalf("after the restart the API answers %d samples, the first console had stored %d", len(a.Samples), collected)
	}
	if s := a.Samples[len(a.Samples)-1]; s.ConsumeTps == nil || *s.ConsumeTps != 0 || s.ProduceTps == nil || *s.ProduceTps != 0 {
		t.Errorf("newest stored sample %+v: want consume and produce rates of 0 for an idle group", s)
	}
	if old := lagHistory(t, con, group, "?until="+strconv.FormatInt(a.Samples[0].At.UnixMilli(), 10)); len(old.Samples) != 0 {
		t.Errorf("until the first sample: %d samples, want none", len(old.Samples))
	}

	browser := Browser(t)
	ctx, closeTab := newTab(t, browser)
	defer closeTab()
	Do(t, ctx, "open the group", chromedp.Navigate(con.URL+"/groups/"+group), chromedp.WaitVisible(chromedp.CSS(`#lag-chart .u-legend`)))
	stored := Get(t, ctx, "count the stored samples", chromedp.Evaluate[string](`document.getElementById("lag-chart-stored").getAttribute("data-samples")`))
	if n, _ := strconv.Atoi(stored); n < collected {
		t.Errorf("the page carries %s stored samples, want at least %d", stored, collected)
	}
	if n := chartPoints(t, ctx); n < collected {
		t.Errorf("the chart draws %d points at once, want the %d stored", n, collected)
	}
	Do(t, ctx, "ask for the last 7 days", chromedp.Click(`[data-testid=lag-ranges] a[href$="range=7d"]`))
	dev.Eventually(t, 30*time.Second, "the chart shows the stored samples of the last 7 days", func() error {
		cur := Get(t, ctx, "read the range shown", chromedp.Evaluate[string](`(document.querySelector('[data-testid=lag-ranges] strong') || {}).textContent || ""`))
		if n := chartPoints(t, ctx); cur != "last 7d" || n < collected {
			return fmt.Errorf("the chart says %q and draws %d points, want last 7d and the %d stored", cur, n, collected)
		}
		return nil
	})

	Do(t, ctx, "open the group list", chromedp.Navigate(con.URL+"/groups?q="+group), chromedp.WaitVisible(`[data-testid=groups-table]`))
	title := Get(t, ctx, "read the sparkline", chromedp.Evaluate[string](`(document.querySelector('tr[data-group="`+group+`"] [data-testid=group-spark] svg title') || {}).textContent || ""`))
	if want := "lag over the last hour"; len(title) < len(want) || title[:len(want)] != want {
		t.Errorf("the group's sparkline says %q, want the last hour's lag", title)
	}
}
