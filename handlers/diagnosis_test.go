package handlers

import (
	"strings"
	"testing"
	"time"

	"rmqconsole/diagnosis"
	"rmqconsole/i18n"
)

// findingsOf answers the same findings for the overview and every group.
type findingsOf []diagnosis.Finding

func (f findingsOf) Findings() ([]diagnosis.Finding, time.Time) {
	return f, time.Unix(1_700_000_000, 0)
}
func (f findingsOf) ForGroup(string) ([]diagnosis.Finding, time.Time) {
	return f, time.Unix(1_700_000_000, 0)
}
func (f findingsOf) ForBroker(string) ([]diagnosis.Finding, time.Time) {
	return f, time.Unix(1_700_000_000, 0)
}
func (f findingsOf) Unread() []diagnosis.Unread          { return nil }
func (f findingsOf) UnreadFor(string) []diagnosis.Unread { return nil }

// partlyRead has findings and sources the last read could not read.
type partlyRead struct {
	findingsOf
	unread []diagnosis.Unread
}

func (p partlyRead) Unread() []diagnosis.Unread { return p.unread }
func (p partlyRead) UnreadFor(g string) []diagnosis.Unread {
	var out []diagnosis.Unread
	for _, u := range p.unread {
		if u.What != diagnosis.UnreadNameServer {
			out = append(out, u)
		}
	}
	return out
}

// Every kind of finding, its severity and the page its action opens are said in words of
// both languages on the overview and the group page, never as a catalogue key.
func TestEveryKindOfFindingIsSaidInBothLanguages(t *testing.T) {
	var fs findingsOf
	for _, kind := range diagnosis.Kinds {
		for _, action := range []string{"group", "reset", "client", "timeline", "deadLetters", "broker", "overview"} {
			fs = append(fs, diagnosis.Finding{Kind: kind, Severity: diagnosis.Warning, Group: "g", Subject: "g",
				Evidence: i18n.M("diagnosis.evidence.lost", "Count", 1, "QueueCount", 1, "Queues", "t/b/0"), Action: "/groups/g", ActionKind: action})
		}
	}
	for _, lang := range []string{"en", "zh-CN"} {
		vm := diagnosisVM(i18n.Match(lang), fs, "")
		for _, r := range vm.Rows {
			for _, s := range []string{r.KindLabel, r.SeverityLabel, r.ActionLabel, r.Evidence} {
				if s == "" || strings.HasPrefix(s, "diagnosis.") {
					t.Errorf("%s: finding %s with action %s says %q", lang, r.Kind, r.ActionLabel, s)
				}
			}
		}
	}
}

// What the last read could not read is a line of each kind, in both languages, with its
// cause, never a catalogue key.
func TestEveryUnreadSourceIsSaidInBothLanguages(t *testing.T) {
	var us []diagnosis.Unread
	for _, what := range []string{diagnosis.UnreadDeadLetters, diagnosis.UnreadRebalances, diagnosis.UnreadBrokers,
		diagnosis.UnreadBroker, diagnosis.UnreadNameServer, diagnosis.UnreadLocks} {
		us = append(us, diagnosis.Unread{What: what, Subject: "subject-x", Cause: "cause-y"})
	}
	for _, lang := range []string{"en", "zh-CN"} {
		vm := diagnosisVM(i18n.Match(lang), partlyRead{unread: us}, "")
		if len(vm.Unread) != len(us) {
			t.Fatalf("%s: %d lines, want %d", lang, len(vm.Unread), len(us))
		}
		for i, line := range vm.Unread {
			if strings.Contains(line, "diagnosis.") || !strings.Contains(line, "cause-y") ||
				(us[i].What != diagnosis.UnreadDeadLetters && us[i].What != diagnosis.UnreadRebalances && us[i].What != diagnosis.UnreadBrokers && !strings.Contains(line, "subject-x")) {
				t.Errorf("%s: %s said %q", lang, us[i].What, line)
			}
		}
	}
}
