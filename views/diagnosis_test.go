package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A group's Diagnosis section says what the read could not read, muted, whether it found
// something or nothing; a section read completely has no such line.
func TestGroupDiagnosisSaysWhatWasNotRead(t *testing.T) {
	row := FindingRow{Kind: "retryStorm", KindLabel: "Retry storm", Severity: "warning", SeverityLabel: "warning", Group: "g",
		Evidence: "e", Since: "s", ActionURL: "/groups/g", ActionLabel: "Open the group"}
	line := "Could not read the rebalance counts from the store: sql: database is closed."
	for _, c := range []struct {
		name string
		vm   DiagnosisVM
		want bool
	}{
		{"nothing found", DiagnosisVM{Enabled: true, ReadAt: "now", Unread: []string{line}}, true},
		{"a finding", DiagnosisVM{Enabled: true, ReadAt: "now", Rows: []FindingRow{row}, Unread: []string{line}}, true},
		{"all read", DiagnosisVM{Enabled: true, ReadAt: "now", Rows: []FindingRow{row}}, false},
	} {
		var buf bytes.Buffer
		if err := GroupDiagnosis(c.vm).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		html := buf.String()
		if got := strings.Contains(html, `data-testid="diagnosis-unread"`) && strings.Contains(html, line); got != c.want {
			t.Errorf("%s: unread line shown %v, want %v:\n%s", c.name, got, c.want, html)
		}
		if c.want && !strings.Contains(html, `class="muted diagnosis-unread"`) {
			t.Errorf("%s: the line is not muted", c.name)
		}
	}
}
