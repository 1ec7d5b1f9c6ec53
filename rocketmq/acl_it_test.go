package rocketmq

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// requireACL skips unless the test cluster has ACL on (`rmqdev up --acl`); with
// RMQC_TEST_ACL=true (CI's ACL runs) a cluster without it is a failure.
func requireACL(t *testing.T, e *itEnv) {
	t.Helper()
	if _, ok := dev.AccountFor(e.cluster.NameServer); ok {
		return
	}
	if os.Getenv("RMQC_TEST_ACL") == "true" {
		t.Fatal("RMQC_TEST_ACL=true but the test cluster has ACL off")
	}
	t.Skip("the test cluster has ACL off; run on `rmqdev up --acl` with RMQC_TEST_NAMESRV")
}

func (e *itEnv) clientAs(t *testing.T, creds Credentials) *Client {
	t.Helper()
	c, err := New(Config{NameServer: e.cluster.NameServer, Timeout: 10 * time.Second, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// On a cluster with ACL on (4.9.7 plain ACL, 5.x ACL 2.0): the console with the
// admin account reads what its pages need, real clients produce and consume
// with credentials, and mqadmin agrees on the offsets; a wrong secret, no
// credentials, an unknown key and a limited account are each refused with an
// AccessError saying which, naming the key and never the secret.
func TestIntegrationACL(t *testing.T) {
	e := newITEnv(t)
	requireACL(t, e)
	admin := Credentials{AccessKey: dev.AdminAccount.AccessKey, SecretKey: dev.AdminAccount.SecretKey}
	topic := e.createTopic(t, "acl", 2)
	group := dev.UniqueName("acl-g")

	p := rmqclient.StartProducer(t, e.cluster.NameServer, "")
	var msgs []sent
	for i := range 6 {
		msgs = append(msgs, sendGo(t, p, topic, fmt.Sprintf("acl body %d", i), []string{"acl-key"}, "", nil))
	}
	cc := rmqclient.StartCountingConsumer(t, e.cluster.NameServer, group, topic)
	dev.Eventually(t, 60*time.Second, "consumer with credentials receives every message", func() error {
		if n, _ := cc.Counts(); n < len(msgs) {
			return fmt.Errorf("%d of %d received", n, len(msgs))
		}
		return nil
	})

	t.Run("admin reads cluster, topics, groups, offsets and messages", func(t *testing.T) {
		c := e.c // newITEnv signs with the admin account on this cluster
		if _, err := c.ClusterInfo(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if topics, err := c.TopicList(ctxT(t)); err != nil || !strings.Contains(strings.Join(topics, ","), topic) {
			t.Fatalf("topic list: %v (%d topics)", err, len(topics))
		}
		if tc, err := c.TopicConfigs(ctxT(t), e.addr); err != nil || tc.Topics[topic].TopicName != topic {
			t.Fatalf("topic configs: %v", err)
		}
		if _, err := c.SubscriptionGroups(ctxT(t), e.addr); err != nil {
			t.Fatal(err)
		}
		// Offsets: the group's committed offsets catch up, and mqadmin (signing
		// with the same account through tools.yml) sees the same numbers.
		var stats *ConsumeStats
		dev.Eventually(t, 30*time.Second, "group offsets committed", func() error {
			var err error
			if stats, err = c.ConsumeStats(ctxT(t), e.addr, group, topic); err != nil {
				return err
			}
			if lag := stats.TotalLag(); lag != 0 {
				return fmt.Errorf("lag %d", lag)
			}
			return nil
		})
		out, err := e.cluster.MQAdmin(ctxJVM(t), "consumerProgress", "-g", group)
		if err != nil {
			t.Fatal(err)
		}
		for mq, o := range stats.Offsets {
			row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(mq.Topic) + `\s+` + regexp.QuoteMeta(mq.BrokerName) + `\s+` +
				strconv.Itoa(mq.QueueID) + `\s+(\d+)\s+(\d+)`).FindStringSubmatch(out)
			if row == nil {
				t.Fatalf("mqadmin consumerProgress has no row for %v:\n%s", mq, out)
			}
			if row[1] != strconv.FormatInt(o.BrokerOffset, 10) || row[2] != strconv.FormatInt(o.ConsumerOffset, 10) {
				t.Errorf("%v: we read broker %d consumer %d, mqadmin %s %s", mq, o.BrokerOffset, o.ConsumerOffset, row[1], row[2])
			}
			got, err := c.QueryConsumerOffset(ctxT(t), e.addr, group, mq)
			if err != nil || got != o.ConsumerOffset {
				t.Errorf("%v: consumer offset %d, %v; consume stats said %d", mq, got, err, o.ConsumerOffset)
			}
		}
		// Both kinds of QUERY_MESSAGE: the unique-key flag is the one field the
		// brokers leave out of the signature.
		dev.Eventually(t, 30*time.Second, "message found by unique key", func() error {
			r, err := c.QueryMessageByUniqueKey(ctxT(t), e.addr, topic, msgs[0].msgID, time.Time{}, time.Time{})
			if err != nil {
				return err
			}
			if len(r.Messages) != 1 || string(r.Messages[0].Body) != msgs[0].body {
				return fmt.Errorf("%d messages", len(r.Messages))
			}
			return nil
		})
		r, err := c.QueryMessageByKey(ctxT(t), e.addr, topic, "acl-key", 0, time.Time{}, time.Time{})
		if err != nil || len(r.Messages) != len(msgs) {
			t.Fatalf("by key: %v, %d messages", err, len(r.Messages))
		}
		if _, err := c.ViewMessage(ctxT(t), msgs[1].offsetMsgID, topic); err != nil {
			t.Fatalf("by offsetMsgId: %v", err)
		}
	})

	refused := func(t *testing.T, err error, key string, want Denial) *AccessError {
		t.Helper()
		var ae *AccessError
		if !errors.As(err, &ae) {
			t.Fatalf("err = %v (%T), want an *AccessError", err, err)
		}
		if ae.Denial != want || ae.AccessKey != key || ae.Addr != e.addr {
			t.Errorf("got %+v, want denial %d for key %q at %s (broker said %q)", ae, want, key, e.addr, ae.Broker.Remark)
		}
		for _, secret := range []string{dev.AdminAccount.SecretKey, dev.LimitedAccount.SecretKey, "wrong-secret-value"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows a secret: %v", err)
			}
		}
		return ae
	}

	t.Run("wrong secret", func(t *testing.T) {
		c := e.clientAs(t, Credentials{AccessKey: admin.AccessKey, SecretKey: "wrong-secret-value"})
		_, err := c.TopicConfigs(ctxT(t), e.addr)
		refused(t, err, admin.AccessKey, DenialBadSignature)
		// NameServers never check signatures (4.9.7 and 5.x alike).
		if _, err := c.ClusterInfo(ctxT(t)); err != nil {
			t.Errorf("NameServer refused a wrong secret: %v", err)
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		c := e.clientAs(t, Credentials{})
		_, err := c.BrokerRuntimeInfo(ctxT(t), e.addr)
		refused(t, err, "", DenialNoCredentials)
	})
	t.Run("unknown access key", func(t *testing.T) {
		c := e.clientAs(t, Credentials{AccessKey: "rmqc-nobody", SecretKey: "whatever-secret"})
		_, err := c.TopicConfigs(ctxT(t), e.addr)
		refused(t, err, "rmqc-nobody", DenialUnknownKey)
	})
	t.Run("limited account", func(t *testing.T) {
		limited := Credentials{AccessKey: dev.LimitedAccount.AccessKey, SecretKey: dev.LimitedAccount.SecretKey}
		c := e.clientAs(t, limited)
		if e.version.Is5() {
			// ACL 2.0: a Normal user without a policy may not read a group's
			// consume stats. (It may send requests whose header names no
			// resource: GET_ALL_TOPIC_CONFIG, even UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
			// whose group is in the body; see the protocol notes.)
			_, err := c.ConsumeStats(ctxT(t), e.addr, group, topic)
			ae := refused(t, err, limited.AccessKey, DenialNoPermission)
			if ae.Resource != "Group:"+group {
				t.Errorf("consume stats refused for %q, want Group:%s", ae.Resource, group)
			}
			return
		}
		// Plain ACL: creating a group needs an admin account; reading does not.
		newGroup := dev.UniqueName("acl-denied")
		err := c.UpdateSubscriptionGroup(ctxT(t), e.addr, SubscriptionGroupConfig{GroupName: newGroup, ConsumeEnable: true})
		refused(t, err, limited.AccessKey, DenialNotAdmin)
		if _, err := c.ConsumeStats(ctxT(t), e.addr, group, topic); err != nil {
			t.Errorf("a non-admin account with SUB may read consume stats: %v", err)
		}
		// Nothing changed: the group was not created.
		groups, err := e.c.SubscriptionGroups(ctxT(t), e.addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := groups.Groups[newGroup]; ok {
			t.Errorf("the refused request created group %s", newGroup)
		}
	})
}
