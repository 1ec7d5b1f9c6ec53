package rocketmq

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// itEnv is what an integration test works with: the cluster, our client on
// it, the first broker's address and its version.
type itEnv struct {
	cluster *dev.Cluster
	c       *Client
	addr    string
	broker  string
	version BrokerVersion
}

// newITEnv attaches to the test cluster; it skips under -short. Each integration test
// has a client, topics and groups of its own, so they run in parallel (ACL's first,
// alone: its refusals are counted per account). BrokerVersion
// needs no retry even while a fresh 5.x broker still refuses
// GET_BROKER_RUNTIME_INFO: the refusal carries the version ordinal.
func newITEnv(t testing.TB) *itEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	var creds Credentials
	if a, ok := dev.AccountFor(cl.NameServer); ok {
		creds = Credentials{AccessKey: a.AccessKey, SecretKey: a.SecretKey}
	}
	c, err := New(Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e := &itEnv{cluster: cl, c: c, addr: cl.Brokers[0].Addr, broker: cl.Brokers[0].Name}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if e.version, err = c.BrokerVersion(ctx, e.addr); err != nil {
		t.Fatal(err)
	}
	return e
}

// createTopic makes a topic with n queues on every broker.
func (e *itEnv) createTopic(t *testing.T, prefix string, n int) string {
	t.Helper()
	topic := dev.UniqueName(prefix)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	if err := e.cluster.CreateTopic(ctx, topic, n); err != nil {
		t.Fatal(err)
	}
	return topic
}

// ctxJVM bounds a call that runs mqadmin: a JVM of its own, which on a loaded 2-core
// machine takes well over ctxT's 15 s to start, answer and exit.
func ctxJVM(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// sent is what a producer reported for one message.
type sent struct {
	msgID       string // UNIQ_KEY
	offsetMsgID string
	queueID     int
	queueOffset int64
	body        string
	keys        []string
	tag         string
	props       map[string]string
}

func sendGo(t *testing.T, p rmq.Producer, topic string, body string, keys []string, tag string, props map[string]string) sent {
	t.Helper()
	m := primitive.NewMessage(topic, []byte(body))
	if len(keys) > 0 {
		m.WithKeys(keys)
	}
	if tag != "" {
		m.WithTag(tag)
	}
	for k, v := range props {
		m.WithProperty(k, v)
	}
	r, err := p.SendSync(ctxT(t), m)
	if err != nil {
		t.Fatalf("send %q: %v", body, err)
	}
	if r.Status != primitive.SendOK {
		t.Fatalf("send %q: status %v", body, r.Status)
	}
	return sent{msgID: r.MsgID, offsetMsgID: r.OffsetMsgID, queueID: r.MessageQueue.QueueId, queueOffset: r.QueueOffset,
		body: body, keys: keys, tag: tag, props: props}
}

var mqadminSendRow = regexp.MustCompile(`(?m)^(\S+)\s+(\d+)\s+SEND_OK\s+([0-9A-Fa-f]+)\s*$`)

// sendMQAdmin sends one message with RocketMQ's own mqadmin sendMessage.
func (e *itEnv) sendMQAdmin(t *testing.T, topic, body, key, tag string) sent {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	var out string
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		// mqadmin's producer gives up on a route lookup that is slow under
		// load ("No route info of this topic"); a second JVM usually gets it.
		out, err = e.cluster.MQAdmin(ctx, "sendMessage", "-t", topic, "-p", body, "-k", key, "-c", tag)
		if err == nil || !strings.Contains(err.Error(), "No route info") {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	m := mqadminSendRow.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no SEND_OK row in mqadmin sendMessage output:\n%s", out)
	}
	qid, _ := strconv.Atoi(m[2])
	return sent{msgID: m[3], queueID: qid, queueOffset: -1, body: body, keys: []string{key}, tag: tag}
}

// captureDir is where raw broker bodies go when RMQC_CAPTURE=1.
func captureDir(v BrokerVersion) string {
	return filepath.Join("testdata", "captured", v.String())
}

// capture saves a raw answer body as testdata/captured/<version>/<name>.json
// when RMQC_CAPTURE=1, so decoding tests can replay it offline.
func (e *itEnv) capture(t *testing.T, name string, code RequestCode, addr string, ext map[string]string) {
	t.Helper()
	if !captureOn() {
		return
	}
	var resp *command
	var err error
	if addr == "" {
		resp, err = e.c.callNameServer(ctxT(t), code, ext)
	} else {
		resp, err = e.c.call(ctxT(t), addr, code, ext, nil)
	}
	if err != nil {
		t.Fatalf("capture %s: %v", name, err)
	}
	if len(resp.Body) == 0 {
		t.Fatalf("capture %s: empty body (remark %q)", name, resp.Remark)
	}
	writeCapture(t, e.version, name, resp.Body)
}

func writeCapture(t *testing.T, v BrokerVersion, name string, body []byte) {
	t.Helper()
	dir := captureDir(v)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), body, 0o644); err != nil {
		t.Fatal(err)
	}
}

// parseTable splits mqadmin's whitespace-aligned rows whose first field is
// first, e.g. the queue rows of consumerProgress.
func parseTable(out, first string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == first {
			rows = append(rows, f)
		}
	}
	return rows
}

func keysOf[V any](m map[string]V) []string { return sortedKeys(m) }

func fmtQueues(qs []MessageQueue) string {
	var b strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&b, "%s/%d ", q.BrokerName, q.QueueID)
	}
	return b.String()
}

func captureOn() bool { return os.Getenv("RMQC_CAPTURE") == "1" }

func startBenchProducer(b *testing.B, ns string) rmq.Producer {
	return rmqclient.StartProducer(b, ns, dev.UniqueName("bench-pg"))
}
