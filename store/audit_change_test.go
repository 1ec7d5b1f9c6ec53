package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"rmqconsole/fault"
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

// What a change stopped at is kept as the fault's catalogue sentence, not its English:
// an entry written from an English request reads in Chinese, its rows' notes too. An
// error wrapped in more words, or a refusal too long to keep whole, is kept as English.
func TestAuditChangeKeepsTheFaultsSentence(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, _ := openAuditStore(t, db)
		l := s.Audit()
		ctx := context.Background()
		zh := i18n.Match("zh-CN")
		stale := fault.Wrap(ErrChangeRefused, fault.Conflict, "audit.row.refused", "Reasons", i18n.Series(i18n.ListSemicolon,
			i18n.M("acl.stale.moved", "Process", "broker-a/0", "Addr", "10.0.0.1:10911"), i18n.M("acl.stale.lost_user", "Process", "broker-b")))
		e := topicChange("orders")
		err := l.Change(ctx, e, func(ctx context.Context) ([]AuditQueue, error) {
			return []AuditQueue{{BrokerName: "broker-a/0", Note: i18n.TextOf(i18n.M("audit.row.read_back", "Note", i18n.Series(i18n.ListComma,
				i18n.M("audit.row.change", "Field", "userType", "Before", i18n.M("audit.row.none"), "After", "Super"))))}}, stale
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Get(ctx, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantEN := "refused at apply, nothing was changed: broker-a/0 is no longer at 10.0.0.1:10911; broker-b no longer has the user"
		wantZH := "执行时被拒绝，未做任何修改：broker-a/0 已不在 10.0.0.1:10911；broker-b 已没有该用户"
		if got.Status != AuditRefused || got.Error.String() != wantEN || zh.SayText(got.Error) != wantZH {
			t.Fatalf("refused entry: %s, %q in English, %q in Chinese; want %q and %q", got.Status, got.Error, zh.SayText(got.Error), wantEN, wantZH)
		}
		if note := got.Result[0].Note; note.String() != "userType none → Super; read back" || zh.SayText(note) != "userType 无 → Super；已读回" {
			t.Fatalf("row note %q, in Chinese %q", note, zh.SayText(note))
		}

		wrapped := fmt.Errorf("changed, then: %w", fault.New(fault.Unavailable, "acl.audit.unread_back"))
		e = topicChange("orders")
		if err := l.Change(ctx, e, func(ctx context.Context) ([]AuditQueue, error) { return nil, wrapped }); err != nil {
			t.Fatal(err)
		}
		if got, _ := l.Get(ctx, e.ID); zh.SayText(got.Error) != wrapped.Error() {
			t.Fatalf("an error wrapped in more words reads %q in Chinese, want its English %q", zh.SayText(got.Error), wrapped)
		}

		for _, c := range []struct {
			why    error
			zh, en string
		}{
			{fault.New(fault.Refused, "acl.refused.noauthz", "Process", "broker-a/0"),
				"已拒绝：broker-a/0 未开启授权（authorizationEnabled），不保存策略。未做任何修改。",
				"Refused: broker-a/0 has authorization off (authorizationEnabled), so it keeps no policies. Nothing was changed."},
			{fault.New(fault.Refused, "acl.refused.noauthz", "Process", strings.Repeat("p", 2000)), "", ""},
		} {
			r := &AuditEntry{StartedAt: time.Now(), Actor: "alice", Mode: "acl-user-update", Status: AuditRefused, Error: RefusalText(c.why, 1024)}
			if err := l.Record(ctx, r); err != nil {
				t.Fatal(err)
			}
			got, err := l.Get(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if c.zh == "" { // too long: its English, cut
				if s := zh.SayText(got.Error); utf8.RuneCountInString(s) != 1024 || !strings.HasPrefix(s, "Refused: ppp") {
					t.Fatalf("a long refusal is kept as %d characters %.40q…", utf8.RuneCountInString(s), s)
				}
				continue
			}
			if zh.SayText(got.Error) != c.zh || got.Error.String() != c.en {
				t.Fatalf("refusal reads %q in Chinese and %q in English", zh.SayText(got.Error), got.Error)
			}
		}
		if rep, err := l.Verify(ctx); err != nil || !rep.Intact {
			t.Fatalf("chain: %+v, %v", rep, err)
		}
	})
}
