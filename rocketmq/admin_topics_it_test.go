package rocketmq

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// A producer that is running is listed under its group by GET_ALL_PRODUCER_INFO, on
// 4.9.7 as on 5.x.
func TestIntegrationProducerInfos(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	topic := e.createTopic(t, "it-pinfo", 2)
	pgroup := dev.UniqueName("it-pinfo-pg")
	p := rmqclient.StartProducer(t, e.cluster.NameServer, pgroup)
	sendGo(t, p, topic, "x", nil, "", nil) // the heartbeat goes to the brokers it sends to
	dev.Eventually(t, 40*time.Second, "producer listed", func() error {
		all, err := e.c.ProducerInfos(ctxT(t), e.addr)
		if err != nil {
			return err
		}
		ps := all[pgroup]
		if len(ps) != 1 || ps[0].ClientID == "" || ps[0].Language != "GO" || !strings.Contains(ps[0].RemoteIP, ":") || strings.HasPrefix(ps[0].RemoteIP, "/") || ps[0].LastUpdateTimestamp == 0 {
			return fmt.Errorf("group %s: %+v", pgroup, ps)
		}
		return nil
	})
	if captureOn() {
		e.capture(t, "producer_info", CodeGetAllProducerInfo, e.addr, nil)
	}
}

// A topic created, updated and deleted through our client is what mqadmin then reports.
// Each call gets its own 15 s: the waits between them (mqadmin JVMs) took longer than
// that on a loaded machine, and one context for the whole test had run out by the end.
func TestIntegrationTopicCreateUpdateDelete(t *testing.T) {
	t.Parallel()
	e := newITEnv(t)
	topic := dev.UniqueName("it-tcud")
	tc := TopicConfig{TopicName: topic, ReadQueueNums: 3, WriteQueueNums: 3, Perm: PermRead | PermWrite}
	if err := e.c.CreateTopic(ctxT(t), e.addr, tc); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 30*time.Second, "route after create", func() error {
		r, err := e.c.TopicRoute(ctxT(t), topic)
		if err != nil {
			return err
		}
		if len(r.QueueDatas) != 1 || r.QueueDatas[0].WriteQueueNums != 3 || r.QueueDatas[0].Perm != 6 {
			return fmt.Errorf("%+v", r.QueueDatas)
		}
		return nil
	})
	tc.WriteQueueNums, tc.ReadQueueNums, tc.Perm = 5, 5, PermRead
	if e.version.Is5() {
		tc.Attributes = map[string]string{"+message.type": "FIFO"}
	}
	if err := e.c.CreateTopic(ctxT(t), e.addr, tc); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 60*time.Second, "mqadmin topicRoute after update", func() error {
		out, err := e.cluster.MQAdmin(ctxJVM(t), "topicRoute", "-t", topic)
		if err != nil {
			return err
		}
		if !strings.Contains(out, `"writeQueueNums":5`) || !strings.Contains(out, `"perm":4`) {
			return fmt.Errorf("topicRoute: %s", out)
		}
		return nil
	})
	cfgs, err := e.c.TopicConfigs(ctxT(t), e.addr)
	if err != nil {
		t.Fatal(err)
	}
	if e.version.Is5() && cfgs.Topics[topic].MessageType() != "FIFO" {
		t.Errorf("attributes after update: %+v", cfgs.Topics[topic])
	}
	if err := e.c.DeleteTopicInBroker(ctxT(t), e.addr, topic); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DeleteTopicInNameServers(ctxT(t), topic); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.TopicRoute(ctxT(t), topic); !errors.Is(err, ErrTopicNotFound) {
		t.Errorf("route after delete: %v", err)
	}
	if out, err := e.cluster.MQAdmin(ctxJVM(t), "topicStatus", "-t", topic); err == nil {
		t.Errorf("mqadmin topicStatus after delete succeeded: %s", out)
	}
}
