package dev

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(RunTests(m)) }

// The cluster tests need a real RocketMQ: RequireCluster starts one (or
// attaches to RMQC_TEST_NAMESRV), or skips when java/mvn are missing.

func TestClusterRegistersEveryBroker(t *testing.T) {
	c := RequireCluster(t)
	if harness.owned { // started here: we know exactly what to expect
		if c.Version != VersionFromEnv() {
			t.Errorf("Version = %q, want %q", c.Version, VersionFromEnv())
		}
		if len(c.Brokers) == 0 || c.Brokers[0] != (Broker{Name: "broker-a", Addr: "127.0.0.1:20911"}) {
			t.Errorf("Brokers = %v, want broker-a at 127.0.0.1:20911 first", c.Brokers)
		}
		if c.NameServer != "127.0.0.1:19876" || c.ClusterName != "DefaultCluster" {
			t.Errorf("NameServer, ClusterName = %q, %q", c.NameServer, c.ClusterName)
		}
		if len(c.LogFiles()) == 0 {
			t.Error("LogFiles() is empty for a started cluster")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMQAdminClusterListShowsBrokers(t *testing.T) {
	c := RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := c.MQAdmin(ctx, "clusterList")
	if err != nil {
		t.Fatal(err)
	}
	rows := parseClusterList(out)
	for _, b := range c.Brokers {
		found := false
		for _, r := range rows {
			found = found || (r.broker == b.Name && r.addr == b.Addr && r.cluster == c.ClusterName)
		}
		if !found {
			t.Errorf("clusterList does not list %s at %s in %s:\n%s", b.Name, b.Addr, c.ClusterName, out)
		}
	}
}

func TestMQAdminReportsFailures(t *testing.T) {
	c := RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// mqadmin exits 0 after both of these; MQAdmin must still report them.
	if out, err := c.MQAdmin(ctx, "topicRoute", "-t", UniqueName("missing")); err == nil {
		t.Errorf("topicRoute of a missing topic: no error; output:\n%s", out)
	}
	if out, err := c.MQAdmin(ctx, "noSuchSubcommand"); err == nil {
		t.Errorf("unknown subcommand: no error; output:\n%s", out)
	}
}

// sendRow matches the result row of `mqadmin sendMessage`:
// "#Broker Name  #QID  #Send Result  #MsgId" then "broker-a  3  SEND_OK  <msgId>".
var sendRow = regexp.MustCompile(`(?m)^(\S+)\s+(\d+)\s+SEND_OK\s+([0-9A-F]+)\s*$`)

func TestSendThenQueryByKey(t *testing.T) {
	c := RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	topic, key := UniqueName("dev-test"), UniqueName("key")
	if err := c.CreateTopic(ctx, topic, 4); err != nil {
		t.Fatal(err)
	}
	out, err := c.MQAdmin(ctx, "sendMessage", "-t", topic, "-p", "hello from dev_test", "-k", key, "-c", "TagA")
	if err != nil {
		t.Fatal(err)
	}
	m := sendRow.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("sendMessage: no SEND_OK row:\n%s", out)
	}
	msgID := m[3]

	// The key index is built asynchronously after the send: poll, don't sleep.
	for {
		out, err = c.MQAdmin(ctx, "queryMsgByKey", "-t", topic, "-k", key)
		if err == nil && strings.Contains(out, msgID) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("queryMsgByKey never found %s (last error %v):\n%s", msgID, err, out)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// Unit tests: no cluster.

func TestUniqueNameIsValidAndDistinct(t *testing.T) {
	valid := regexp.MustCompile(`^[%|a-zA-Z0-9_-]+$`) // RocketMQ's topic charset
	a, b := UniqueName("t"), UniqueName("t")
	if a == b || !valid.MatchString(a) || !strings.HasPrefix(a, "t-") {
		t.Errorf("UniqueName gave %q and %q", a, b)
	}
}

func TestParseClusterList(t *testing.T) {
	// Header and row as printed by 5.3.3 (4.x has fewer columns after #Version).
	out := `#Cluster Name           #Broker Name            #BID  #Addr                  #Version              #InTPS(LOAD)                   #OutTPS(LOAD)  #Timer(Progress)        #PCWait(ms)  #Hour         #SPACE    #ACTIVATED
DefaultCluster          broker-a                0     127.0.0.1:20911        V5_3_3                 0.00(0,0ms)               0.00(0,0ms|0,0ms)  0-0(0.0w, 0.0, 0.0)               0  498879.08     0.1500          true
`
	rows := parseClusterList(out)
	want := clusterListRow{cluster: "DefaultCluster", broker: "broker-a", brokerID: "0", addr: "127.0.0.1:20911", version: "V5_3_3"}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("parseClusterList = %+v, want [%+v]", rows, want)
	}
}

func TestMQAdminFailurePattern(t *testing.T) {
	failed := []string{
		"org.apache.rocketmq.tools.command.SubCommandException: TopicRouteSubCommand command failed\n\tat org.apache.rocketmq.tools.command.topic.TopicRouteSubCommand.execute(TopicRouteSubCommand.java:74)\n",
		"The sub command noSuchCmd not exist.\n",
		"Exception in thread \"main\" java.lang.NoClassDefFoundError: x\n",
	}
	for _, out := range failed {
		if !mqadminFailure.MatchString(out) {
			t.Errorf("not seen as a failure: %q", out)
		}
	}
	ok := []string{
		"#Broker Name  #QID  #Send Result  #MsgId\nbroker-a  3  SEND_OK  0A\n",
		"MessageTrack [consumerGroup=g, trackType=NOT_ONLINE, exceptionDesc=CODE: 206 DESC: the consumer group not online]\n",
		"WARN: No Consumer",
	}
	for _, out := range ok {
		if mqadminFailure.MatchString(out) {
			t.Errorf("seen as a failure: %q", out)
		}
	}
}
