package views

import (
	"testing"
	"time"

	"rmqconsole/i18n"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDurationsInChinese(t *testing.T) {
	zh, en := i18n.Match("zh-CN"), i18n.Match("en")
	for _, c := range []struct {
		got, want string
	}{
		{BehindIn(zh, 192*time.Second), "3 分 12 秒"},
		{BehindIn(zh, 26*time.Hour), "1 天 2 小时"},
		{BehindIn(en, 192*time.Second), "3 min 12 s"},
		{DurationIn(zh, 90*time.Minute), "1 小时 30 分钟"},
		{DurationIn(zh, 2*time.Minute), "2 分钟"},
		{DurationIn(en, 2*time.Minute), "2m"},
		{SpanIn(zh, 1500*time.Millisecond), "1.5 秒"},
		{SpanIn(zh, 20*time.Millisecond), "20 毫秒"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
