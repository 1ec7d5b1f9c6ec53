package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/auditstream"
	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/handlers"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
	"rmqconsole/store"
)

// createTopicNow creates a one-queue topic with the console's own client (no mqadmin
// JVM) and waits until the NameServer routes it.
func createTopicNow(t *testing.T, c *rocketmq.Client, cl *dev.Cluster, topic string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.CreateTopic(ctx, cl.Brokers[0].Addr, rocketmq.TopicConfig{TopicName: topic, ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6}); err != nil {
		t.Fatal(err)
	}
	dev.Eventually(t, 20*time.Second, "route of "+topic, func() error {
		_, err := c.TopicRoute(ctx, topic)
		return err
	})
}

// A body read and an export on the real console are audit entries of kind "read", and
// the audit log, streamed to a topic of the real broker, reaches a real consumer as a
// chain it can check: positions 1..n without a gap, each record's prevHash the hash of
// the one before, each hash the stored one.
func TestAuditReadsStreamedToTopicOnRealBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	c := rocketmqtest.Client(t, rocketmq.Config{NameServer: cl.NameServer, Timeout: 10 * time.Second})
	auditTopic, msgTopic := dev.UniqueName("audit-stream"), dev.UniqueName("audit-read")
	createTopicNow(t, c, cl, auditTopic)
	createTopicNow(t, c, cl, msgTopic)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	begin := time.Now().Add(-time.Second)
	sent, err := p.SendSync(ctx, primitive.NewMessage(msgTopic, []byte(`{"card":"4111-1111"}`)))
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", cl.NameServer,
		"--metrics-interval", "0", "--topic-figures-interval", "0", "--audit-stream-topic", auditTopic, "--audit-stream-poll", "20ms", "--audit-stream-retry", "20ms"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)

	// A body read through the API and the page, and an export of the range.
	id := url.PathEscape(sent.OffsetMsgID)
	for _, target := range []string{"/api/v1/messages/" + id + "?topic=" + msgTopic, "/messages/" + id + "?topic=" + msgTopic} {
		if rec := msgServe(t, a, target); rec.Code != http.StatusOK || rec.Header().Get(handlers.UnrecordedHeader) != "" {
			t.Fatalf("GET %s: %d %q", target, rec.Code, rec.Header().Get(handlers.UnrecordedHeader))
		}
	}
	q := url.Values{"topic": {msgTopic}, "begin": {strconv.FormatInt(begin.UnixMilli(), 10)}, "end": {strconv.FormatInt(time.Now().Add(time.Second).UnixMilli(), 10)}, "format": {"csv"}}
	if rec := msgServe(t, a, "/api/v1/messages?"+q.Encode()); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "4111") {
		t.Fatalf("export: %d %s", rec.Code, rec.Body.String())
	}

	var reads handlers.AuditListJSON
	rec := msgServe(t, a, "/api/v1/audit?kind=read")
	if err := json.Unmarshal(rec.Body.Bytes(), &reads); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/audit?kind=read: %d %v", rec.Code, err)
	}
	modes := map[string]int{}
	for _, e := range reads.Entries {
		modes[e.Mode]++
		var params struct {
			MsgID, OffsetMsgID, Format string
			Rows                       int
		}
		json.Unmarshal(e.Params, &params)
		if len(e.Topics) != 1 || e.Topics[0] != msgTopic || e.Actor == "" || e.ActorAddr == "" || e.Seq == 0 {
			t.Errorf("read entry %+v", e)
		}
		switch e.Mode {
		case store.ReadBodyMode:
			if params.OffsetMsgID != sent.OffsetMsgID || params.MsgID != sent.MsgID {
				t.Errorf("body read names %+v, want %s / %s", params, sent.MsgID, sent.OffsetMsgID)
			}
		case store.ExportMode:
			if params.Rows != 1 || params.Format != "csv" {
				t.Errorf("export entry says %+v, want 1 csv row", params)
			}
		}
	}
	if modes[store.ReadBodyMode] != 2 || modes[store.ExportMode] != 1 || len(reads.Entries) != 3 {
		t.Fatalf("kind=read lists %v, want 2 body reads and 1 export", modes)
	}
	var changes handlers.AuditListJSON
	json.Unmarshal(msgServe(t, a, "/api/v1/audit").Body.Bytes(), &changes)
	if len(changes.Entries) != 0 {
		t.Fatalf("the changes list shows %d reads", len(changes.Entries))
	}

	// A real consumer of the audit topic gets the whole chain.
	cons := dev.StartConsumerProcessWith(t, cl.NameServer, dev.UniqueName("audit-reader"), dev.ConsumerOptions{Print: true}, auditTopic)
	got := map[int64]auditstream.Record{}
	dev.Eventually(t, 30*time.Second, "the consumer gets the 3 audit records", func() error {
		for _, line := range cons.Received() {
			f := strings.Fields(line) // topic broker queue offset keys offsetMsgId
			if len(f) != 6 {
				return fmt.Errorf("consumer printed %q", line)
			}
			m, err := c.ViewMessage(ctx, f[5], auditTopic)
			if err != nil {
				return err
			}
			var r auditstream.Record
			if err := json.Unmarshal(m.Body, &r); err != nil {
				return fmt.Errorf("record %s: %w", m.Body, err)
			}
			if want := fmt.Sprintf("seq-%d,id-%d", r.Seq, r.ID); f[4] != want || m.Properties["AUDIT_HASH"] != r.Hash {
				return fmt.Errorf("message keys %q, hash %q; record %d", f[4], m.Properties["AUDIT_HASH"], r.Seq)
			}
			got[r.Seq] = r
		}
		if len(got) < 3 {
			return fmt.Errorf("%d of 3 records", len(got))
		}
		return nil
	})
	stored, err := a.store.Audit().Sealed(ctx, 0, 10)
	if err != nil || len(stored) != 3 {
		t.Fatalf("stored chain %d entries, %v", len(stored), err)
	}
	prev := strings.Repeat("0", 64)
	for seq := int64(1); seq <= 3; seq++ {
		r := got[seq]
		if r.Seq != seq || r.PrevHash != prev || r.Hash != stored[seq-1].Hash || r.ID != stored[seq-1].ID {
			t.Fatalf("record at position %d: seq %d, prevHash %.12s (want %.12s), hash %.12s (stored %.12s)",
				seq, r.Seq, r.PrevHash, prev, r.Hash, stored[seq-1].Hash)
		}
		prev = r.Hash
	}
	if len(got) != 3 {
		t.Fatalf("the consumer got positions %v, want 1..3", got)
	}
}
