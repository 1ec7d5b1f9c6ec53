package handlers

import (
	"errors"
	"net/http"

	"rmqconsole/freetext"
	"rmqconsole/i18n"
)

// filterRefused applies the free-text rule to a list's search filter: nil, or the 400 of
// a filter it refuses, said in l's language; the filter is then escaped, for the form
// that shows it again.
func filterRefused(l *i18n.Localizer, filter *string) *UserError {
	var te *freetext.Error
	if err := freetext.ListFilter.Check(*filter); errors.As(err, &te) {
		*filter = freetext.Shown(*filter)
		return &UserError{Status: http.StatusBadRequest, Code: "bad_filter", Message: l.Say(te.Say()), Say: te.Say()}
	}
	return nil
}

// shownAll escapes, in place, what the free-text rule refuses in each of a form's
// values (freetext.Shown), for showing a refused form again: what was typed stays
// visible, and nothing the rule refuses reaches the page.
func shownAll(values ...*string) {
	for _, v := range values {
		*v = freetext.Shown(*v)
	}
}
