package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

// No form marks an untouched field as checked and right (Pico's green tick): a field
// is either marked invalid with its sentence, or not marked at all.
func TestFormsMarkOnlyInvalidFields(t *testing.T) {
	for _, c := range []struct {
		name    string
		page    templ.Component
		invalid int
	}{
		{"login empty", LoginPage(LoginVM{}), 0},
		{"login refused", LoginPage(LoginVM{Name: "ann", Error: "Wrong user name or password."}), 2},
		{"tokens empty", TokensPage(TokensVM{User: "ann", Self: true}), 0},
		{"tokens refused", TokensPage(TokensVM{User: "ann", Self: true, Error: "Name the token."}), 1},
		{"messages empty", MessagesPage(MessagesVM{Configured: true, Tab: TabKey}), 0},
		{"messages refused", MessagesPage(MessagesVM{Configured: true, Tab: TabKey,
			FieldErrors: map[string]string{"topic": "Choose a topic.", "key": "Type the key."}}), 2},
		{"messages swapped", MessagesFragment(MessagesVM{Configured: true, Tab: TabKey,
			FieldErrors: map[string]string{"topic": "Choose a topic."}}), 1},
		{"groups empty", GroupsPage(GroupsVM{Configured: true}), 0},
		{"groups refused", GroupsPage(GroupsVM{Configured: true, FormError: "The filter is too long."}), 1},
		{"reset empty", ResetPage(ResetVM{Group: "g", Configured: true}), 0},
		{"reset refused", ResetPage(ResetVM{Group: "g", Configured: true, FieldErrors: map[string]string{"shift": "Enter a number."}}), 1},
		{"audit empty", AuditListPage(AuditListVM{}), 0},
		{"audit refused", AuditListPage(AuditListVM{FieldErrors: map[string]string{"since": "Not a time."}}), 1},
		{"alerts empty", AlertsPage(AlertsVM{CanEdit: true}), 0},
		{"alerts refused", AlertsPage(AlertsVM{CanEdit: true, Form: AlertForm{FieldErrors: map[string]string{"threshold": "The threshold must be a whole number.", "for": "Say how long, such as 2m."}}}), 2},
	} {
		var buf bytes.Buffer
		if err := c.page.Render(context.Background(), &buf); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out := buf.String()
		if strings.Contains(out, `aria-invalid="false"`) {
			t.Errorf("%s: a field is marked valid (aria-invalid=\"false\")", c.name)
		}
		if got := strings.Count(out, `aria-invalid="true"`); got != c.invalid {
			t.Errorf("%s: %d fields marked invalid, want %d", c.name, got, c.invalid)
		}
	}
}

// Time inputs take the console's format, with the zone beside them, instead of the
// browser's datetime-local picker (mm/dd/yyyy, --:--:-- AM in an en-US browser).
func TestTimeInputsUseTheConsoleFormat(t *testing.T) {
	for name, page := range map[string]templ.Component{
		"reset": ResetPage(ResetVM{Group: "g", Configured: true}),
		"audit": AuditListPage(AuditListVM{}),
	} {
		var buf bytes.Buffer
		if err := page.Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, "datetime-local") {
			t.Errorf("%s: a datetime-local picker is left", name)
		}
		if !strings.Contains(out, `placeholder="2026-11-29 10:00:00"`) {
			t.Errorf("%s: no time field shows the console's format", name)
		}
	}
}
