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
