package diagnosis

import (
	"slices"
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// splits is what the watchers and the sweep last read of each group's subscriptions.
type splits map[string]groups.SubscriptionSplit

func (s splits) SubscriptionSplit(group string) (groups.SubscriptionSplit, bool) {
	sp, ok := s[group]
	return sp, ok
}

// Clients of one online group that subscribe differently are a warning naming each
// client and what it subscribes to, linking to the group; an offline group, or one whose
// clients subscribe alike (no split), is not.
func TestClientsOfOneGroupSubscribingDifferentlyAreFound(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	sp := splits{"orders-g": {At: at, Clients: []groups.ClientSubscriptions{
		{ClientID: "10.0.0.5@1#1", Subscriptions: []groups.Subscription{{Topic: "orders", Expression: "TagA", ExpressionType: "TAG"}}},
		{ClientID: "10.0.0.6@2#1", Subscriptions: []groups.Subscription{{Topic: "orders", Expression: "TagB", ExpressionType: "TAG"}, {Topic: "refunds", Expression: "*", ExpressionType: "TAG"}}},
	}}}
	e := New(Options{Subscriptions: sp})
	read := func(online bool) []Finding {
		e.Observe(t.Context(), &groups.List{CheckedAt: at.Add(5 * time.Second), Groups: []groups.Summary{{Group: "orders-g", Online: online, Clients: 2}}})
		fs, _ := e.Findings()
		return fs
	}
	fs := read(true)
	if len(fs) != 1 {
		t.Fatalf("findings %+v, want one subscriptionDiffers", fs)
	}
	f := fs[0]
	if f.Kind != KindSubscriptions || f.Severity != Warning || f.Group != "orders-g" || !f.Since.Equal(at) ||
		f.Action != "/groups/orders-g" || f.ActionKind != "group" {
		t.Errorf("finding %+v, want subscriptionDiffers (warning) about orders-g since %v, to the group page", f, at)
	}
	if !slices.Equal(f.Topics, []string{"orders", "refunds"}) {
		t.Errorf("topics named %v, want orders and refunds", f.Topics)
	}
	if got, want := i18n.Match("en").Say(f.Evidence), "The 2 clients of the group do not subscribe alike (10.0.0.5@1#1: orders (TagA); 10.0.0.6@2#1: orders (TagB), refunds (*)). Queues are shared out among all of them, so messages of a topic given to a client that subscribes otherwise wait or are filtered out. Make every client of the group subscribe to the same topics with the same expressions, or give the different ones a group of their own."; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if fs := read(false); len(fs) != 0 {
		t.Errorf("offline group: %+v, want nothing", fs)
	}
	delete(sp, "orders-g") // a read found them alike
	if fs := read(true); len(fs) != 0 {
		t.Errorf("clients alike: %+v, want nothing", fs)
	}
}
