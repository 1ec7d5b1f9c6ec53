package subgroups

import (
	"encoding/json"
	"testing"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// What a settings change keeps in its audit entry — each broker's note, what it read
// back, why the preview no longer held — survives storage as catalogue sentences: an
// entry written from an English request reads in Chinese, and in English as it always
// has.
func TestAuditNotesReadInTheReadersLanguage(t *testing.T) {
	zh := i18n.Match("zh-CN")
	plan := BrokerPlan{Name: "broker-a", Addr: "10.0.0.1:10911", Exists: true, Changes: []Change{
		{Field: "retryMaxTimes", Current: "16", New: "5", CurrentRaw: json.RawMessage("16"), NewRaw: json.RawMessage("5")},
		{Field: "attributes.lite", Current: "", New: "true"},
	}}
	held := BrokerConfig{Name: "broker-a", Addr: "10.0.0.2:10911", Doc: rocketmq.GroupDoc{"retryMaxTimes": json.RawMessage("16")}}
	c := &Config{Brokers: []BrokerConfig{held}}
	p := &Plan{Brokers: []BrokerPlan{plan, {Name: "broker-b", Exists: true}}}
	fails := []cluster.BrokerFailure{{Broker: "broker-b", Op: "group config", Err: rocketmq.ErrClosed}}

	for _, c := range []struct {
		name   string
		text   i18n.Text
		en, zh string
	}{
		{"note", describe(plan), "updated: retryMaxTimes 16 → 5, attributes.lite none → true", "已更新：retryMaxTimes 16 → 5，attributes.lite 无 → true"},
		{"read back", readBackMismatch(held, plan.Changes), "read back: retryMaxTimes is 16, not 5, attributes.lite is none, not true",
			"读回：retryMaxTimes 为 16，而不是 5，attributes.lite 为 无，而不是 true"},
		{"stale", i18n.Series(i18n.ListSemicolon, staleReasons(p, c, fails)...),
			"broker broker-a's master moved from 10.0.0.1:10911 to 10.0.0.2:10911; broker broker-b could not be read again (group config: " + rocketmq.ErrClosed.Error() + ")",
			"Broker broker-a 的主节点已从 10.0.0.1:10911 换到 10.0.0.2:10911；无法重新读取 Broker broker-b（group config: " + rocketmq.ErrClosed.Error() + "）"},
	} {
		enc, err := i18n.Encode(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		stored := i18n.Decode(enc)
		if stored.String() != c.en || zh.SayText(stored) != c.zh {
			t.Errorf("%s, stored and read back: %q in English, %q in Chinese; want %q and %q", c.name, stored, zh.SayText(stored), c.en, c.zh)
		}
	}
}
