package cluster

import (
	"context"
	"errors"
	"testing"

	"rmqconsole/rocketmq"
)

type fakeAdmin struct {
	ns        []string
	downNS    map[string]bool
	info      *rocketmq.ClusterInfo
	infoErr   error
	topics    []string
	runtime   map[string]map[string]string
	downBroke map[string]bool
}

func (f *fakeAdmin) NameServers() []string { return f.ns }
func (f *fakeAdmin) PingNameServer(_ context.Context, addr string) error {
	if f.downNS[addr] {
		return errors.New("connection refused")
	}
	return nil
}
func (f *fakeAdmin) ClusterInfo(context.Context) (*rocketmq.ClusterInfo, error) {
	return f.info, f.infoErr
}
func (f *fakeAdmin) TopicRoute(context.Context, string) (*rocketmq.TopicRoute, error) {
	return nil, rocketmq.ErrTopicNotFound
}
func (f *fakeAdmin) SubscriptionGroups(context.Context, string) (*rocketmq.SubscriptionGroupTable, error) {
	return nil, errors.New("not used by the overview")
}
func (f *fakeAdmin) TopicList(context.Context) ([]string, error) { return f.topics, nil }
func (f *fakeAdmin) BrokerRuntimeInfo(_ context.Context, addr string) (*rocketmq.BrokerRuntimeInfo, error) {
	if f.downBroke[addr] {
		return nil, errors.New("i/o timeout")
	}
	return &rocketmq.BrokerRuntimeInfo{Table: f.runtime[addr]}, nil
}

func TestReadShowsFailingBrokerAndNameServerButKeepsTheRest(t *testing.T) {
	f := &fakeAdmin{
		ns:     []string{"ns1:9876", "ns2:9876"},
		downNS: map[string]bool{"ns2:9876": true},
		info: &rocketmq.ClusterInfo{
			Brokers: map[string]rocketmq.BrokerData{
				"broker-b": {Cluster: "C", BrokerName: "broker-b", Addrs: map[int64]string{0: "b0:10911"}},
				"broker-a": {Cluster: "C", BrokerName: "broker-a", Addrs: map[int64]string{0: "a0:10911", 1: "a1:10911"}},
			},
			Clusters: map[string][]string{"C": {"broker-a", "broker-b"}},
		},
		topics: []string{"orders", "payments", "%RETRY%g1", "%DLQ%g1", "TBW102", "C", "broker-a", "rmq_sys_wheel_timer"},
		runtime: map[string]map[string]string{
			"a0:10911": {"brokerVersionDesc": "V5_3_3", "putTps": "10.0 12.5 9.0", "getTransferredTps": "1 2 3", "commitLogDiskRatio": "0.42"},
			"a1:10911": {"brokerVersionDesc": "V5_3_3"},
		},
		downBroke: map[string]bool{"b0:10911": true},
	}
	ov, err := New(f, Options{}).Overview(context.Background(), f)
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
	if a0.Addr != "a0:10911" || a0.Role != "master" || a1.Role != "slave" || b0.Name != "broker-b" {
		t.Errorf("order or roles wrong: %+v", ov.Brokers)
	}
	if a0.Version != "V5_3_3" || a0.PutTPS != 12.5 || a0.GetTPS != 2 || a0.DiskRatio != 0.42 {
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
	f := &fakeAdmin{ns: []string{"ns1:9876"}, downNS: map[string]bool{"ns1:9876": true}, infoErr: errors.New("connection refused")}
	ov, err := New(f, Options{}).Overview(context.Background(), f)
	if err == nil || ov == nil || len(ov.NameServers) != 1 || ov.NameServers[0].OK {
		t.Fatalf("want an error and the NameServer marked down, got %v %+v", err, ov)
	}
}
