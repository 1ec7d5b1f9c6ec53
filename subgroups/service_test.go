package subgroups

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// untouchable is a cluster no request may reach: bad input is found before any.
type untouchable struct {
	*clustertest.Fake
	t *testing.T
}

func (u untouchable) asked(what string) error {
	u.t.Errorf("%s asked of a broker before the input was checked", what)
	return errors.New("asked")
}
func (u untouchable) GroupDocs(context.Context, string) (map[string]rocketmq.GroupDoc, error) {
	return nil, u.asked("GroupDocs")
}
func (u untouchable) PutGroupDoc(context.Context, string, rocketmq.GroupDoc) error {
	return u.asked("PutGroupDoc")
}
func (u untouchable) DeleteSubscriptionGroup(context.Context, string, string, bool) error {
	return u.asked("DeleteSubscriptionGroup")
}
func (u untouchable) BrokerVersion(context.Context, string) (rocketmq.BrokerVersion, error) {
	return rocketmq.BrokerVersion{}, u.asked("BrokerVersion")
}
func (u untouchable) ConsumerConnections(context.Context, string, string) (*rocketmq.ConsumerConnection, error) {
	return nil, u.asked("ConsumerConnections")
}

// Every mistake a request can make is found before any broker is asked, each on its
// field with a sentence of the catalogues, in both languages.
func TestCheckFindsBadInputBeforeAnyBroker(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	svc := New(untouchable{f, t}, Options{})
	cases := []struct {
		name  string
		req   Request
		field string
		code  fault.Code
	}{
		{"no group", Request{Settings: Settings{RetryMaxTimes: ptr(3)}}, "group", fault.Invalid},
		{"a group name RocketMQ refuses", Request{Group: "a b", Settings: Settings{RetryMaxTimes: ptr(3)}}, "group", fault.Invalid},
		{"a system group", Request{Group: "TOOLS_CONSUMER", Settings: Settings{RetryMaxTimes: ptr(3)}}, "group", fault.Refused},
		{"nothing to change", Request{Group: "g"}, "", fault.Invalid},
		{"negative retries", Request{Group: "g", Settings: Settings{RetryMaxTimes: ptr(-5)}}, "retryMaxTimes", fault.Invalid},
		{"too many retries", Request{Group: "g", Settings: Settings{RetryMaxTimes: ptr(100000)}}, "retryMaxTimes", fault.Invalid},
		{"no retry queue", Request{Group: "g", Settings: Settings{RetryQueueNums: ptr(0)}}, "retryQueueNums", fault.Invalid},
		{"a broker id out of range", Request{Group: "g", Settings: Settings{WhichBrokerWhenConsumeSlowly: ptr(int64(-1))}}, "whichBrokerWhenConsumeSlowly", fault.Invalid},
		{"an unknown policy type", Request{Group: "g", Settings: Settings{GroupRetryPolicy: &RetryPolicy{Type: "LINEAR"}}}, "groupRetryPolicy", fault.Invalid},
		{"an exponential policy without delays", Request{Group: "g", Settings: Settings{GroupRetryPolicy: &RetryPolicy{Type: "EXPONENTIAL"}}}, "groupRetryPolicy", fault.Invalid},
		{"delays the wrong way round", Request{Group: "g", Settings: Settings{GroupRetryPolicy: &RetryPolicy{Type: "EXPONENTIAL",
			Exponential: &ExponentialRetry{Initial: 5000, Max: 1000, Multiplier: 2}}}}, "groupRetryPolicy", fault.Invalid},
		{"a customized delay of 0", Request{Group: "g", Settings: Settings{GroupRetryPolicy: &RetryPolicy{Type: "CUSTOMIZED",
			Customized: &CustomizedRetries{Next: []int64{1000, 0}}}}}, "groupRetryPolicy", fault.Invalid},
		{"an attribute key with a space", Request{Group: "g", Settings: Settings{Attributes: map[string]string{"a b": "1"}}}, "attributes", fault.Invalid},
		{"brokers and a cluster", Request{Group: "g", BrokerNames: []string{"broker-a"}, ClusterName: "c", Settings: Settings{RetryMaxTimes: ptr(3)}}, "brokerNames", fault.Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Plan(context.Background(), c.req)
			e := fault.As(err)
			if e == nil || e.Code != c.code || e.Field != c.field {
				t.Fatalf("err %v (%+v), want %s on field %q", err, e, c.code, c.field)
			}
			en, zh := e.Say(i18n.Match("en")), e.Say(i18n.Match("zh-CN"))
			if en == e.Msg.ID || zh == e.Msg.ID || en == zh {
				t.Errorf("sentence not in both catalogues: %q / %q", en, zh)
			}
		})
	}
	if f.BrokerCalls() != 0 {
		t.Errorf("%d broker calls for bad input", f.BrokerCalls())
	}
}

// An apply without a preview or without the confirmation is refused before anything
// is read or written, saying which is missing.
func TestApplyNeedsAPreviewAndAConfirmation(t *testing.T) {
	f := clustertest.New()
	svc := New(untouchable{f, t}, Options{})
	_, err := svc.Apply(context.Background(), Confirmation{})
	all := fault.All(err)
	if len(all) != 2 || all[0].Field != "planId" || all[1].Field != "confirm" {
		t.Fatalf("apply with nothing: %v", err)
	}
	_, err = svc.Delete(context.Background(), Who{}, DeleteRequest{Group: "g", Confirm: "G"})
	if e := fault.As(err); e == nil || e.Field != "confirm" || !strings.Contains(e.Error(), `"G"`) {
		t.Fatalf("delete confirmed with another name: %v", err)
	}
}
