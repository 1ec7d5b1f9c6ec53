package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"rmqconsole/dev"
)

// dashboardFile is the Grafana dashboard, relative to the repository.
const dashboardFile = "deploy/grafana/rmqconsole.json"

// grafanaDashboard is the part of a Grafana dashboard these checks read.
type grafanaDashboard struct {
	Templating struct {
		List []struct {
			Type       string          `json:"type"`
			Name       string          `json:"name"`
			Query      json.RawMessage `json:"query"`
			Definition string          `json:"definition"`
			AllValue   string          `json:"allValue"`
		} `json:"list"`
	} `json:"templating"`
	Panels []grafanaPanel `json:"panels"`
}

type grafanaPanel struct {
	Type       string          `json:"type"`
	Title      string          `json:"title"`
	Datasource *grafanaSource  `json:"datasource"`
	Targets    []grafanaTarget `json:"targets"`
	Panels     []grafanaPanel  `json:"panels"` // a collapsed row's
}

type grafanaSource struct{ Type, UID string }

type grafanaTarget struct {
	Datasource   *grafanaSource `json:"datasource"`
	Expr         string         `json:"expr"`
	LegendFormat string         `json:"legendFormat"`
}

// scrapedSeries is every series name of a scrape with the label names and values it has.
type scrapedSeries map[string]map[string]map[string]bool

// targetLabels are added by Prometheus to every series it scrapes, so the console's own
// /metrics never shows them.
var targetLabels = []string{"job", "instance"}

func parseScrape(t *testing.T, text string) scrapedSeries {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("/metrics is not the text format: %v", err)
	}
	out := scrapedSeries{}
	add := func(name string, m *dto.Metric, extra ...string) {
		if out[name] == nil {
			out[name] = map[string]map[string]bool{}
		}
		labels := out[name]
		put := func(k, v string) {
			if labels[k] == nil {
				labels[k] = map[string]bool{}
			}
			labels[k][v] = true
		}
		for _, l := range m.GetLabel() {
			put(l.GetName(), l.GetValue())
		}
		for i := 0; i+1 < len(extra); i += 2 {
			put(extra[i], extra[i+1])
		}
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM:
				add(name+"_count", m)
				add(name+"_sum", m)
				for _, b := range m.GetHistogram().GetBucket() {
					add(name+"_bucket", m, "le", fmt.Sprint(b.GetUpperBound()))
				}
				add(name+"_bucket", m, "le", "+Inf")
			case dto.MetricType_SUMMARY:
				add(name+"_count", m)
				add(name+"_sum", m)
				for _, q := range m.GetSummary().GetQuantile() {
					add(name, m, "quantile", fmt.Sprint(q.GetQuantile()))
				}
			default:
				add(name, m)
			}
		}
	}
	return out
}

// promSelector is one series selector of a PromQL expression.
type promSelector struct {
	metric   string
	matchers []promMatcher
}

type promMatcher struct{ label, op, value string }

// promRefs is what a PromQL expression reads: its selectors, and the labels its
// aggregations and vector matchings name (the first list is the outermost aggregation's).
type promRefs struct {
	selectors []promSelector
	grouping  [][]string
}

// promFunctions are the PromQL functions and aggregations the dashboard may use; a name
// outside them is an error here rather than a metric, so a misspelt function is caught.
var promFunctions = map[string]bool{
	"sum": true, "max": true, "min": true, "avg": true, "count": true, "topk": true, "bottomk": true,
	"rate": true, "irate": true, "increase": true, "delta": true, "histogram_quantile": true,
	"time": true, "vector": true, "scalar": true, "clamp_min": true, "clamp_max": true, "abs": true,
	"max_over_time": true, "min_over_time": true, "avg_over_time": true, "last_over_time": true,
	"changes": true, "resets": true, "sort_desc": true, "absent": true,
}

var promGroupingWords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

var promTokenRE = regexp.MustCompile(`^(?:\s+|"(?:[^"\\]|\\.)*"|[a-zA-Z_:][a-zA-Z0-9_:]*|[0-9]+(?:\.[0-9]+)?|=~|!~|!=|==|>=|<=|[-+*/%^(){}\[\],=<>])`)

// parsePromQL extracts the selectors and grouping labels of expr: a small reader of the
// PromQL the dashboard writes (the Prometheus parser is not among the console's
// dependencies). What it does not understand is an error, never a silent pass.
func parsePromQL(expr string) (promRefs, error) {
	var toks []string
	for s := expr; s != ""; {
		m := promTokenRE.FindString(s)
		if m == "" {
			return promRefs{}, fmt.Errorf("cannot read %q", s)
		}
		if strings.TrimSpace(m) != "" {
			toks = append(toks, m)
		}
		s = s[len(m):]
	}
	var r promRefs
	isIdent := func(s string) bool { return regexp.MustCompile(`^[a-zA-Z_:]`).MatchString(s) }
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch {
		case tok == "[":
			for i < len(toks) && toks[i] != "]" {
				i++
			}
			if i == len(toks) {
				return r, errors.New("a range without ]")
			}
		case tok == "{":
			return r, errors.New("a selector without a metric name")
		case promGroupingWords[tok]:
			if next != "(" {
				if tok == "group_left" || tok == "group_right" {
					continue
				}
				return r, fmt.Errorf("%s without a label list", tok)
			}
			var labels []string
			for i += 2; i < len(toks) && toks[i] != ")"; i++ {
				if toks[i] != "," {
					labels = append(labels, toks[i])
				}
			}
			r.grouping = append(r.grouping, labels)
		case tok == "and" || tok == "or" || tok == "unless" || tok == "bool":
		case promFunctions[tok] && (next == "(" || promGroupingWords[next]):
		case isIdent(tok) && next == "(":
			return r, fmt.Errorf("unknown function %s", tok)
		case isIdent(tok):
			sel := promSelector{metric: tok}
			if next == "{" {
				for i += 2; i < len(toks) && toks[i] != "}"; {
					if i+2 >= len(toks) || !isIdent(toks[i]) || !strings.HasPrefix(toks[i+2], `"`) {
						return r, fmt.Errorf("cannot read the matchers of %s", tok)
					}
					sel.matchers = append(sel.matchers, promMatcher{label: toks[i], op: toks[i+1], value: strings.Trim(toks[i+2], `"`)})
					i += 3
					if i < len(toks) && toks[i] == "," {
						i++
					}
				}
				if i == len(toks) {
					return r, fmt.Errorf("%s{ without }", tok)
				}
			}
			r.selectors = append(r.selectors, sel)
		}
	}
	return r, nil
}

var grafanaVarRE = regexp.MustCompile(`\$\{?([a-zA-Z_][a-zA-Z0-9_]*)\}?`)

// checkQuery checks that expr reads only series and labels the scrape has: each
// selector's metric and matcher labels (a literal = matcher's value too), each grouping
// label on one of its metrics, and the legend's labels kept by its outermost aggregation.
func checkQuery(scrape scrapedSeries, vars map[string]bool, expr, legend string) error {
	for _, m := range grafanaVarRE.FindAllStringSubmatch(expr+" "+legend, -1) {
		if !vars[m[1]] && !slices.Contains([]string{"__rate_interval", "__interval", "__range"}, m[1]) {
			return fmt.Errorf("variable $%s is not defined", m[1])
		}
	}
	// Grafana's interval variables stand for a duration inside a range.
	refs, err := parsePromQL(regexp.MustCompile(`\$\{?__(rate_interval|interval|range)\}?`).ReplaceAllString(expr, "5m"))
	if err != nil {
		return err
	}
	if len(refs.selectors) == 0 {
		if strings.Contains(expr, "vector(") || strings.Contains(expr, "time()") {
			return nil
		}
		return errors.New("reads no series")
	}
	have := map[string]bool{}
	for _, l := range targetLabels {
		have[l] = true
	}
	for _, s := range refs.selectors {
		labels, ok := scrape[s.metric]
		if !ok {
			return fmt.Errorf("%s is not on /metrics", s.metric)
		}
		for l := range labels {
			have[l] = true
		}
		for _, m := range s.matchers {
			values, ok := labels[m.label]
			if !ok && !slices.Contains(targetLabels, m.label) {
				return fmt.Errorf("%s has no label %s", s.metric, m.label)
			}
			if m.op == "=" && !strings.Contains(m.value, "$") && !values[m.value] {
				return fmt.Errorf("%s has no series with %s=%q", s.metric, m.label, m.value)
			}
		}
	}
	for _, g := range refs.grouping {
		for _, l := range g {
			if !have[l] {
				return fmt.Errorf("groups by %s, which none of its series has", l)
			}
		}
	}
	for _, m := range regexp.MustCompile(`\{\{\s*([a-zA-Z_]+)\s*\}\}`).FindAllStringSubmatch(legend, -1) {
		if len(refs.grouping) > 0 && !slices.Contains(refs.grouping[0], m[1]) {
			return fmt.Errorf("the legend names %s, which the aggregation by %v drops", m[1], refs.grouping[0])
		}
		if !have[m[1]] {
			return fmt.Errorf("the legend names %s, which none of its series has", m[1])
		}
	}
	return nil
}

// The reader of the dashboard's PromQL catches what it is there to catch.
func TestPromQLReaderFindsMetricsLabelsAndMistakes(t *testing.T) {
	scrape := scrapedSeries{
		"a_total":          {"cluster": {"x": true}, "code": {"GET": true}},
		"h_seconds_bucket": {"cluster": {"x": true}, "le": {"0.1": true}},
	}
	vars := map[string]bool{"cluster": true}
	for _, c := range []struct {
		expr, legend, err string
	}{
		{`sum by (cluster, code) (rate(a_total{cluster=~"$cluster"}[$__rate_interval]))`, "{{cluster}} {{code}}", ""},
		{`histogram_quantile(0.95, sum by (cluster, le) (rate(h_seconds_bucket[5m])))`, "{{cluster}}", ""},
		{`count(max by (cluster) (a_total{code="GET"}) == 0) or vector(0)`, "", ""},
		{`sum(b_total)`, "", "b_total is not on /metrics"},
		{`sum(a_total{grup=~"$cluster"})`, "", "a_total has no label grup"},
		{`sum(a_total{code="PUT"})`, "", `no series with code="PUT"`},
		{`sum by (group) (a_total)`, "", "groups by group"},
		{`sum by (cluster) (a_total)`, "{{code}}", "the legend names code"},
		{`sum(a_total{cluster=~"$clustr"})`, "", "variable $clustr"},
		{`summ(a_total)`, "", "unknown function summ"},
		{`{__name__="a_total"}`, "", "without a metric name"},
	} {
		err := checkQuery(scrape, vars, c.expr, c.legend)
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.expr, err, c.err)
		}
	}
}

// readDashboard reads the dashboard and every query in it: the panels' expressions with
// their legends, and the template variables' label_values queries.
func readDashboard(t *testing.T) (d grafanaDashboard, vars map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), dashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	vars = map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	return d, vars
}

func allPanels(ps []grafanaPanel) []grafanaPanel {
	var out []grafanaPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}

// The dashboard picks its Prometheus, cluster and groups from variables, and every panel
// queries through the chosen data source.
func TestDashboardHasDataSourceClusterAndGroupVariables(t *testing.T) {
	d, _ := readDashboard(t)
	kinds := map[string]string{}
	for _, v := range d.Templating.List {
		kinds[v.Name] = v.Type
		if v.Type == "query" && v.AllValue != ".*" {
			t.Errorf("variable %s: All is %q, want .* (a console with one cluster exports no cluster label)", v.Name, v.AllValue)
		}
	}
	if kinds["datasource"] != "datasource" || kinds["cluster"] != "query" || kinds["group"] != "query" {
		t.Fatalf("variables %v, want datasource, cluster and group", kinds)
	}
	n := 0
	for _, p := range allPanels(d.Panels) {
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" || len(p.Targets) == 0 {
			t.Errorf("panel %q: data source %+v, %d queries", p.Title, p.Datasource, len(p.Targets))
		}
		for _, q := range p.Targets {
			n++
			if q.Datasource == nil || q.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q: a query on %+v, not the chosen data source", p.Title, q.Datasource)
			}
		}
	}
	if n < 20 {
		t.Errorf("%d queries", n)
	}
}

// A real console managing two clusters (so its series carry their cluster label),
// against the real broker, with a group that has lag and an alert rule firing for it:
// every metric, label and label value the dashboard queries is on its /metrics.
func TestDashboardQueriesOnlyWhatMetricsExports(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	_, group := offlineGroupWithLag(t, cl, 2, 6)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	defer hook.Close()

	conf := filepath.Join(t.TempDir(), "clusters.yaml")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "clusters:\n  - name: alpha\n    namesrv: [%q]\n  - name: beta\n    namesrv: [%q]\n", cl.NameServer, cl.NameServer), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--config", conf,
		"--metrics-interval", "1s"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	defer func() { stop(); <-served }()
	base := "http://" + ln.Addr().String()

	rule := fmt.Sprintf(`{"name":"dashboard check","group":%q,"metric":"lag","threshold":0,"webhookUrl":%q}`, group, hook.URL)
	res, err := http.Post(base+"/api/v1/alert-rules", "application/json", strings.NewReader(rule))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		t.Fatalf("alert rule: %d %s", res.StatusCode, body)
	}

	var scrape scrapedSeries
	dev.Eventually(t, 60*time.Second, "the group's lag and its firing rule on /metrics", func() error {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("/metrics answered %d", res.StatusCode)
		}
		scrape = parseScrape(t, string(b))
		for _, want := range []struct{ metric, label, value string }{
			{"rmqconsole_consumer_queue_lag", "group", group},
			{"rmqconsole_consumer_queue_lag_time_seconds", "group", group},
			{"rmqconsole_consumer_group_lag_time_seconds", "cluster", "beta"},
			{"rmqconsole_alert_state", "state", "firing"},
			{"rmqconsole_broker_request_duration_seconds_bucket", "cluster", "alpha"},
		} {
			if !scrape[want.metric][want.label][want.value] {
				return fmt.Errorf("no %s with %s=%q yet", want.metric, want.label, want.value)
			}
		}
		return nil
	})

	d, vars := readDashboard(t)
	checked := 0
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := regexp.MustCompile(`^label_values\((.+),\s*([a-zA-Z_]+)\)$`).FindStringSubmatch(v.Definition)
		if m == nil || !strings.Contains(string(v.Query), v.Definition) && !strings.Contains(string(v.Query), strings.ReplaceAll(v.Definition, `"`, `\"`)) {
			t.Errorf("variable %s: definition %q, query %s: want one label_values query", v.Name, v.Definition, v.Query)
			continue
		}
		if err := checkQuery(scrape, vars, fmt.Sprintf("sum by (%s) (%s)", m[2], m[1]), ""); err != nil {
			t.Errorf("variable %s: %s: %v", v.Name, v.Definition, err)
		}
		checked++
	}
	for _, p := range allPanels(d.Panels) {
		for _, q := range p.Targets {
			if err := checkQuery(scrape, vars, q.Expr, q.LegendFormat); err != nil {
				t.Errorf("panel %q: %s: %v", p.Title, q.Expr, err)
			}
			checked++
		}
	}
	t.Logf("%d queries of %s checked against /metrics (%d series names)", checked, dashboardFile, len(scrape))
}
