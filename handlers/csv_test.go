package handlers

import "testing"

func TestDefuseCell(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "",
		"orders":                     "orders",
		`=HYPERLINK("http://x","y")`: `'=HYPERLINK("http://x","y")`,
		"+cmd":                       "'+cmd",
		"-2+3":                       "'-2+3",
		"@SUM(A1)":                   "'@SUM(A1)",
		"\t=1":                       "'\t=1",
		"\r=1":                       "'\r=1",
		"-5":                         "-5",
		"+1.5e3":                     "+1.5e3",
	} {
		if got := defuseCell(in); got != want {
			t.Errorf("defuseCell(%q) = %q, want %q", in, got, want)
		}
	}
}
