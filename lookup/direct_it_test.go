package lookup

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	rmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

// A message consumed again on one client: real consumers (rocketmq-client-go, a
// concurrent one and an orderly one in their own processes, and a broadcasting one here
// whose listener answers later, fails or is too slow on request) get it from the broker
// that stores it, and their answers come back as they gave them, each audited.
func TestIntegrationConsumeDirectly(t *testing.T) {
	e, topic, p := startIT(t, "lk-direct", 1)
	other := e.topic(t, "lk-direct-other", 1)
	ns := e.cl.NameServer
	ms := sendAll(t, p, 1,
		msg(topic, "again", "OK", nil, nil),
		msg(topic, "later", "LATER", nil, nil),
		msg(topic, "fail", "FAIL", nil, nil),
		msg(topic, "slow", "SLOW", nil, nil))
	ok, later, fail, slow := ms[0], ms[1], ms[2], ms[3]
	otherMsg := sendAll(t, p, 1, msg(other, "elsewhere", "", nil, nil))[0]

	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "rmqconsole.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The console's default call timeout (5 s) is shorter than a broker waits for a
	// client's listener (10 s).
	dc := rocketmqtest.Client(t, rocketmq.Config{NameServer: ns, Timeout: 5 * time.Second, Credentials: rocketmq.Credentials(dev.TestAccount(ns))})
	svc := New(dc, Options{Direct: dc, Audit: st.Audit(), ClusterName: ns})

	group := dev.UniqueName("lk-direct-g")
	cp := dev.StartConsumerProcessWith(t, ns, group, dev.ConsumerOptions{Print: true}, topic)
	orderlyGroup := dev.UniqueName("lk-direct-o")
	op := dev.StartConsumerProcessWith(t, ns, orderlyGroup, dev.ConsumerOptions{Print: true, Orderly: true}, topic)
	bcastGroup := dev.UniqueName("lk-direct-b")
	bc := startAnsweringConsumer(t, ns, bcastGroup, topic)

	line := func(s sent) string { return fmt.Sprintf("%s %d %d %s", topic, s.queueID, s.queueOffset, s.offsetID) }
	times := func(c *dev.ConsumerProcess, s sent) int {
		n := 0
		for _, r := range c.Received() {
			// topic broker queue offset keys offsetMsgId; the broker is "-" when consumed directly
			if f := strings.Fields(r); len(f) == 6 && strings.Join([]string{f[0], f[2], f[3], f[5]}, " ") == line(s) {
				n++
			}
		}
		return n
	}
	for _, c := range []*dev.ConsumerProcess{cp, op} {
		dev.Eventually(t, 60*time.Second, "the consumer gets the message once", func() error {
			if n := times(c, ok); n != 1 {
				return fmt.Errorf("%d deliveries of %s in %v", n, line(ok), c.Received())
			}
			return nil
		})
	}
	dev.Eventually(t, 60*time.Second, "the broadcasting consumer gets every message", func() error {
		if n := bc.deliveries(); n < len(ms) {
			return fmt.Errorf("%d deliveries", n)
		}
		return nil
	})
	clientOf := func(group string) rocketmq.Connection {
		var conn *rocketmq.ConsumerConnection
		dev.Eventually(t, 30*time.Second, "group "+group+" online on "+ok.broker, func() error {
			i := slices.IndexFunc(e.cl.Brokers, func(b dev.Broker) bool { return b.Name == ok.broker })
			if i < 0 {
				return fmt.Errorf("no broker %s in %v", ok.broker, e.cl.Brokers)
			}
			addr := e.cl.Brokers[i].Addr
			var err error
			conn, err = e.c.ConsumerConnections(ctxT(t), addr, group)
			if err == nil && len(conn.Connections) != 1 {
				err = fmt.Errorf("%d clients", len(conn.Connections))
			}
			return err
		})
		return conn.Connections[0]
	}
	client, orderlyClient, bcastClient := clientOf(group), clientOf(orderlyGroup), clientOf(bcastGroup)

	ask := func(s sent, group, clientID string) (*DirectAnswer, error) {
		return svc.ConsumeDirectly(ctxT(t), DirectRequest{ID: s.offsetID, Group: group, ClientID: clientID, Actor: "ops", ActorAddr: "127.0.0.1"})
	}
	checkEntry := func(a *DirectAnswer, status store.AuditStatus) {
		t.Helper()
		got, err := st.Audit().Get(t.Context(), a.Entry.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Mode != ModeConsumeDirectly || got.Group != a.Group || got.Status != status || got.Actor != "ops" ||
			len(got.Result) != 1 || !strings.Contains(got.Result[0].Note.String(), a.Client.ClientID) {
			t.Errorf("audit entry %+v, want %s, group %s, one row naming client %s", got, status, a.Group, a.Client.ClientID)
		}
		if (status == store.AuditApplied) != (len(got.Result[0].Error) == 0) {
			t.Errorf("audit row error %q with status %s", got.Result[0].Error, status)
		}
	}

	t.Run("consumed again", func(t *testing.T) {
		a, err := ask(ok, group, client.ClientID)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Consumed() || a.Result.ConsumeResult != ResultSuccess || a.Client.Language != "GO" || a.Message.BrokerName != ok.broker {
			t.Errorf("answer %+v, result %+v: want CR_SUCCESS from the Go client, through %s", a, a.Result, ok.broker)
		}
		checkEntry(a, store.AuditApplied)
		dev.Eventually(t, 10*time.Second, "the consumer printed the message again", func() error {
			if n := times(cp, ok); n != 2 {
				return fmt.Errorf("%d deliveries of %s", n, line(ok))
			}
			return nil
		})
		// By its unique key (with the topic) it is the same message.
		a, err = svc.ConsumeDirectly(ctxT(t), DirectRequest{ID: ok.uniq, Topic: topic, Group: group, ClientID: client.ClientID})
		if err != nil || !a.Consumed() {
			t.Fatalf("by unique key: %+v, %v", a, err)
		}
		dev.Eventually(t, 10*time.Second, "the consumer printed the message a third time", func() error {
			if n := times(cp, ok); n != 3 {
				return fmt.Errorf("%d deliveries of %s", n, line(ok))
			}
			return nil
		})
	})

	t.Run("orderly consumer", func(t *testing.T) {
		a, err := ask(ok, orderlyGroup, orderlyClient.ClientID)
		if err != nil || !a.Consumed() {
			t.Fatalf("%+v, %v", a, err)
		}
		dev.Eventually(t, 10*time.Second, "the orderly consumer printed the message again", func() error {
			if n := times(op, ok); n != 2 {
				return fmt.Errorf("%d deliveries of %s", n, line(ok))
			}
			return nil
		})
	})

	t.Run("answers other than consumed", func(t *testing.T) {
		a, err := ask(ok, bcastGroup, bcastClient.ClientID)
		if err != nil || !a.Consumed() || a.MessageModel != "BROADCASTING" {
			t.Errorf("broadcasting group: %+v, %v", a, err)
		}
		a, err = ask(later, bcastGroup, bcastClient.ClientID)
		if err != nil || a.Consumed() || a.Result == nil || a.Result.ConsumeResult != ResultLater {
			t.Fatalf("later: %+v, %v", a, err)
		}
		checkEntry(a, store.AuditFailed)
		a, err = ask(fail, bcastGroup, bcastClient.ClientID)
		if err != nil || a.Consumed() || a.Result == nil || a.Result.ConsumeResult != ResultException || !strings.Contains(a.Result.Remark, "refused on request") {
			t.Fatalf("exception: %+v %+v, %v", a, a.Result, err)
		}
		checkEntry(a, store.AuditFailed)
		// A listener slower than the broker waits: the broker's CONSUME_MSG_TIMEOUT comes
		// back, not a timeout of our own.
		a, err = ask(slow, bcastGroup, bcastClient.ClientID)
		var be *rocketmq.BrokerError
		if err != nil || a.Result != nil || !errors.As(a.Err, &be) || be.Code != rocketmq.CodeConsumeMsgTimeout {
			t.Fatalf("slow listener: %+v, %v", a, err)
		}
		checkEntry(a, store.AuditFailed)
	})

	t.Run("refused, nothing sent", func(t *testing.T) {
		sentBefore := dc.CallCount(rocketmq.CodeConsumeMessageDirectly)
		id, _ := rocketmq.ParseOffsetMsgID(ok.offsetID)
		id.CommitLogOffset += 1 << 40
		for _, c := range []struct {
			name          string
			s             sent
			id, group, cl string
			check         func(error) bool
		}{
			{"no group", ok, "", "", client.ClientID, inputField("group")},
			{"no client", ok, "", group, "", inputField("clientId")},
			{"bad group name", ok, "", "g roup", client.ClientID, inputField("group")},
			{"bad client id", ok, "", group, "10.0.0.1@a b", inputField("clientId")},
			{"client not in the group", ok, "", group, orderlyClient.ClientID, refused("client_not_in_group")},
			{"unknown client", ok, "", group, "10.9.9.9@nobody", refused("client_not_in_group")},
			{"group not subscribed to the topic", otherMsg, "", group, client.ClientID, refused("group_not_subscribed")},
			{"unknown group", ok, "", dev.UniqueName("nobody"), client.ClientID, refused("group_offline")},
			{"unknown message", ok, id.String(), group, client.ClientID, func(err error) bool { return fault.Is(err, fault.NotFound) }},
		} {
			req := DirectRequest{ID: c.s.offsetID, Group: c.group, ClientID: c.cl}
			if c.id != "" {
				req.ID = c.id
			}
			a, err := svc.ConsumeDirectly(ctxT(t), req)
			if a != nil || !c.check(err) {
				t.Errorf("%s: %+v, %v", c.name, a, err)
			}
		}
		// Once the broker no longer lists a stopped client (it may for a moment, and a
		// request then is rightly sent), the console refuses without sending.
		cp.Stop()
		i := slices.IndexFunc(e.cl.Brokers, func(b dev.Broker) bool { return b.Name == ok.broker })
		dev.Eventually(t, 30*time.Second, "the broker drops the stopped client", func() error {
			if _, err := e.c.ConsumerConnections(ctxT(t), e.cl.Brokers[i].Addr, group); !errors.Is(err, rocketmq.ErrConsumerNotOnline) {
				return fmt.Errorf("still listed (%v)", err)
			}
			return nil
		})
		if _, err := ask(ok, group, client.ClientID); !refused("group_offline")(err) {
			t.Errorf("a stopped client: %v, want group_offline", err)
		}
		if n := dc.CallCount(rocketmq.CodeConsumeMessageDirectly); n != sentBefore {
			t.Errorf("%d CONSUME_MESSAGE_DIRECTLY sent by refused requests", n-sentBefore)
		}
		entries, _, err := st.Audit().List(t.Context(), store.AuditFilter{})
		if err != nil || len(entries) != 7 {
			t.Errorf("%d audit entries (%v), want the 7 requests that were sent", len(entries), err)
		}
	})
}

func inputField(field string) func(error) bool {
	return func(err error) bool {
		fe := fault.As(err)
		return fe != nil && fe.Code == fault.Invalid && fe.Field == field
	}
}

func refused(code string) func(error) bool {
	return func(err error) bool {
		fe := fault.As(err)
		return fe != nil && fe.Code == fault.Conflict && fe.Reason == code && strings.Contains(fe.Error(), "Nothing was sent")
	}
}

// answeringConsumer is a broadcasting push consumer that consumes every message once,
// and answers a message it gets again by its tag: LATER asks for it later, FAIL fails,
// SLOW takes longer than a broker waits.
type answeringConsumer struct {
	mu   sync.Mutex
	seen map[string]int
}

func (a *answeringConsumer) deliveries() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, v := range a.seen {
		n += v
	}
	return n
}

func startAnsweringConsumer(t *testing.T, ns, group, topic string) *answeringConsumer {
	t.Helper()
	ac := &answeringConsumer{seen: map[string]int{}}
	opts := []consumer.Option{
		consumer.WithNameServer([]string{ns}),
		consumer.WithGroupName(group),
		consumer.WithInstance(dev.UniqueName("c")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithConsumerModel(consumer.BroadCasting),
	}
	if cr, ok := rmqclient.Credentials(ns); ok {
		opts = append(opts, consumer.WithCredentials(cr))
	}
	c, err := rmq.NewPushConsumer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Subscribe(topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range msgs {
			ac.mu.Lock()
			ac.seen[string(m.Body)]++
			again := ac.seen[string(m.Body)] > 1
			ac.mu.Unlock()
			if !again {
				continue
			}
			switch m.GetTags() {
			case "LATER":
				return consumer.ConsumeRetryLater, nil
			case "FAIL":
				return consumer.ConsumeRetryLater, errors.New("refused on request")
			case "SLOW":
				time.Sleep(11 * time.Second)
			}
		}
		return consumer.ConsumeSuccess, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Shutdown() })
	return ac
}
