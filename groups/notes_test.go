package groups

import (
	"testing"
	"time"

	"rmqconsole/i18n"
)

// A sentence the service wrote reads in English in its results and in Chinese on a
// Chinese page, joined ones and ones quoted inside another included: results carry the
// catalogue messages themselves, never English to be translated back.
func TestNotesAreSaidInThePagesLanguage(t *testing.T) {
	zh := i18n.Match("zh-CN")
	first := i18n.TextOf(i18n.M("group.note.noOffset"))
	if first.String() != "No offset is committed for this queue yet." {
		t.Errorf("English note %q", first)
	}
	if got := zh.SayText(first); got != "该队列还没有提交消费位点。" {
		t.Errorf("Chinese note %q", got)
	}
	quoted := i18n.TextOf(i18n.M("group.note.behindLeavesOut", "Count", 2, "First", first))
	if got := zh.SayText(quoted); got != "未计入 2 个消费延迟未知的队列：该队列还没有提交消费位点。" {
		t.Errorf("Chinese quoting note %q", got)
	}
	joined := first.And(i18n.M("group.assign.note.noStrategy"))
	if joined.String() != "No offset is committed for this queue yet. No client reported its allocation strategy." {
		t.Errorf("English joined note %q", joined)
	}
	if got := zh.SayText(joined); got != "该队列还没有提交消费位点。没有客户端上报其负载均衡策略。" {
		t.Errorf("Chinese joined note %q", got)
	}
	w := i18n.TextOf(i18n.M("group.lock.warn.stale", "Name", i18n.M("group.lock.queue", "Queue", 3, "Topic", "T", "Broker", "b"),
		"Holder", "c1", "Renewed", agoArg(40*time.Second), "Expiry", agoArg(30*time.Second)))
	if want := "Queue 3 of T on b is blocked: c1 last renewed its lock 40 s ago, longer than the broker's 30 s lock expiry, so it cannot consume the queue and another client may lock it."; w.String() != want {
		t.Errorf("English warning %q", w)
	}
	if got, want := zh.SayText(w), "b 上 T 的队列 3 已阻塞：c1 最后一次续期锁是在 40 秒前，超过了 Broker 的锁过期时间 30 秒，因此它无法消费该队列，其他客户端可能会锁定它。"; got != want {
		t.Errorf("Chinese warning\n%s\nwant\n%s", got, want)
	}
}
