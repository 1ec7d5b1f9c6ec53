package groups

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// A client whose running info could not be read is named in the page's language: the
// console's sentence around it is the catalogues', the client's or broker's own error
// stays as it came. The JSON API keeps the English text.
func TestRunningInfoFailureIsSaidInChinese(t *testing.T) {
	zh := i18n.Match("zh-CN")
	noInfo := &rocketmq.RunningInfoError{ClientID: "c2", Group: tG, Addr: "10.0.0.1:10911", Remark: "json: unsupported value: NaN"}
	refused := &rocketmq.RunningInfoError{ClientID: "c2", Group: tG, Addr: "10.0.0.1:10911", Err: errors.New("CODE: 206 DESC: The Consumer <c2> not online")}
	cases := []struct {
		err      error
		zh, kept string
	}{
		{noInfo, `通过 10.0.0.1:10911 读取消费者组 "` + tG + `" 的客户端 "c2" 的运行信息失败：客户端没有发送运行信息（"json: unsupported value: NaN"）`, ""},
		{refused, `通过 10.0.0.1:10911 读取消费者组 "` + tG + `" 的客户端 "c2" 的运行信息失败：CODE: 206 DESC: The Consumer <c2> not online`, "CODE: 206 DESC: The Consumer <c2> not online"},
	}
	for _, tc := range cases {
		f := twoClientsOnEightQueues()
		f.FailRunningInfo("c2", tc.err)
		s := NewService(f, Options{})
		d, err := s.Detail(context.Background(), tG)
		if err != nil {
			t.Fatal(err)
		}
		got := d.Clients[1].RunningInfoError
		if got.String() != tc.err.Error() {
			t.Errorf("English (JSON) %q, want the error's own %q", got, tc.err.Error())
		}
		if say := zh.SayText(got); say != tc.zh {
			t.Errorf("group page in Chinese:\n got %q\nwant %q", say, tc.zh)
		}

		ci, err := s.Client(context.Background(), tG, "c2", false)
		if err != nil {
			t.Fatal(err)
		}
		say := zh.SayText(ci.Unavailable)
		if !strings.Contains(say, tc.zh) || strings.Contains(say, "running info of client") || strings.Contains(say, "sent no running info") {
			t.Errorf("client page in Chinese: %q, want it to hold %q", say, tc.zh)
		}
		if tc.kept != "" && !strings.Contains(say, tc.kept) {
			t.Errorf("client page in Chinese: %q lost the broker's own error %q", say, tc.kept)
		}
	}
}
