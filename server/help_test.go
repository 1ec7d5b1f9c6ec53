package server

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"
	"unicode"

	"rmqconsole/i18n"
)

// helpOutput is what the command line prints for args under the environment vars.
func helpOutput(t *testing.T, vars map[string]string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, env(vars), &out, &errb); code != 0 {
		t.Fatalf("%v under %v: exit %d\n%s", args, vars, code, errb.String())
	}
	return errb.String()
}

// In English, --help prints what the flag package prints for the console's flags, byte
// for byte, so scripts and documentation that quote it stay right.
func TestHelpInEnglishIsTheFlagPackagesOwn(t *testing.T) {
	en := i18n.Match("en")
	fs := flag.NewFlagSet("rmqconsole", flag.ContinueOnError)
	var want bytes.Buffer
	fs.SetOutput(&want)
	want.WriteString("rmqconsole — a web console for Apache RocketMQ\n\nUsage: rmqconsole [flags]\n\nEvery flag can also be set by the environment variable in brackets.\n\n")
	for _, s := range settings {
		fs.String(s.flag, s.def, en.T("flags."+s.flag)+" [$"+s.env+"]")
	}
	fs.PrintDefaults()
	for _, vars := range []map[string]string{nil, {"LANG": "C.UTF-8"}, {"LANG": "en_US.UTF-8"}} {
		if got := helpOutput(t, vars, "--help"); got != want.String() {
			t.Errorf("--help under %v differs from the flag package's:\n%s\nwant:\n%s", vars, got, want.String())
		}
	}
	got := helpOutput(t, nil, "--help")
	for _, line := range []string{
		"  -namesrv make run\n    \tNameServer addresses, ';'-separated (host:port;host:port). Empty: make run starts a local RocketMQ [$RMQC_NAMESRV]\n",
		"  -listen string\n    \taddress the console listens on [$RMQC_LISTEN] (default \"127.0.0.1:8090\")\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("English --help lacks %q", line)
		}
	}
}

// Under a Chinese locale --help (and audit verify --help) describes every flag in
// Chinese, keeping the flag names, variables and defaults.
func TestHelpInChinese(t *testing.T) {
	zh, en := i18n.Match("zh-CN"), i18n.Match("en")
	for _, s := range settings {
		d := zh.T("flags." + s.flag)
		if d == "flags."+s.flag || d == en.T("flags."+s.flag) || !strings.ContainsFunc(d, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("--%s has no Chinese description: %q", s.flag, d)
		}
	}
	for _, args := range [][]string{{"--help"}, {"audit", "verify", "--help"}} {
		got := helpOutput(t, map[string]string{"LANG": "zh_CN.UTF-8"}, args...)
		if !strings.HasPrefix(got, "rmqconsole — Apache RocketMQ 的 Web 控制台\n\n用法：rmqconsole [参数]\n") {
			t.Errorf("%v: the heading is not Chinese:\n%s", args, got)
		}
		for _, s := range settings {
			// The flag package prints a `quoted` word of a description without its quotes.
			if !strings.Contains(got, strings.ReplaceAll(zh.T("flags."+s.flag), "`", "")+" [$"+s.env+"]") {
				t.Errorf("%v: --%s is not described in Chinese", args, s.flag)
			}
			if strings.Contains(got, strings.ReplaceAll(en.T("flags."+s.flag), "`", "")) {
				t.Errorf("%v: --%s is still described in English", args, s.flag)
			}
		}
		for _, part := range []string{
			"  -listen string\n    \t控制台监听的地址 [$RMQC_LISTEN]（默认 \"127.0.0.1:8090\"）\n",
			"  -namesrv make run\n",
		} {
			if !strings.Contains(got, part) {
				t.Errorf("%v: Chinese --help lacks %q:\n%s", args, part, got)
			}
		}
		if strings.Contains(got, "(default ") {
			t.Errorf("%v: a default is introduced in English:\n%s", args, got)
		}
	}
	// LC_ALL wins over LANG, as for the rest of the command line.
	if got := helpOutput(t, map[string]string{"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "--help"); !strings.Contains(got, "用法：") {
		t.Errorf("LC_ALL=zh_CN.UTF-8 LANG=en_US.UTF-8: --help is not Chinese:\n%s", got)
	}
}
