package auth

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// A refused sign-in's entry keeps why as catalogue sentences, so the audit log read in
// Chinese says it in Chinese, and in English as it always did: a wrong password, and the
// entry that counts the failures past the per-address limit.
func TestRefusedSignInsReadInTheReadersLanguage(t *testing.T) {
	st := openStore(t)
	s, ctx := New(st, Config{Audit: st.Audit()}), context.Background()
	for i := range FailuresPerWindow + 2 {
		s.RecordSignIn(ctx, SignIn{Provider: ProviderLocal, Name: fmt.Sprint("mallory", i), Addr: "10.0.0.9", Err: ErrBadCredentials})
	}
	s.Close() // the window's count is written
	entries, _, err := st.Audit().List(ctx, store.AuditFilter{Kind: store.AuditKindSignIns, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	en, zh := i18n.Match("en"), i18n.Match("zh-CN")
	var wrong, counted int
	for _, e := range entries {
		switch said := en.SayText(e.Error); {
		case said == "Wrong user name or password.":
			wrong++
			if got := zh.SayText(e.Error); got != "用户名或密码错误。" {
				t.Errorf("a wrong password reads in Chinese as %q", got)
			}
		case strings.HasPrefix(said, "…and 2 more failed sign-ins from 10.0.0.9 in the last 1m0s"):
			counted++
			if got := zh.SayText(e.Error); !strings.Contains(got, "另外 2 次失败登录") {
				t.Errorf("the count reads in Chinese as %q", got)
			}
		default:
			t.Errorf("an entry says %q", said)
		}
	}
	if wrong != FailuresPerWindow || counted != 1 {
		t.Errorf("%d wrong-password entries and %d counts, want %d and 1", wrong, counted, FailuresPerWindow)
	}
}
