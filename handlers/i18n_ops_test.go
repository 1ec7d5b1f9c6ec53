package handlers

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// An error page answers in the request's language: its title, its sentence, a broker's
// refusal and the Messages nested in a sentence (a role, what it may not do); the
// same error in English keeps its words.
func TestErrorsAreSaidInTheRequestsLanguage(t *testing.T) {
	refused := cluster.BrokerFailure{Broker: "broker-a", Err: &rocketmq.AccessError{Addr: "10.0.0.1:10911", AccessKey: "rmqc",
		Denial: rocketmq.DenialBadSignature, Broker: &rocketmq.BrokerError{Addr: "10.0.0.1:10911", Code: 16, Remark: "check signature failed."}}}
	role := fault.New(fault.Refused, "access.role_refused", "Role", i18n.M("role.viewer"), "What", i18n.M("access.what.reset"), "Need", i18n.M("role.operator"))
	for _, tc := range []struct {
		name     string
		err      error
		en, zh   string
		enStatus string
	}{
		{"no page", fault.New(fault.NotFound, "error.no_page", "Path", "/nope"),
			"There is no page at /nope.", "/nope 没有对应的页面", "Not Found"},
		{"refusal", fmt.Errorf("read: %w", refused), "Broker broker-a refused access key rmqc: the signature does not match",
			"Broker broker-a 拒绝了 AccessKey rmqc：签名不匹配", "Forbidden"},
		{"nested", role, "Your role, viewer, may not reset consumer offsets: that needs operator.",
			"你的角色（只读）无权重置消费位点：需要“操作员”角色。", "Forbidden"},
	} {
		for _, lang := range []string{"en", "zh-CN"} {
			r := newEngine()
			r.Use(Localize)
			env := &Env{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			r.GET("/x", func(c *gin.Context) { env.Fail(c, tc.err) })
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/x", nil)
			req.Header.Set("Accept-Language", lang)
			r.ServeHTTP(w, req)
			body := w.Body.String()
			want := tc.en
			if lang != "en" {
				want = tc.zh
			}
			if !strings.Contains(body, want) {
				t.Errorf("%s in %s: the page lacks %q:\n%s", tc.name, lang, want, body)
			}
			if lang == "en" && !strings.Contains(body, tc.enStatus) {
				t.Errorf("%s in English: the page lacks its status %q", tc.name, tc.enStatus)
			}
		}
	}
}
