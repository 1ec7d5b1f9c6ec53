package filter

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(dev.RunTests(m))
}

// TestIntegrationBodyFiltersOnStoredMessages: JSON bodies (some above the producer's
// 4 KiB threshold, so stored zlib-compressed), binary bodies and text bodies are sent
// by a real producer; read back through the console's own pull, each filter selects
// exactly the messages the sent data says it should.
func TestIntegrationBodyFiltersOnStoredMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	topic := dev.UniqueName("bodyfilter")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	type order struct {
		ID       int64    `json:"id"`
		Total    float64  `json:"total"`
		Region   string   `json:"region"`
		Items    []string `json:"items"`
		Padding  string   `json:"padding,omitempty"`
		Customer string   `json:"customer"`
	}
	sent := map[string]order{} // key -> the order in a JSON body; absent for other bodies
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	regions := []string{"eu", "us", "apac"}
	for i := range 60 {
		key := fmt.Sprintf("m%03d", i)
		var body []byte
		switch i % 4 {
		case 0, 1, 2:
			o := order{ID: 4700 + int64(i), Total: float64(i) * 2.5, Region: regions[i%3], Items: []string{fmt.Sprintf("SKU-%d", i%5), "GIFT"}, Customer: "Zoë"}
			if i%2 == 0 {
				o.Padding = strings.Repeat("pad ", 1500) // over 4 KiB: stored compressed
			}
			body, _ = json.Marshal(o)
			sent[key] = o
		default:
			body = []byte{0x0a, 0x03, 0xff, 0xfe, byte(i), 'o', 'r', 'd', 'e', 'r', 0x00}
		}
		m := primitive.NewMessage(topic, body)
		m.WithKeys([]string{key})
		m.WithTag(regions[i%3])
		if _, err := p.SendSync(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	admin := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	stored := readAll(ctx, t, admin, topic)
	if len(stored) != 60 {
		t.Fatalf("read back %d messages, sent 60", len(stored))
	}
	compressed := 0
	for _, m := range stored {
		if m.BodyCompressed {
			compressed++
		}
	}
	if compressed == 0 {
		t.Fatal("no body was stored compressed: the test lost its compressed case")
	}

	isJSON := func(k string) bool { _, ok := sent[k]; return ok }
	for _, c := range []struct {
		q    Query
		want func(key string) bool
	}{
		{Query{BodyContains: "SKU-3"}, func(k string) bool { return isJSON(k) && slices.Contains(sent[k].Items, "SKU-3") }},
		{Query{BodyContains: "order\x00"}, func(k string) bool { return !isJSON(k) }},
		{Query{BodyRegex: `"id":47[0-2]\d,`}, func(k string) bool { return isJSON(k) && sent[k].ID < 4730 }},
		{Query{BodyRegex: `(?s)^\n\x03`}, func(k string) bool { return !isJSON(k) }},
		{Query{JSON: "total", JSONOp: ">=", JSONValue: "100"}, func(k string) bool { return isJSON(k) && sent[k].Total >= 100 }},
		{Query{JSON: "region", JSONValue: "eu"}, func(k string) bool { return isJSON(k) && sent[k].Region == "eu" }},
		{Query{JSON: "items.#", JSONValue: "2"}, func(k string) bool { return isJSON(k) }},
		{Query{JSON: "items", JSONValue: "SKU-0"}, func(k string) bool { return isJSON(k) && sent[k].Items[0] == "SKU-0" }},
		{Query{JSON: "padding"}, func(k string) bool { return isJSON(k) && sent[k].Padding != "" }},
		{Query{JSON: "customer", JSONOp: "contains", JSONValue: "oë", Where: "TAGS IN ('us', 'apac')", BodyRegex: `"total":\d+(\.\d+)?,`},
			func(k string) bool { return isJSON(k) && sent[k].Region != "eu" }},
	} {
		f, err := Compile(c.q)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		var got, want []string
		for key, m := range stored {
			if f.Match(m) {
				got = append(got, key)
			}
			if c.want(key) {
				want = append(want, key)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || len(want) == len(stored) {
			t.Errorf("%+v: %d of %d expected: a filter that tells nothing apart", c.q, len(want), len(stored))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v:\n  matched %v\n  want    %v", c.q, got, want)
		}
	}
}

// readAll pulls every message of topic with the console's client, by key.
func readAll(ctx context.Context, t *testing.T, c *rocketmq.Client, topic string) map[string]*rocketmq.Message {
	t.Helper()
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*rocketmq.Message{}
	for _, mq := range route.ReadQueues() {
		addr, _ := route.MasterAddr(mq.BrokerName)
		maxOff, err := c.MaxOffset(ctx, addr, mq)
		if err != nil {
			t.Fatal(err)
		}
		msgs, _, err := c.PullRange(ctx, addr, mq, 0, maxOff, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			out[strings.Join(m.Keys(), " ")] = m
		}
	}
	return out
}
