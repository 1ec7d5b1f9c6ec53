package dev

import (
	"context"
	"errors"
	"fmt"
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
		ports, err := PortsFromEnv() // DefaultPorts unless RMQ_PORT_BASE moves them
		if err != nil {
			t.Fatal(err)
		}
		wantA := Broker{Name: "broker-a", Addr: fmt.Sprintf("127.0.0.1:%d", ports.BrokerA)}
		if len(c.Brokers) == 0 || c.Brokers[0] != wantA {
			t.Errorf("Brokers = %v, want broker-a at %s first", c.Brokers, wantA.Addr)
		}
		if c.NameServer != ports.NameServerAddr() || c.ClusterName != "DefaultCluster" {
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

// A private cluster runs beside the shared one, and a frozen broker in it
// answers nothing while the other broker and the shared cluster carry on.
func TestPrivateClusterFreezeKillRestart(t *testing.T) {
	shared := RequireCluster(t)
	c := RequirePrivateCluster(t)
	if c.NameServer == shared.NameServer {
		t.Fatalf("private cluster on the shared NameServer %s", c.NameServer)
	}
	if len(c.Brokers) != 2 {
		t.Fatalf("private cluster brokers = %v, want broker-a and broker-b", c.Brokers)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	runtimeInfo := func(addr string, d time.Duration) error {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		_, _, _, err := call(ctx, addr, codeGetBrokerRuntimeInfo, nil, nil)
		return err
	}
	a, b := c.Brokers[0], c.Brokers[1]

	if err := c.Freeze(a.Name); err != nil {
		t.Fatal(err)
	}
	frozenErr := runtimeInfo(a.Addr, time.Second)
	okErr := runtimeInfo(b.Addr, 5*time.Second)
	if err := c.Thaw(a.Name); err != nil {
		t.Fatal(err)
	}
	if frozenErr == nil {
		t.Errorf("frozen %s answered", a.Name)
	}
	if okErr != nil {
		t.Errorf("%s beside the frozen broker: %v", b.Name, okErr)
	}
	if err := shared.Check(ctx); err != nil {
		t.Errorf("shared cluster while the private one had a frozen broker: %v", err)
	}
	Eventually(t, 30*time.Second, "thawed broker answers", func() error { return runtimeInfo(a.Addr, 5*time.Second) })

	if err := c.KillBroker(b.Name); err != nil {
		t.Fatal(err)
	}
	Eventually(t, 60*time.Second, "killed broker leaves the route", func() error {
		if c.Check(ctx) == nil {
			return errors.New("NameServer still routes to " + b.Name)
		}
		return nil
	})
	if err := c.RestartBroker(ctx, b.Name); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(ctx); err != nil {
		t.Errorf("after RestartBroker: %v", err)
	}
}

func TestPortsFromLaysOutDisjointPorts(t *testing.T) {
	p := PortsFrom(privatePortsLow)
	seen := map[int]string{p.NameServer: "namesrv"}
	specs, err := withSlaves(p, brokerSpecs(p, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range specs {
		for _, port := range b.ports() {
			if other, dup := seen[port]; dup {
				t.Errorf("port %d used by %s and %s", port, other, b.proc())
			}
			seen[port] = b.proc()
		}
	}
	for _, b := range brokerSpecs(DefaultPorts, true) {
		for _, port := range append(b.ports(), NameServerPort) {
			if port >= privatePortsLow && port <= privatePortsHigh+16 {
				t.Errorf("default port %d is inside the private range", port)
			}
		}
	}
	if got := (Ports{}).NameServerAddr(); got != "127.0.0.1:19876" {
		t.Errorf("zero Ports NameServerAddr = %s, want the default", got)
	}
}

// Under -short (make test-unit) the cluster helpers skip instead of starting
// JVMs, so the unit suite needs no JDK and opens no port.
func TestRequireClusterSkipsUnderShort(t *testing.T) {
	if !testing.Short() {
		t.Skip("checks -short behaviour")
	}
	for name, require := range map[string]func(testing.TB) *Cluster{"RequireCluster": RequireCluster, "RequirePrivateCluster": RequirePrivateCluster} {
		var c *Cluster
		t.Run(name, func(t *testing.T) { c = require(t) })
		if c != nil || harness.cluster != nil || harness.private.cluster != nil {
			t.Errorf("%s under -short returned a cluster instead of skipping", name)
		}
	}
}

// With RMQC_TEST_POSTGRES=off (make test-unit) the PostgreSQL helpers skip before
// starting a server, so the database suites run on SQLite alone there.
func TestRequirePostgresSkipsWhenLeftOut(t *testing.T) {
	if pg.server != nil {
		t.Skip("this binary's PostgreSQL already runs")
	}
	t.Setenv(PostgresOffEnv, "off")
	for name, require := range map[string]func(testing.TB) *Postgres{"RequirePostgres": RequirePostgres, "OwnPostgres": OwnPostgres} {
		var p *Postgres
		t.Run(name, func(t *testing.T) { p = require(t) })
		if p != nil || pg.server != nil || pg.err != nil {
			t.Errorf("%s with %s=off started PostgreSQL instead of skipping", name, PostgresOffEnv)
		}
	}
}

// RMQ_PORT_BASE moves every port of the cluster onto PortsFrom(base); unset, the
// default ports stay. A base whose set would reach the default ports or the
// private range is refused, and so is one that is not a number.
func TestPortsFromEnvMovesEveryPort(t *testing.T) {
	t.Setenv(PortBaseEnv, "")
	if p, err := PortsFromEnv(); err != nil || p != DefaultPorts {
		t.Errorf("unset: %+v, %v; want DefaultPorts", p, err)
	}
	t.Setenv(PortBaseEnv, "17000")
	p, err := PortsFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if p != PortsFrom(17000) || p.NameServerAddr() != "127.0.0.1:17000" {
		t.Errorf("17000: %+v (namesrv %s)", p, p.NameServerAddr())
	}
	specs, err := withSlaves(p, brokerSpecs(p, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range specs {
		for _, port := range b.ports() {
			if port < 17000 || port > 17018 {
				t.Errorf("%s port %d outside 17000-17018", b.proc(), port)
			}
		}
	}
	for _, bad := range []string{"abc", "80", "19870", "20900", "21990", "30000"} {
		t.Setenv(PortBaseEnv, bad)
		if p, err := PortsFromEnv(); err == nil {
			t.Errorf("%s=%s accepted: %+v", PortBaseEnv, bad, p)
		}
	}
}
