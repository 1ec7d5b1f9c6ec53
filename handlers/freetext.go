package handlers

import (
	"rmqconsole/fault"
	"rmqconsole/freetext"
)

// filterRefused applies the free-text rule to a list's search filter: nil, or its
// refusal (API code bad_filter); the filter is then escaped, for the form that shows it
// again.
func filterRefused(filter *string) *fault.Error {
	if fe := fault.As(freetext.ListFilter.Check(*filter)); fe != nil {
		*filter = freetext.Shown(*filter)
		return fe.Because("bad_filter")
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
