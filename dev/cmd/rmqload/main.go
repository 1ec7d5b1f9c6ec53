// Command rmqload measures a console binary against a private two-broker RocketMQ on
// loopback: how long each page takes with one broker frozen (SIGSTOP) or the first
// NameServer silent, and how much memory it holds under a bounded load. It starts
// and stops everything itself (a cluster on free ports, the console, the clients), so
// the numbers can be rerun; run it in its own network namespace next to other work.
//
//	rmqload probe -console BIN[,BIN...] [-timeout 2s]
//	rmqload load  -console BIN[,BIN...] [-users 30] [-viewers 100] [-duration 45s]
//	rmqload all   ... (probe, then load, for each binary)
//
// probe prints, per page, the status and the time taken, healthy and with broker-a
// frozen. load runs users × time-range searches of 2000 messages back to back and
// viewers live group pages (websockets) for the duration, and prints the answers by
// status, their latency and the console's peak resident memory.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/gorilla/websocket"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// Bounds on a load run, so a typo cannot turn it into a flood.
const (
	maxUsers    = 100
	maxViewers  = 200
	maxDuration = 2 * time.Minute
	messages    = 3000 // more than the 2000 a range search returns
	bodySize    = 1024
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "probe" && os.Args[1] != "load" && os.Args[1] != "all") {
		fmt.Fprintln(os.Stderr, "usage: rmqload probe|load|all -console BIN [flags] (see the package comment)")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	bin := fs.String("console", "", "the rmqconsole binaries to measure, comma-separated (each in turn, on the same cluster)")
	timeout := fs.Duration("timeout", 2*time.Second, "RMQC_TIMEOUT of the console")
	users := fs.Int("users", 30, "load: concurrent users running time-range searches")
	viewers := fs.Int("viewers", 100, "load: live group page viewers (websockets)")
	duration := fs.Duration("duration", 45*time.Second, "load: how long")
	fs.Parse(os.Args[2:])
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "rmqload: -console BIN is needed")
		os.Exit(2)
	}
	if *users > maxUsers || *viewers > maxViewers || *duration > maxDuration || *users < 1 || *viewers < 0 {
		fmt.Fprintf(os.Stderr, "rmqload: at most %d users, %d viewers, %s\n", maxUsers, maxViewers, maxDuration)
		os.Exit(2)
	}
	rlog.SetLogLevel("error")
	w, err := setUp()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rmqload:", err)
		os.Exit(1)
	}
	defer w.cl.Kill()
	// Several binaries (before,after) are measured one after the other on one cluster.
	for _, b := range strings.Split(*bin, ",") {
		if os.Args[1] != "load" {
			err = probe(w, b, *timeout)
		}
		if err == nil && os.Args[1] != "probe" {
			err = load(w, b, *timeout, *users, *viewers, *duration)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "rmqload:", err)
			os.Exit(1)
		}
		fmt.Println()
	}
}

// world is the cluster and what was put in it.
type world struct {
	cl          *dev.Cluster
	topic       string
	group       string
	key         string // of one message
	uniqKey     string // client-made id of that message
	offsetMsgID string
	begin, end  time.Time
}

func setUp() (*world, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ports, err := dev.FreePorts()
	if err != nil {
		return nil, err
	}
	cl, err := dev.Start(ctx, dev.Options{SecondBroker: true, Ports: ports, StartupTimeout: 4 * time.Minute, Log: os.Stderr})
	if err != nil { // a busy machine can miss the start-up deadline once
		fmt.Fprintln(os.Stderr, "rmqload: trying once more:", strings.SplitN(err.Error(), "\n", 2)[0])
		if ports, err = dev.FreePorts(); err != nil {
			return nil, err
		}
		if cl, err = dev.Start(ctx, dev.Options{SecondBroker: true, Ports: ports, StartupTimeout: 4 * time.Minute, Log: os.Stderr}); err != nil {
			return nil, err
		}
	}
	w := &world{cl: cl, topic: dev.UniqueName("load"), group: dev.UniqueName("load-cg")}
	if err := w.seed(ctx); err != nil {
		cl.Kill()
		return nil, err
	}
	return w, nil
}

// seed makes a topic with 4 queues on each broker holding 3000 messages of 1 KiB, and
// a group with offsets on every queue (so it has lag and a page).
func (w *world) seed(ctx context.Context) error {
	if err := w.cl.CreateTopic(ctx, w.topic, 4); err != nil {
		return err
	}
	c, err := rocketmq.New(rocketmq.Config{NameServer: w.cl.NameServer})
	if err != nil {
		return err
	}
	defer c.Close()
	route, err := c.TopicRoute(ctx, w.topic)
	if err != nil {
		return err
	}
	for _, b := range w.cl.Brokers {
		if err := c.UpdateSubscriptionGroup(ctx, b.Addr, rocketmq.SubscriptionGroupConfig{GroupName: w.group, ConsumeEnable: true}); err != nil {
			return err
		}
		for _, mq := range route.ReadQueues() {
			if mq.BrokerName == b.Name {
				if err := c.UpdateConsumerOffset(ctx, b.Addr, w.group, mq, 0); err != nil {
					return err
				}
			}
		}
	}
	p, err := rmq.NewProducer(producer.WithNameServer([]string{w.cl.NameServer}), producer.WithGroupName(dev.UniqueName("pg")),
		producer.WithInstanceName(dev.UniqueName("p")), producer.WithRetry(2), producer.WithSendMsgTimeout(10*time.Second))
	if err != nil {
		return err
	}
	if err := p.Start(); err != nil {
		return err
	}
	defer p.Shutdown()
	w.begin = time.Now().Add(-time.Minute)
	body := []byte(strings.Repeat("x", bodySize))
	for i := range messages {
		m := primitive.NewMessage(w.topic, body)
		m.WithKeys([]string{fmt.Sprintf("k-%d", i)})
		r, err := p.SendSync(ctx, m)
		if err != nil {
			return fmt.Errorf("send message %d: %w", i, err)
		}
		if i == messages/2 {
			w.key, w.uniqKey, w.offsetMsgID = fmt.Sprintf("k-%d", i), r.MsgID, r.OffsetMsgID
		}
	}
	w.end = time.Now().Add(time.Minute)
	// The key index is built asynchronously: wait until the broker finds the key.
	for found := false; !found; {
		for _, b := range w.cl.Brokers {
			if r, err := c.QueryMessageByKey(ctx, b.Addr, w.topic, w.key, 1, time.Time{}, time.Time{}); err == nil && len(r.Messages) > 0 {
				found = true
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("key %s never indexed", w.key)
		}
		time.Sleep(300 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "rmqload: %d messages in %s, group %s\n", messages, w.topic, w.group)
	return nil
}

// console is one running console process.
type console struct {
	cmd  *exec.Cmd
	base string
	dir  string
}

func startConsole(bin, nameServers string, timeout time.Duration) (*console, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	dir, err := os.MkdirTemp("", "rmqload-console-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "RMQC_NAMESRV="+nameServers, "RMQC_TIMEOUT="+timeout.String(),
		"RMQC_LISTEN="+addr, "RMQC_DATA_DIR="+dir, "RMQC_LOG_LEVEL=warn", "RMQC_METRICS_INTERVAL=0",
		// Every viewer comes from this one address: let it have them all.
		fmt.Sprintf("RMQC_LIVE_VIEWS_PER_USER=%d", maxViewers))
	log, err := os.Create(filepath.Join(dir, "console.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &console{cmd: cmd, base: "http://" + addr, dir: dir}
	for deadline := time.Now().Add(60 * time.Second); ; {
		if res, err := http.Get(c.base + "/healthz"); err == nil {
			res.Body.Close()
			return c, nil
		}
		if time.Now().After(deadline) {
			c.stop()
			return nil, fmt.Errorf("console %s never answered /healthz (log in %s)", bin, dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *console) stop() {
	_ = c.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(c.dir)
}

// rssKiB reads a /proc/<pid>/status field (VmRSS, VmHWM) in KiB.
func rssKiB(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// silentNameServer accepts connections and never answers, like a frozen NameServer.
func silentNameServer() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c)
		}
	}()
	return ln.Addr().String(), func() { ln.Close() }, nil
}

type probeResult struct {
	status int
	took   time.Duration
	note   string
}

func timeGet(client *http.Client, u string) probeResult {
	start := time.Now()
	res, err := client.Get(u)
	if err != nil {
		return probeResult{took: time.Since(start), note: err.Error()}
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return probeResult{status: res.StatusCode, took: time.Since(start), note: mentions(string(body))}
}

func timePost(client *http.Client, u, body string) probeResult {
	start := time.Now()
	res, err := client.Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		return probeResult{took: time.Since(start), note: err.Error()}
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return probeResult{status: res.StatusCode, took: time.Since(start), note: mentions(string(b))}
}

// mentions says which brokers an answer names (as failed or otherwise).
func mentions(body string) string {
	var names []string
	for _, b := range []string{"broker-a", "broker-b"} {
		if strings.Contains(body, b) {
			names = append(names, b)
		}
	}
	return strings.Join(names, ",")
}

func probe(w *world, bin string, timeout time.Duration) error {
	con, err := startConsole(bin, w.cl.NameServer, timeout)
	if err != nil {
		return err
	}
	defer con.stop()
	silent, closeSilent, err := silentNameServer()
	if err != nil {
		return err
	}
	defer closeSilent()
	conNS, err := startConsole(bin, silent+";"+w.cl.NameServer, timeout)
	if err != nil {
		return err
	}
	defer conNS.stop()

	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	q := url.QueryEscape
	base := con.base
	probes := []struct {
		name string
		do   func(*http.Client) probeResult
	}{
		{"/readyz (first NameServer silent)", func(c *http.Client) probeResult { return timeGet(c, conNS.base+"/readyz") }},
		{"reset preview", func(c *http.Client) probeResult {
			return timePost(c, base+"/api/v1/groups/"+q(w.group)+"/reset-preview", `{"topic":"`+w.topic+`","mode":"earliest"}`)
		}},
		{"unique-key lookup", func(c *http.Client) probeResult {
			return timeGet(c, base+"/api/v1/messages/"+q(w.uniqKey)+"?topic="+q(w.topic))
		}},
		{"offsetMsgId lookup", func(c *http.Client) probeResult {
			return timeGet(c, base+"/api/v1/messages/"+q(w.offsetMsgID))
		}},
		{"range page (2000 of 3000)", func(c *http.Client) probeResult {
			return timeGet(c, base+"/messages?tab=range&topic="+q(w.topic)+"&begin="+ms(w.begin)+"&end="+ms(w.end))
		}},
		{"key page", func(c *http.Client) probeResult {
			return timeGet(c, base+"/messages?tab=key&topic="+q(w.topic)+"&key="+q(w.key))
		}},
		{"id page", func(c *http.Client) probeResult {
			return timeGet(c, base+"/messages?tab=id&id="+q(w.uniqKey)+"&topic="+q(w.topic))
		}},
		// Last: a console that waits out its 2-minute list deadline lets the NameServer
		// drop the frozen broker (no heartbeat for 120 s), which would change what the
		// probes after it see.
		{"/groups?refresh=1", func(c *http.Client) probeResult { return timeGet(c, base+"/api/v1/groups?refresh=1") }},
	}
	client := &http.Client{Timeout: 5 * time.Minute}
	healthy := make([]probeResult, len(probes))
	for i, p := range probes {
		healthy[i] = p.do(client)
	}
	frozen := w.cl.Brokers[0].Name
	if err := w.cl.Freeze(frozen); err != nil {
		return err
	}
	defer w.thaw(frozen)
	fmt.Printf("console %s, RMQC_TIMEOUT=%s, %s frozen (SIGSTOP); limit 1.2 × timeout = %s\n\n", bin, timeout, frozen, time.Duration(1.2*float64(timeout)).Round(time.Millisecond))
	fmt.Printf("| probe | healthy | %s frozen | brokers the answer names |\n|---|---|---|---|\n", frozen)
	for i, p := range probes {
		r := p.do(client)
		fmt.Printf("| %s | %d in %s | %d in %s | %s |\n", p.name, healthy[i].status, healthy[i].took.Round(10*time.Millisecond),
			r.status, r.took.Round(10*time.Millisecond), r.note)
	}
	return nil
}

// thaw resumes the frozen broker and waits until the NameServer routes to it again
// (it re-registers within 30 s when the NameServer dropped it).
func (w *world) thaw(name string) {
	if err := w.cl.Thaw(name); err != nil {
		fmt.Fprintln(os.Stderr, "rmqload:", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for w.cl.Check(ctx) != nil && ctx.Err() == nil {
		time.Sleep(time.Second)
	}
}

func load(w *world, bin string, timeout time.Duration, users, viewers int, duration time.Duration) error {
	con, err := startConsole(bin, w.cl.NameServer, timeout)
	if err != nil {
		return err
	}
	defer con.stop()
	pid := con.cmd.Process.Pid
	time.Sleep(time.Second)
	baseline := rssKiB(pid, "VmRSS")
	rangeURL := fmt.Sprintf("%s/api/v1/messages?topic=%s&begin=%d&end=%d", con.base, url.QueryEscape(w.topic), w.begin.UnixMilli(), w.end.UnixMilli())

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var peak atomic.Int64
	go func() {
		for ctx.Err() == nil {
			if v := rssKiB(pid, "VmRSS"); v > peak.Load() {
				peak.Store(v)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	var mu sync.Mutex
	statuses := map[string]int{}
	var lat []time.Duration
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 2 * time.Minute}
	for range users {
		wg.Go(func() {
			for ctx.Err() == nil {
				start := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rangeURL, nil)
				res, err := client.Do(req)
				what := ""
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					what = "error"
				} else {
					var body struct {
						Messages []json.RawMessage `json:"messages"`
					}
					derr := json.NewDecoder(res.Body).Decode(&body)
					res.Body.Close()
					what = strconv.Itoa(res.StatusCode)
					if res.StatusCode == http.StatusOK && (derr != nil || len(body.Messages) != 2000) {
						what = fmt.Sprintf("200 with %d messages", len(body.Messages))
					}
					if res.StatusCode == http.StatusServiceUnavailable {
						// Do as Retry-After says, as a polite client would, a little sooner.
						if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil {
							select {
							case <-ctx.Done():
							case <-time.After(time.Duration(s) * time.Second / 5):
							}
						}
					}
				}
				mu.Lock()
				statuses[what]++
				if what == "200" {
					lat = append(lat, time.Since(start))
				}
				mu.Unlock()
			}
		})
	}
	var wsFrames, wsOpen, wsFailed atomic.Int64
	wsURL := "ws" + strings.TrimPrefix(con.base, "http") + "/ws/groups/" + url.PathEscape(w.group)
	for range viewers {
		wg.Go(func() {
			conn, _, err := websocket.DefaultDialer.DialContext(ctx, wsURL, http.Header{"Origin": {con.base}})
			if err != nil {
				wsFailed.Add(1)
				return
			}
			wsOpen.Add(1)
			go func() { <-ctx.Done(); conn.Close() }()
			for {
				if _, _, err := conn.ReadMessage(); err != nil {
					return
				}
				wsFrames.Add(1)
			}
		})
	}
	wg.Wait()
	hwm := rssKiB(pid, "VmHWM")
	time.Sleep(2 * time.Second)
	after := rssKiB(pid, "VmRSS")

	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(p*float64(len(lat)-1))].Round(time.Millisecond)
	}
	var keys []string
	for k := range statuses {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, statuses[k]))
	}
	fmt.Printf("console %s, %d users × range searches (2000 of %d messages of %d B) + %d live viewers, %s\n",
		bin, users, messages, bodySize, viewers, duration)
	fmt.Printf("answers: %s\n", strings.Join(parts, ", "))
	fmt.Printf("latency of 200s: p50 %s, p95 %s, max %s\n", pct(0.5), pct(0.95), pct(1))
	fmt.Printf("websockets: %d open, %d failed, %d frames\n", wsOpen.Load(), wsFailed.Load(), wsFrames.Load())
	fmt.Printf("RSS: baseline %d MiB, peak %d MiB (sampled; VmHWM %d MiB), 2 s after %d MiB\n",
		baseline>>10, peak.Load()>>10, hwm>>10, after>>10)
	return nil
}
