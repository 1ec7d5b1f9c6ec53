package decoder

import (
	"context"
	"os"
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

// TestIntegrationProtobufBodiesSentByAProducerAreRenderedWithTheirFields: a real
// producer sends orders.v1.Order bodies, one small and one large enough that the
// producer compresses it; read back through the console's own pull, the topic's
// decoder renders every field and says how it read each body.
func TestIntegrationProtobufBodiesSentByAProducerAreRenderedWithTheirFields(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName("orders-pb")
	if err := cl.CreateTopic(ctx, topic, 1); err != nil {
		t.Fatal(err)
	}
	fd := testProto(t)
	dir := t.TempDir()
	writeDescriptorSet(t, dir, "orders.desc", fd, true)
	cfg := writeFile(t, dir, "decoders.toml", "[[decoders]]\ntopic = \"orders-pb*\"\ntype = \"protobuf\"\nmessage = \"orders.v1.Order\"\ndescriptor_set = \"orders.desc\"\n")
	reg, err := Load(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}

	p := rmqclient.StartProducer(t, cl.NameServer, "")
	small, large := orderBody(t, fd, 4711, 2), orderBody(t, fd, 4712, 400)
	if len(large) <= 4096 {
		t.Fatalf("the large body has %d bytes, not above the producer's 4 KiB compression threshold", len(large))
	}
	for _, body := range [][]byte{small, large} {
		if _, err := p.SendSync(ctx, primitive.NewMessage(topic, body)); err != nil {
			t.Fatal(err)
		}
	}

	admin := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(cl.NameServer))})
	route, err := admin.TopicRoute(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	mq := route.ReadQueues()[0]
	addr, _ := route.MasterAddr(mq.BrokerName)
	msgs, _, err := admin.PullRange(ctx, addr, mq, 0, 2, 0)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("read back %d messages: %v", len(msgs), err)
	}
	for i, want := range []struct{ id, how string }{
		{"4711", "Protobuf orders.v1.Order from orders.desc"},
		{"4712", "zlib-compressed Protobuf orders.v1.Order from orders.desc"},
	} {
		d := reg.Decode("default", msgs[i])
		if d.Kind != KindProtobuf || d.How.String() != want.how || d.Problem.ID != "" {
			t.Errorf("message %d: %s %q problem %q; want %q", i, d.Kind, d.How, d.Problem, want.how)
			continue
		}
		checkOrder(t, d, want.id)
		if items := fields(t, d)["items"].([]any); (i == 0 && len(items) != 2) || (i == 1 && len(items) != 400) {
			t.Errorf("message %d: %d items", i, len(items))
		}
	}
	// Without a decoder the same body is binary to the console.
	if d := Decode(msgs[0]); d.Kind != KindHex {
		t.Errorf("undecoded: %s %q", d.Kind, d.How)
	}
}
