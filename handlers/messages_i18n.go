package handlers

import (
	"errors"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
)

// lookupSay is a lookup input error in the request's language: its sentence when the
// lookup handed one up, else its English text.
func lookupSay(l *i18n.Localizer, ie *lookup.InputError) string {
	if ie.Text.ID != "" {
		return l.Say(ie.Text)
	}
	return ie.Message
}

// lookupErrorText is an error of the lookup (a message not found, an input error) in
// the request's language; other errors as they are.
func lookupErrorText(l *i18n.Localizer, err error) string {
	var nf *lookup.NotFoundError
	if errors.As(err, &nf) && nf.Text.ID != "" {
		s := l.Say(nf.Text)
		if nf.Also.ID != "" {
			s += " " + l.Say(nf.Also)
		}
		return s
	}
	var ie *lookup.InputError
	if errors.As(err, &ie) {
		return lookupSay(l, ie)
	}
	return err.Error()
}

// groupReason is why a group is in its state towards a message, in l's language.
func groupReason(l *i18n.Localizer, g lookup.GroupState) string {
	if g.ReasonText.ID == "" {
		return g.Reason
	}
	s := l.Say(g.ReasonText)
	if g.ReasonNote.ID != "" {
		s += " " + l.Say(g.ReasonNote)
	}
	return s
}
