package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/dev"
	"rmqconsole/i18n"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseConfigDefaultsEnvAndFlags(t *testing.T) {
	c, err := ParseConfig(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8090" || c.Timeout != 5*time.Second || c.DB != filepath.Join("data", "rmqconsole.db") || len(c.NameServers) != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = ParseConfig([]string{"--timeout", "2s"}, env(map[string]string{
		"RMQC_NAMESRV": " 10.0.0.1:9876 ; 10.0.0.2:9876;", "RMQC_TIMEOUT": "9s", "RMQC_DATA_DIR": "/var/lib/rmqc",
		"RMQC_LOG_LEVEL": "debug", "RMQC_LOG_FORMAT": "json",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.NameServers, ";"); got != "10.0.0.1:9876;10.0.0.2:9876" {
		t.Errorf("NameServers %q", got)
	}
	if c.Timeout != 2*time.Second {
		t.Errorf("flag should win over env: timeout %v", c.Timeout)
	}
	if c.DB != "/var/lib/rmqc/rmqconsole.db" || c.LogLevel != slog.LevelDebug || c.LogFormat != "json" {
		t.Errorf("env not applied: %+v", c)
	}
}

func TestParseConfigNamesTheBadSetting(t *testing.T) {
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, map[string]string{"RMQC_NAMESRV": "localhost"}, "--namesrv (RMQC_NAMESRV)"},
		{[]string{"--listen", "8090"}, nil, "--listen (RMQC_LISTEN)"},
		{nil, map[string]string{"RMQC_TIMEOUT": "-1s"}, "--timeout (RMQC_TIMEOUT)"},
		{nil, map[string]string{"RMQC_LOG_LEVEL": "loud"}, "--log-level (RMQC_LOG_LEVEL)"},
		{[]string{"--log-format=xml"}, nil, "--log-format (RMQC_LOG_FORMAT)"},
		{[]string{"--data-dir="}, nil, "--data-dir (RMQC_DATA_DIR)"},
		{nil, map[string]string{"RMQC_NO_AUTH": "maybe"}, "--no-auth (RMQC_NO_AUTH)"},
		{nil, map[string]string{"RMQC_METRICS_QUEUES": "some"}, "--metrics-queues (RMQC_METRICS_QUEUES)"},
		{nil, map[string]string{"RMQC_METRICS_GROUPS": "orders-(*"}, "--metrics-groups (RMQC_METRICS_GROUPS)"},
	}
	for _, tc := range cases {
		_, err := ParseConfig(tc.args, env(tc.env), io.Discard)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: error %v, want one naming %s", tc.args, tc.env, err, tc.want)
		}
	}
}

func TestRunExitCodesAndOneLineErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, env(nil), &out, &errb); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, s := range settings {
		if !strings.Contains(errb.String(), "-"+s.flag) || !strings.Contains(errb.String(), s.env) {
			t.Errorf("--help does not document --%s / %s", s.flag, s.env)
		}
	}
	errb.Reset()
	if code := run(context.Background(), []string{"--timeout", "soon"}, env(nil), &out, &errb); code != 2 {
		t.Fatalf("bad config exit %d", code)
	}
	if lines := strings.Count(strings.TrimSpace(errb.String()), "\n"); lines != 0 || !strings.Contains(errb.String(), "--timeout") {
		t.Fatalf("want one line naming --timeout, got %q", errb.String())
	}
	errb.Reset()
	dir := t.TempDir()
	code := run(context.Background(), []string{"--listen", "0.0.0.0:0", "--data-dir", dir}, env(nil), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "refusing to listen on 0.0.0.0:0") {
		t.Fatalf("public address without users: exit %d, %q", code, errb.String())
	}
}

// Stopped by Ctrl-C or SIGTERM (its context cancelled), the console exits 0 and its
// last log line says it stopped, once its database and connections are closed.
func TestInterruptedConsoleSaysStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--namesrv", deadAddr(t)}, env(nil), &logs, &logs)
	}()
	dev.Eventually(t, 30*time.Second, "the console listening", func() error {
		if !strings.Contains(logs.String(), "rmqconsole listening") {
			return fmt.Errorf("log so far: %q", logs.String())
		}
		return nil
	})
	cancel()
	var got int
	select {
	case got = <-code:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30s after its context was cancelled:\n%s", logs.String())
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if last := lines[len(lines)-1]; got != 0 || !strings.Contains(last, "msg=stopped") {
		t.Errorf("exit %d, last line %q: want 0 and a line saying stopped\n%s", got, last, logs.String())
	}
}

func TestRecoveryAnswersPlain500WithoutStack(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(recovery(log))
	r.GET("/boom", func(*gin.Context) { panic("kaboom secret detail") })
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, newRequest(http.MethodGet, "/boom", nil))
	if rec.Code != 500 {
		t.Fatalf("status %d", rec.Code)
	}
	if body := rec.Body.String(); strings.Contains(body, "kaboom") || strings.Contains(body, "goroutine") {
		t.Fatalf("panic details leaked to the client: %q", body)
	}
	if !strings.Contains(logs.String(), "kaboom secret detail") || !strings.Contains(logs.String(), "stack=") {
		t.Fatalf("panic not logged with its stack: %q", logs.String())
	}
}

func TestAppServesAndShutsDownOnCancel(t *testing.T) {
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	app, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", res, err)
	}
	res, _ = http.Get(srv.URL + "/readyz")
	if res.StatusCode != 503 {
		t.Fatalf("readyz without a NameServer: %d, want 503", res.StatusCode)
	}
	res, _ = http.Get(srv.URL + "/no/such/page")
	if res.StatusCode != 404 {
		t.Fatalf("unknown page: %d", res.StatusCode)
	}
	if res.Header.Get("Content-Security-Policy") == "" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("security headers missing: %v", res.Header)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.ListenAndServe(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("ListenAndServe did not return after cancel")
	}
}

// Every refused setting is said in the reader's language, its reason included: the
// reasons that name a value (a session longer than its maximum, a secret without a key,
// a language the console does not speak) as much as the fixed ones.
func TestRefusedSettingsAreSaidInChinese(t *testing.T) {
	zh := i18n.Match("zh-CN")
	for _, tc := range []struct {
		env     map[string]string
		english string // the reason in English, which the Chinese must not hold
		chinese string
	}{
		{map[string]string{"RMQC_SESSION_IDLE": "48h", "RMQC_SESSION_MAX": "24h"}, "would end before it could idle out", "会话在空闲超时之前就会结束"},
		{map[string]string{"RMQC_SESSION_IDLE": "soon"}, "want a positive duration such as 30m or 8h", "应为正的时长，例如 30m 或 8h"},
		{map[string]string{"RMQC_SECRET_KEY": "s3cret"}, "no access key (RMQC_ACCESS_KEY)", "没有用于签名的 AccessKey（RMQC_ACCESS_KEY）"},
		{map[string]string{"RMQC_ACCESS_KEY": "rmqc"}, "has no secret key", "AccessKey rmqc 没有密钥"},
		{map[string]string{"RMQC_ALERT_LANG": "fr"}, "want one of", "应为以下之一"},
		{map[string]string{"RMQC_HTTP_READ_TIMEOUT": "1ms"}, "such as 30s", "例如 30s"},
		{map[string]string{"RMQC_MAX_HEAVY_QUERIES": "0"}, "such as 4", "例如 4"},
		{map[string]string{"RMQC_DB_TIMEOUT": "1ms"}, "at least 100ms", "至少 100ms"},
	} {
		_, err := ParseConfig(nil, env(tc.env), io.Discard)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.english) {
			t.Errorf("%v: %v, want a refusal saying %q", tc.env, err, tc.english)
			continue
		}
		if got := cliSay(zh, err); !strings.Contains(got, tc.chinese) || strings.Contains(got, tc.english) {
			t.Errorf("%v in Chinese: %q, want %q", tc.env, got, tc.chinese)
		}
	}
}
