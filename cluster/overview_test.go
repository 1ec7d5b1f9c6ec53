package cluster

import (
	"context"
	"errors"
	"fmt"
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
	refused   map[string]error // addr -> the broker's ACL refusal
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
	if err := f.refused[addr]; err != nil {
		return nil, err
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

// A broker whose ACL refuses the console's credentials is told apart from one that
// does not answer: its row carries the sentence naming the access key and what to check.
func TestOverviewSaysWhichBrokerRefusedTheCredentials(t *testing.T) {
	refusal := &rocketmq.AccessError{Addr: "b0:10911", AccessKey: "rmqc-admin", Denial: rocketmq.DenialBadSignature,
		Broker: &rocketmq.BrokerError{Addr: "b0:10911", Code: rocketmq.CodeNoPermission, Remark: "check signature failed."}}
	f := &fakeAdmin{
		ns: []string{"ns1:9876"},
		info: &rocketmq.ClusterInfo{
			Brokers: map[string]rocketmq.BrokerData{
				"broker-a": {Cluster: "C", BrokerName: "broker-a", Addrs: map[int64]string{0: "a0:10911"}},
				"broker-b": {Cluster: "C", BrokerName: "broker-b", Addrs: map[int64]string{0: "b0:10911"}},
			},
			Clusters: map[string][]string{"C": {"broker-a", "broker-b"}},
		},
		runtime: map[string]map[string]string{"a0:10911": {"brokerVersionDesc": "V5_3_3"}},
		refused: map[string]error{"b0:10911": fmt.Errorf("runtime info of b0:10911: %w", refusal)},
	}
	ov, err := New(f, Options{}).Overview(context.Background(), f)
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

func TestAccessSentences(t *testing.T) {
	cases := []struct {
		denial   rocketmq.Denial
		key      string
		resource string
		want     string
	}{
		{rocketmq.DenialNoCredentials, "", "", "Broker broker-a has ACL on and refused a request without credentials — set RMQC_ACCESS_KEY and RMQC_SECRET_KEY (or RMQC_SECRET_KEY_FILE)."},
		{rocketmq.DenialUnknownKey, "rmqc-nobody", "", "Broker broker-a refused access key rmqc-nobody: the broker has no such account or user — check RMQC_ACCESS_KEY (5.x keeps users per broker: is the user created on every broker?)."},
		{rocketmq.DenialNotAdmin, "rmqc-viewer", "", "Broker broker-a refused access key rmqc-viewer: it is not an admin account — this needs an account with admin: true in plain_acl.yml."},
		{rocketmq.DenialNoPermission, "rmqc-viewer", "Group:billing", "Broker broker-a refused access key rmqc-viewer: no permission for Group:billing — grant the user a policy for it (ACL 2.0) or the account the permission (plain ACL)."},
		{rocketmq.DenialDisabled, "rmqc-old", "", "Broker broker-a refused access key rmqc-old: the user is disabled on this broker."},
	}
	for _, tc := range cases {
		got, ok := AccessSentence("broker-a", &rocketmq.AccessError{AccessKey: tc.key, Denial: tc.denial, Resource: tc.resource})
		if !ok || got != tc.want {
			t.Errorf("denial %d: %q, %v\nwant %q", tc.denial, got, ok, tc.want)
		}
	}
	if _, ok := AccessSentence("broker-a", errors.New("i/o timeout")); ok {
		t.Error("a timeout is not an ACL refusal")
	}
}
