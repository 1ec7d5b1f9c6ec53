package views

import "github.com/a-h/templ"

// invalidIf is a form field's state: aria-invalid="true" when its sentence says what is
// wrong, and nothing otherwise. The console never checks a field as right, so it never
// sets "false" (Pico's green tick, and green error text under it). Every form, rendered
// whole or swapped in by htmx, takes its fields' state from here.
func invalidIf(msg string) templ.Attributes {
	if msg != "" {
		return templ.Attributes{"aria-invalid": "true"}
	}
	return nil
}
