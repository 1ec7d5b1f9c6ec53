package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"rmqconsole/dev"
)

// The scale simulation: the real console binary against a simulated cluster (dev/cmd/
// rmqfake, a process of its own, so the console's RSS is the console's alone) at sizes
// from today's to 64 brokers × 100 000 groups × 50 000 topics, with a latency per broker
// call. Per page and collector it reports the broker requests (counted by the fake, by
// request code), the time, the bytes answered and the console's memory, and prints one
// table per run.
//
//	RMQC_BENCH_SCALE=1x,10x,100x RMQC_BENCH_LATENCY=1ms,5ms \
//	  go test -run '^$' -bench BenchmarkScale -benchtime 1x -timeout 60m ./e2e/

// scaleSize is one size of the simulated cluster.
type scaleSize struct {
	name                    string
	brokers, groups, topics int
}

// scaleSizes: 1x is today's reference cluster; max is the largest the simulation holds.
var scaleSizes = []scaleSize{
	{"1x", 1, 500, 200},
	{"10x", 4, 5000, 2000},
	{"100x", 16, 50000, 20000},
	{"max", 64, 100000, 50000},
}

func envList(name, def string) []string {
	v := os.Getenv(name)
	if v == "" {
		v = def
	}
	var out []string
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// fakeBinary builds dev/cmd/rmqfake once.
func fakeBinary(b *testing.B) string {
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rmqfake-bin-")
		if err != nil {
			fakeErr = err
			return
		}
		fakeBin = filepath.Join(dir, "rmqfake")
		root, err := dev.RepoRoot()
		if err != nil {
			fakeErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", fakeBin, "./dev/cmd/rmqfake")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			fakeErr = fmt.Errorf("go build rmqfake: %v\n%s", err, out)
		}
	})
	if fakeErr != nil {
		b.Fatal(fakeErr)
	}
	return fakeBin
}

// simCluster is a running rmqfake.
type simCluster struct {
	cmd        *exec.Cmd
	env        map[string]string
	nameServer string
}

func startSim(b *testing.B, s scaleSize, latency string) *simCluster {
	b.Helper()
	cmd := exec.Command(fakeBinary(b), "-brokers", strconv.Itoa(s.brokers), "-groups", strconv.Itoa(s.groups),
		"-topics", strconv.Itoa(s.topics), "-latency", latency)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := &simCluster{cmd: cmd, env: map[string]string{}}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	r := bufio.NewScanner(out)
	for len(sc.env) < 5 && r.Scan() {
		k, v, _ := strings.Cut(r.Text(), "=")
		sc.env[k] = v
	}
	if len(sc.env) < 5 {
		b.Fatalf("rmqfake said %v", sc.env)
	}
	go io.Copy(io.Discard, out)
	sc.nameServer = sc.env["RMQC_NAMESRV"]
	return sc
}

// calls returns the requests the fake answered so far, and the bytes, all codes together.
func (sc *simCluster) calls(b *testing.B) (requests, bytes int64, byCode map[string]int64) {
	b.Helper()
	res, err := http.Get(sc.env["RMQFAKE_STATS"] + "/calls")
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var st struct {
		Calls      map[string]struct{ Requests, Bytes int64 }
		Unanswered map[string]int
	}
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		b.Fatal(err)
	}
	if len(st.Unanswered) > 0 {
		b.Errorf("requests the simulation does not answer: %v", st.Unanswered)
	}
	byCode = map[string]int64{}
	for code, c := range st.Calls {
		requests += c.Requests
		bytes += c.Bytes
		byCode[code] = c.Requests
	}
	return requests, bytes, byCode
}

// memMiB reads a process's VmRSS and VmHWM (its peak) in MiB.
func memMiB(b *testing.B, pid int) (rss, hwm float64) {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

// scaleRow is one line of the table.
type scaleRow struct {
	size, latency, op string
	calls             float64
	byCode            string
	ms                float64
	bytes             float64
	rss, hwm, fakeHWM float64
}

var (
	scaleMu   sync.Mutex
	scaleRows []scaleRow
)

// mainCodes names the request codes worth a column in the table's note.
func topCodes(before, after map[string]int64, n float64) string {
	type kv struct {
		k string
		v float64
	}
	var all []kv
	for k, v := range after {
		if d := float64(v-before[k]) / n; d > 0 {
			all = append(all, kv{k, d})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v })
	var parts []string
	for i, e := range all {
		if i == 4 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f", e.k, e.v))
	}
	return strings.Join(parts, ", ")
}

// BenchmarkScale draws the cost curves of the group list (page and API), the topic list,
// a group page, a message page (the hot topic's message: a tenth of all groups consume
// it), the lag collector and alert evaluation per refresh, and 200 websocket viewers of
// 50 groups against 50 single viewers, for each RMQC_BENCH_SCALE size (1x, 10x, 100x,
// max; default 1x,10x,100x) and RMQC_BENCH_LATENCY (default 1ms). Lists are read cold
// (refresh=1: a full pass over the brokers).
func BenchmarkScale(b *testing.B) {
	skipShort(b)
	sizes := map[string]scaleSize{}
	for _, s := range scaleSizes {
		sizes[s.name] = s
	}
	for _, name := range envList("RMQC_BENCH_SCALE", "1x,10x,100x") {
		s, ok := sizes[name]
		if !ok {
			b.Fatalf("RMQC_BENCH_SCALE: no size %q (1x, 10x, 100x, max)", name)
		}
		for _, latency := range envList("RMQC_BENCH_LATENCY", "1ms") {
			b.Run(fmt.Sprintf("size=%s/latency=%s", name, latency), func(b *testing.B) { scaleRun(b, s, latency) })
		}
	}
	printScaleTable()
}

func scaleRun(b *testing.B, s scaleSize, latency string) {
	sc := startSim(b, s, latency)
	con := StartConsole(b, "RMQC_NAMESRV="+sc.nameServer, "RMQC_METRICS_INTERVAL=0", "RMQC_LOG_LEVEL=info", "RMQC_TIMEOUT=30s")
	pid := con.cmd.Process.Pid
	page := func(name, path string, check func(body []byte) error) {
		b.Run(name, func(b *testing.B) {
			get := func() []byte {
				res, err := http.Get(con.URL + path)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("GET %s: %d %.300s", path, res.StatusCode, body)
				}
				if err := check(body); err != nil {
					b.Fatalf("GET %s: %v", path, err)
				}
				return body
			}
			c0, _, codes0 := sc.calls(b)
			var size int
			var took time.Duration
			for b.Loop() {
				start := time.Now()
				size = len(get())
				took += time.Since(start)
			}
			c1, _, codes1 := sc.calls(b)
			n := float64(b.N)
			rss, hwm := memMiB(b, pid)
			_, fakeHWM := memMiB(b, sc.cmd.Process.Pid)
			row := scaleRow{size: s.name, latency: latency, op: name, calls: float64(c1-c0) / n, byCode: topCodes(codes0, codes1, n),
				ms: float64(took.Microseconds()) / 1000 / n, bytes: float64(size), rss: rss, hwm: hwm, fakeHWM: fakeHWM}
			report(b, row)
		})
	}
	contains := func(s string) func([]byte) error {
		return func(body []byte) error {
			if !strings.Contains(string(body), s) {
				return fmt.Errorf("no %q in the answer", s)
			}
			return nil
		}
	}
	group, msg, hot := sc.env["RMQFAKE_ONLINE_GROUP"], sc.env["RMQFAKE_HOT_MESSAGE"], sc.env["RMQFAKE_HOT_TOPIC"]
	page("group-list-api", "/api/v1/groups?refresh=1&q="+group, contains(group))
	page("group-list-page", "/groups?refresh=1&q="+group, contains(group))
	page("topic-list-api", "/api/v1/topics?refresh=1&q="+hot, contains(hot))
	page("topic-list-page", "/topics?refresh=1&q="+hot, contains(hot))
	// The first pages as a reader opens them: the lists just read are served from memory.
	page("group-list-first-page", "/groups", contains("scale-group-"))
	page("topic-list-first-page", "/topics", contains("scale-topic-"))
	page("group-page", "/groups/"+group, contains(group))
	page("message-page", "/messages/"+msg, contains(hot))
	page("message-api", "/api/v1/messages/"+msg, contains(hot))
	con.Stop(b)

	scaleCollectors(b, s, latency, sc)
	scaleViewers(b, s, latency, sc)
}

func report(b *testing.B, r scaleRow) {
	b.ReportMetric(r.calls, "calls/op")
	b.ReportMetric(r.ms, "ms/op")
	b.ReportMetric(r.bytes, "answer-bytes")
	b.ReportMetric(r.hwm, "console-hwm-MiB")
	b.ReportMetric(r.rss, "console-rss-MiB")
	scaleMu.Lock()
	scaleRows = append(scaleRows, r)
	scaleMu.Unlock()
}

// scaleCollectors runs a console whose lag collector refreshes every second (the alert
// rules are evaluated on each refresh) and counts the requests of each refresh; a
// refresh that takes longer than the interval is the next one's start.
func scaleCollectors(b *testing.B, s scaleSize, latency string, sc *simCluster) {
	b.Run("collectors", func(b *testing.B) {
		con := StartConsole(b, "RMQC_NAMESRV="+sc.nameServer, "RMQC_METRICS_INTERVAL=1s", "RMQC_LOG_LEVEL=info", "RMQC_TIMEOUT=30s")
		// A refresh is a new group list (the collector reads it afresh each interval):
		// its checkedAt, one row of the API, rather than /metrics, whose every scrape at
		// 100x writes a million per-queue series and would weigh on what is measured.
		last := func() float64 {
			res, err := http.Get(con.URL + "/api/v1/groups?limit=1")
			if err != nil {
				b.Fatal(err)
			}
			defer res.Body.Close()
			var l struct {
				CheckedAt time.Time `json:"checkedAt"`
			}
			if res.StatusCode != 200 || json.NewDecoder(res.Body).Decode(&l) != nil {
				return 0 // no list yet
			}
			return float64(l.CheckedAt.UnixNano())
		}
		waitNext := func(after float64) float64 {
			deadline := time.Now().Add(10 * time.Minute)
			for {
				if v := last(); v > after {
					return v
				}
				if time.Now().After(deadline) {
					b.Fatal("the lag collector never refreshed")
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		at := waitNext(0) // the first refresh: cluster info, versions
		c0, _, codes0 := sc.calls(b)
		start := time.Now()
		for b.Loop() { // one iteration: one refresh
			at = waitNext(at)
		}
		c1, _, codes1 := sc.calls(b)
		n := float64(b.N)
		rss, hwm := memMiB(b, con.cmd.Process.Pid)
		_, fakeHWM := memMiB(b, sc.cmd.Process.Pid)
		report(b, scaleRow{size: s.name, latency: latency, op: "collectors/refresh", calls: float64(c1-c0) / n,
			byCode: topCodes(codes0, codes1, n), ms: float64(time.Since(start).Microseconds()) / 1000 / n, rss: rss, hwm: hwm, fakeHWM: fakeHWM})
		con.Stop(b)
	})
}

// scaleViewers opens websocket viewers of 50 online groups, one each and then four each,
// with no collector, and counts the requests per second of polling.
func scaleViewers(b *testing.B, s scaleSize, latency string, sc *simCluster) {
	const groups = 50
	for _, viewers := range []int{groups, 4 * groups} {
		b.Run(fmt.Sprintf("viewers=%d", viewers), func(b *testing.B) {
			// Every viewer is the same caller (local mode, one address): the limit of live
			// pages per user is lifted, as it is for the viewers of many people.
			con := StartConsole(b, "RMQC_NAMESRV="+sc.nameServer, "RMQC_GROUP_POLL=1s", "RMQC_METRICS_INTERVAL=0",
				"RMQC_LOG_LEVEL=info", "RMQC_TIMEOUT=30s", "RMQC_LIVE_VIEWS_PER_USER="+strconv.Itoa(viewers))
			var wg sync.WaitGroup
			conns := make([]*websocket.Conn, viewers)
			for i := range conns {
				// Online groups are every fourth (rmqfake's -online-every default).
				g := fmt.Sprintf("scale-group-%06d", 4*(i%groups))
				url := "ws" + strings.TrimPrefix(con.URL, "http") + "/ws/groups/" + g
				c, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {con.URL}})
				if err != nil {
					b.Fatalf("viewer %d: %v", i, err)
				}
				conns[i] = c
				wg.Go(func() {
					for {
						if _, _, err := c.ReadMessage(); err != nil {
							return
						}
					}
				})
			}
			defer func() {
				for _, c := range conns {
					c.Close()
				}
				wg.Wait()
			}()
			waitMetric(b, con, liveViewers, func(v float64) bool { return v == float64(viewers) })
			start := scrape(b, con, livePolls)[livePolls]
			waitMetric(b, con, livePolls, func(v float64) bool { return v >= start+3*groups }) // every watcher settled
			c0, _, codes0 := sc.calls(b)
			p0 := scrape(b, con, livePolls)[livePolls]
			t0 := time.Now()
			for b.Loop() { // one iteration: one poll of every group
				cur := scrape(b, con, livePolls)[livePolls]
				waitMetric(b, con, livePolls, func(v float64) bool { return v >= cur+groups })
			}
			c1, _, codes1 := sc.calls(b)
			rounds := (scrape(b, con, livePolls)[livePolls] - p0) / groups
			rss, hwm := memMiB(b, con.cmd.Process.Pid)
			_, fakeHWM := memMiB(b, sc.cmd.Process.Pid)
			report(b, scaleRow{size: s.name, latency: latency, op: fmt.Sprintf("%d viewers of %d groups/poll", viewers, groups),
				calls: float64(c1-c0) / rounds, byCode: topCodes(codes0, codes1, rounds),
				ms: float64(time.Since(t0).Microseconds()) / 1000 / rounds, rss: rss, hwm: hwm, fakeHWM: fakeHWM})
		})
	}
}

func printScaleTable() {
	scaleMu.Lock()
	defer scaleMu.Unlock()
	if len(scaleRows) == 0 {
		return
	}
	fmt.Printf("\n%-5s %-7s %-34s %12s %10s %12s %9s %9s %9s  %s\n", "size", "latency", "operation", "calls", "ms", "bytes",
		"rss MiB", "hwm MiB", "fake hwm", "main request codes (per op)")
	for _, r := range scaleRows {
		fmt.Printf("%-5s %-7s %-34s %12.0f %10.1f %12.0f %9.1f %9.1f %9.1f  %s\n", r.size, r.latency, r.op, r.calls, r.ms, r.bytes,
			r.rss, r.hwm, r.fakeHWM, r.byCode)
	}
	scaleRows = nil
}
