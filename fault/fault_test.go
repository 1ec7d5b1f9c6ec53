package fault

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"rmqconsole/i18n"
)

func TestCodeOfFindsTheErrorThroughWrapsAndLists(t *testing.T) {
	nf := New(NotFound, "error.no_page", "Path", "/x").Because("group_not_found")
	list := List{InvalidField("topic", "error.no_page", "Path", "a"), InvalidField("begin", "error.no_page", "Path", "b")}
	for _, tc := range []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, ""},
		{"plain error is the console's own", errors.New("boom"), Internal},
		{"context error is the console's own", context.Canceled, Internal},
		{"an Error", nf, NotFound},
		{"a wrapped Error", fmt.Errorf("load group: %w", nf), NotFound},
		{"a list", list, Invalid},
		{"a wrapped list", fmt.Errorf("check: %w", list), Invalid},
	} {
		if got := CodeOf(tc.err); got != tc.want {
			t.Errorf("%s: CodeOf = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := nf.APICode(); got != "group_not_found" {
		t.Errorf("APICode with a reason = %q", got)
	}
	if got := New(Conflict, "x").APICode(); got != "conflict" {
		t.Errorf("APICode without a reason = %q", got)
	}
}

func TestListSaysEveryFieldAndFindsOne(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is no error")
	}
	l.Invalid("topic", "error.no_page", "Path", "a")
	l.Invalid("begin", "error.no_page", "Path", "b")
	if l.For("begin") == nil || l.For("begin").Msg.Args[1] != "b" || l.For("end") != nil {
		t.Fatalf("For: %+v", l)
	}
	if got := All(fmt.Errorf("w: %w", l.Err())); len(got) != 2 {
		t.Fatalf("All found %d errors, want 2", len(got))
	}
}

func TestErrorSaysTheSentenceInTheReadersLanguageAndKeepsItsCause(t *testing.T) {
	cause := errors.New("dial tcp: connection refused")
	e := Wrap(cause, Unavailable, "error.no_page", "Path", "/p")
	if !errors.Is(e, cause) {
		t.Fatal("the cause is lost")
	}
	en := e.Say(i18n.Match("en"))
	zh := e.Say(i18n.Match("zh-CN"))
	if en == zh || en == "error.no_page" || zh == "error.no_page" {
		t.Fatalf("sentence not said per language: en %q, zh %q", en, zh)
	}
	if e.Error() != en+": "+cause.Error() {
		t.Fatalf("Error() = %q", e.Error())
	}
}
