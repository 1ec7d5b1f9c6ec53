package i18n

import "testing"

func TestFromEnvReadsTheLocaleVariablesInPOSIXOrder(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{map[string]string{"LANG": "zh_TW.Big5"}, "zh-CN"},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_US.UTF-8"}, "en"},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.GB18030"}, "zh-CN"},
		{map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"},
		{map[string]string{"LANG": "POSIX"}, "en"},
		{map[string]string{"LANG": "fr_FR@euro"}, "en"},
		{map[string]string{"LANG": "not a locale!"}, "en"},
	} {
		if got := FromEnv(func(k string) string { return c.env[k] }).Lang(); got != c.want {
			t.Errorf("FromEnv(%v) = %s, want %s", c.env, got, c.want)
		}
	}
}
