package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"rmqconsole/i18n"
)

func topicChange(topic string) *AuditEntry {
	return &AuditEntry{StartedAt: time.Now(), Actor: "alice", Cluster: "127.0.0.1:9876",
		Topics: []string{topic}, Mode: "topic-create"}
}

// Change writes the entry pending before the change runs, then seals it with the
// change's outcome: applied, partial or failed from the rows apply returns.
func TestAuditChangeIsPendingWhileItRunsThenSealed(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, _ := openAuditStore(t, db)
		l := s.Audit()
		ctx := context.Background()
		cases := []struct {
			rows []AuditQueue
			err  error
			want AuditStatus
		}{
			{[]AuditQueue{{BrokerName: "broker-a"}, {BrokerName: "broker-b"}}, nil, AuditApplied},
			{[]AuditQueue{{BrokerName: "broker-a"}, {BrokerName: "broker-b", Error: i18n.PlainText("timed out")}}, nil, AuditPartial},
			{[]AuditQueue{{BrokerName: "broker-a"}}, errors.New("NameServer refused"), AuditPartial},
			{[]AuditQueue{{BrokerName: "broker-a", Error: i18n.PlainText("refused")}}, nil, AuditFailed},
			{nil, errors.New("no broker answered"), AuditFailed},
			// A change that found, once pending, that its preview no longer holds.
			{[]AuditQueue{{BrokerName: "broker-a", Error: i18n.PlainText("not changed")}}, fmt.Errorf("%w: retryMaxTimes moved", ErrChangeRefused), AuditRefused},
		}
		for i, c := range cases {
			e := topicChange("orders")
			var during AuditStatus
			err := l.Change(ctx, e, func(ctx context.Context) ([]AuditQueue, error) {
				got, err := l.Get(ctx, e.ID)
				if err != nil {
					t.Fatal(err)
				}
				during = got.Status
				return c.rows, c.err
			})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if during != AuditPending {
				t.Fatalf("case %d: the entry was %q while the change ran, want pending", i, during)
			}
			got, err := l.Get(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != c.want || got.Seq == 0 || len(got.Result) != len(c.rows) {
				t.Fatalf("case %d: status %s seq %d rows %d, want %s sealed with %d rows", i, got.Status, got.Seq, len(got.Result), c.want, len(c.rows))
			}
			if c.err != nil && got.Error.String() != c.err.Error() {
				t.Fatalf("case %d: error %q, want %q", i, got.Error, c.err)
			}
		}
		if rep, err := l.Verify(ctx); err != nil || !rep.Intact || rep.Sealed != len(cases) {
			t.Fatalf("chain after changes: %+v, %v", rep, err)
		}
	})
}

// Changes without a group are one at a time per topic: another topic, or a reset of any
// group, is not held up by them.
func TestAuditChangeOnePendingPerTopic(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, _ := openAuditStore(t, db)
		l := s.Audit()
		ctx := context.Background()
		ran := false
		err := l.Change(ctx, topicChange("orders"), func(ctx context.Context) ([]AuditQueue, error) {
			var busy *AuditBusyError
			err := l.Change(ctx, topicChange("orders"), func(context.Context) ([]AuditQueue, error) {
				ran = true
				return nil, nil
			})
			if !errors.As(err, &busy) || !strings.Contains(err.Error(), `topic "orders"`) || busy.Holder.Actor != "alice" {
				t.Fatalf("a second change of the topic: %v, want busy naming the topic and its holder", err)
			}
			if err := l.Change(ctx, topicChange("payments"), func(context.Context) ([]AuditQueue, error) {
				return []AuditQueue{{BrokerName: "broker-a"}}, nil
			}); err != nil {
				t.Fatalf("another topic: %v", err)
			}
			if err := l.Begin(ctx, pendingEntry("g1")); err != nil {
				t.Fatalf("a reset of a group: %v", err)
			}
			return []AuditQueue{{BrokerName: "broker-a"}}, nil
		})
		if err != nil || ran {
			t.Fatalf("first change: %v (second ran: %v)", err, ran)
		}
	})
}
