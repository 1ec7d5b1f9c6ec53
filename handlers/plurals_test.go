package handlers

import (
	"strings"
	"testing"
	"time"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// A count of one is said in the singular: "up to 1 message", "+ 1 move unknown".
func TestGroupSentencesSayOneInTheSingular(t *testing.T) {
	en := i18n.Match("en")
	q, one, many := 0, int64(1), int64(1200)
	move := func(dups *int64) groups.Event {
		return groups.Event{Kind: groups.KindMoved, At: time.Unix(0, 0), Topic: "T", BrokerName: "broker-a", QueueID: &q,
			From: "c1", To: "c2", DuplicatesAtRisk: dups}
	}
	for _, c := range []struct{ got, want, not string }{
		{eventRowVM(en, move(&one)).Text, "up to 1 message may", "1 messages"},
		{eventRowVM(en, move(&many)).Text, "up to 1,200 messages may", ""},
		{duplicatesText(en, 4, 1), "(+ 1 move unknown)", "moves"},
		{duplicatesText(en, 4, 3), "(+ 3 moves unknown)", ""},
	} {
		if !strings.Contains(c.got, c.want) || (c.not != "" && strings.Contains(c.got, c.not)) {
			t.Errorf("%q, want it to say %q", c.got, c.want)
		}
	}
	zh := i18n.Match("zh-CN")
	if got := duplicatesText(zh, 4, 1); !strings.Contains(got, "另有 1 次迁移未知") {
		t.Errorf("Chinese: %q", got)
	}
}
