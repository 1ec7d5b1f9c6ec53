package i18n

import "strings"

// FromEnv returns the localizer of the language the environment asks for, as the
// command line reads it: the first of LC_ALL, LC_MESSAGES and LANG that is set, its
// POSIX form ("zh_CN.UTF-8", "zh_CN@pinyin") read as a language tag ("zh-CN"). "C",
// "POSIX" and unset mean English.
func FromEnv(getenv func(string) string) *Localizer {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			return Match(posixTag(v))
		}
	}
	return english
}

// posixTag turns a POSIX locale name (language[_territory][.codeset][@modifier]) into a
// BCP 47 tag; "" for C and POSIX, which name no language.
func posixTag(locale string) string {
	if i := strings.IndexAny(locale, ".@"); i >= 0 {
		locale = locale[:i]
	}
	if locale == "C" || locale == "POSIX" {
		return ""
	}
	return strings.ReplaceAll(locale, "_", "-")
}
