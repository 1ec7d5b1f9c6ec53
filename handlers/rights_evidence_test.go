package handlers

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/diagnosis"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rights"
)

// paulasRights are those of an operator whose rights cover the payments topics and every
// group: a group of hers may consume another team's topic.
func paulasRights(t *testing.T) Rights {
	t.Helper()
	table, err := rights.New([]rights.Config{{Subjects: []string{"user:paula"}, Topics: []string{"payments-*"}, Groups: []string{"*"},
		Actions: []string{"read-metadata", "reset"}}})
	if err != nil {
		t.Fatal(err)
	}
	return Rights{Table: table, Caller: &auth.Caller{Name: "paula", Role: auth.Operator}, Cluster: "default"}
}

func contextWith(r Rights) *gin.Context {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Set(RightsKey, r)
	return c
}

// A finding whose evidence names a topic the caller may not see keeps its kind, group and
// severity, but its evidence says why it is withheld, in both languages, and its action
// no longer names the topic; a finding naming only topics the caller may see (the group's
// own retry topic goes with the group) is kept whole.
func TestEvidenceNamingAHiddenTopicIsWithheld(t *testing.T) {
	lost := diagnosis.Finding{Kind: diagnosis.KindLost, Severity: diagnosis.Critical, Subject: "settle-g", Group: "settle-g",
		Evidence: i18n.M("diagnosis.evidence.lost", "Count", 3, "QueueCount", 1, "Queues", "orders-x/b/0"), Topics: []string{"orders-x"},
		Action: "/groups/settle-g/reset?mode=earliest&topic=orders-x", ActionKind: "reset"}
	subs := diagnosis.Finding{Kind: diagnosis.KindSubscriptions, Severity: diagnosis.Warning, Subject: "settle-g", Group: "settle-g",
		Evidence: i18n.M("diagnosis.evidence.subscriptions", "Clients", 2, "Each", "a: payments-x (*); b: %RETRY%settle-g (*)"),
		Topics:   []string{"payments-x", "%RETRY%settle-g"}, Action: "/groups/settle-g", ActionKind: "group"}

	got := visibleFindings(contextWith(paulasRights(t)), []diagnosis.Finding{lost, subs})
	if len(got) != 2 {
		t.Fatalf("findings %+v, want both (the group is hers)", got)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		ev := i18n.Match(lang).Say(got[0].Evidence)
		if strings.Contains(ev, "orders-x") || strings.Contains(ev, "rights.") || !strings.Contains(ev, "1") {
			t.Errorf("%s: withheld evidence %q: want a sentence counting 1 topic, naming none", lang, ev)
		}
	}
	if got[0].Kind != diagnosis.KindLost || got[0].Group != "settle-g" || got[0].Action != "/groups/settle-g/reset?mode=earliest" {
		t.Errorf("withheld finding %+v: want its kind and group, the reset form without the topic", got[0])
	}
	if ev := i18n.Match("en").Say(got[1].Evidence); !strings.Contains(ev, "payments-x") {
		t.Errorf("evidence of visible topics %q, want it whole", ev)
	}
	// Whoever's rights do not narrow them reads it whole.
	if all := visibleFindings(contextWith(Rights{}), []diagnosis.Finding{lost}); !strings.Contains(i18n.Match("en").Say(all[0].Evidence), "orders-x") {
		t.Errorf("unnarrowed caller's evidence %q", i18n.Match("en").Say(all[0].Evidence))
	}
}

// A client's thread dump naming a topic left out of the client's page is withheld, and
// the page says why rather than that the client sent none; a dump naming none is shown.
func TestAThreadDumpNamingAHiddenTopicIsWithheld(t *testing.T) {
	ci := &groups.ClientInfo{Group: "settle-g", ClientID: "10.0.0.5@1", JstackAsked: true,
		Subscriptions: []groups.Subscription{{Topic: "payments-x", Expression: "*"}, {Topic: "orders-x", Expression: "*"}},
		Jstack:        `"ConsumeMessageThread_1" at OrdersListener.consume(orders-x)`}
	got := viewOfGroup(paulasRights(t), "settle-g").client(ci)
	if got.Jstack != "" || !got.JstackWithheld || got.HiddenTopics != 1 {
		t.Fatalf("dump %q withheld %v hidden %d: want it withheld, one topic left out", got.Jstack, got.JstackWithheld, got.HiddenTopics)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		l := i18n.Match(lang)
		if note := clientPageVM(l, got).JstackNote; note != l.T("client.jstack.withheld") || strings.Contains(note, "client.") {
			t.Errorf("%s note %q, want the withheld sentence", lang, note)
		}
	}
	ci.Jstack = `"ConsumeMessageThread_1" at PaymentsListener.consume(payments-x)`
	if got := viewOfGroup(paulasRights(t), "settle-g").client(ci); got.Jstack != ci.Jstack || got.JstackWithheld {
		t.Errorf("dump %q withheld %v, want it shown", got.Jstack, got.JstackWithheld)
	}
}
