package brokers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

func TestReadShowsFailingBrokerAndNameServerButKeepsTheRest(t *testing.T) {
	f := clustertest.New()
	f.SetNameServers("ns1:9876", "ns2:9876")
	f.Down("ns2:9876")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddSlave("broker-a", "10.0.0.11:10911")
	for _, topic := range []string{"orders", "payments", "%RETRY%g1", "%DLQ%g1", "TBW102", "DefaultCluster", "broker-a", "rmq_sys_wheel_timer"} {
		f.AddTopic(topic, 4)
	}
	f.SetRuntime("10.0.0.1:10911", map[string]string{"brokerVersionDesc": "V5_3_3", "putTps": "10.0 12.5 9.0", "getTransferredTps": "1 2 3", "commitLogDiskRatio": "0.42"})
	f.SetRuntime("10.0.0.11:10911", map[string]string{"brokerVersionDesc": "V5_3_3"})
	f.Down("10.0.0.2:10911")
	ov, err := New(f, cluster.New(f, cluster.Options{})).Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !ov.NameServers[0].OK || ov.NameServers[1].OK || ov.NameServers[1].Error == "" {
		t.Errorf("NameServers: %+v", ov.NameServers)
	}
	if len(ov.Brokers) != 3 {
		t.Fatalf("brokers: %+v", ov.Brokers)
	}
	a0, a1, b0 := ov.Brokers[0], ov.Brokers[1], ov.Brokers[2]
	if a0.Addr != "10.0.0.1:10911" || a0.Role != "master" || a1.Role != "slave" || b0.Name != "broker-b" {
		t.Errorf("order or roles wrong: %+v", ov.Brokers)
	}
	// The rates are the broker's first figure (about 10 s), as on the brokers' pages.
	if a0.Version != "V5_3_3" || a0.PutTPS != 10 || a0.GetTPS != 1 || a0.DiskRatio != 0.42 {
		t.Errorf("runtime of a0: %+v", a0)
	}
	if b0.Error == "" {
		t.Errorf("failing broker not marked: %+v", b0)
	}
	if ov.Topics != 2 || ov.SystemTopics != 6 {
		t.Errorf("topics %d user / %d system, want 2 / 6", ov.Topics, ov.SystemTopics)
	}
}

func TestReadFailsOnlyWhenNoNameServerAnswers(t *testing.T) {
	f := clustertest.New()
	f.SetNameServers("ns1:9876")
	f.Down("ns1:9876")
	f.Fail = func(op, _ string) error {
		if op == "ClusterInfo" {
			return errors.New("connection refused")
		}
		return nil
	}
	ov, err := New(f, cluster.New(f, cluster.Options{})).Overview(context.Background())
	if err == nil || ov == nil || len(ov.NameServers) != 1 || ov.NameServers[0].OK {
		t.Fatalf("want an error and the NameServer marked down, got %v %+v", err, ov)
	}
}

// A broker whose ACL refuses the console's credentials is told apart from one that
// does not answer: its row carries the sentence naming the access key and what to check.
func TestOverviewSaysWhichBrokerRefusedTheCredentials(t *testing.T) {
	refusal := &rocketmq.AccessError{Addr: "10.0.0.2:10911", AccessKey: "rmqc-admin", Denial: rocketmq.DenialBadSignature,
		Broker: &rocketmq.BrokerError{Addr: "10.0.0.2:10911", Code: rocketmq.CodeNoPermission, Remark: "check signature failed."}}
	f := clustertest.New()
	f.SetNameServers("ns1:9876")
	f.AddBroker("broker-a", "10.0.0.1:10911")
	f.AddBroker("broker-b", "10.0.0.2:10911")
	f.SetRuntime("10.0.0.1:10911", map[string]string{"brokerVersionDesc": "V5_3_3"})
	f.FailOn("BrokerRuntimeInfo", "10.0.0.2:10911", fmt.Errorf("runtime info of 10.0.0.2:10911: %w", refusal))
	ov, err := New(f, cluster.New(f, cluster.Options{})).Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, b := ov.Brokers[0], ov.Brokers[1]
	if a.Refused || a.Error != "" {
		t.Errorf("broker-a answered: %+v", a)
	}
	want := "Broker broker-b refused access key rmqc-admin: the signature does not match — check RMQC_SECRET_KEY (on 5.x, the user's password)."
	if !b.Refused || b.Error != want {
		t.Errorf("broker-b: refused %v, error %q\nwant %q", b.Refused, b.Error, want)
	}
}

// A slave's replication lag is its master's commit-log max offset minus its own; it is
// unknown when either did not answer, and masters have none.
func TestOverviewReplicationLag(t *testing.T) {
	f := clustertest.New()
	f.SetNameServers("ns1:9876")
	f.AddBroker("broker-a", "a0:1")
	f.AddSlave("broker-a", "a1:1")
	f.AddBroker("broker-b", "b0:1")
	f.AddSlave("broker-b", "b1:1")
	f.SetRuntime("a0:1", map[string]string{"commitLogMaxOffset": "5000"})
	f.SetRuntime("a1:1", map[string]string{"commitLogMaxOffset": "3976"})
	f.SetRuntime("b1:1", map[string]string{"commitLogMaxOffset": "100"})
	f.Down("b0:1")
	ov, err := New(f, cluster.New(f, cluster.Options{})).Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lag := map[string]string{}
	for _, b := range ov.Brokers {
		v := "unknown"
		if b.ReplicationLag != nil {
			v = fmt.Sprint(*b.ReplicationLag)
		}
		lag[b.Addr] = v
	}
	want := map[string]string{"a0:1": "unknown", "a1:1": "1024", "b0:1": "unknown", "b1:1": "unknown"}
	if fmt.Sprint(lag) != fmt.Sprint(want) {
		t.Errorf("replication lag %v, want %v", lag, want)
	}
}
