package handlers

import (
	"strings"

	"rmqconsole/i18n"
	"rmqconsole/resets"
)

// sayInputError is why a reset's input was refused, in l's language.
func sayInputError(l *i18n.Localizer, e resets.InputError) string {
	if e.Say.ID != "" {
		return l.Say(e.Say)
	}
	return e.Message
}

// sayInputErrors is every reason a reset's input was refused, in l's language.
func sayInputErrors(l *i18n.Localizer, errs resets.InputErrors) string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = sayInputError(l, e)
	}
	return strings.Join(out, " ")
}

// resetAction names what applying p does, in l's language, for the button that applies
// it: "Reset 8 queues of group G to 2026-11-29 10:00:00 UTC" (resets.Plan.Action).
func resetAction(l *i18n.Localizer, p *resets.Plan) string {
	r := p.Request
	to := resetDescribe(l, r)
	switch {
	case len(p.Queues) == 1:
		q := p.Queues[0].Queue
		return l.T("reset.action.queue", "Broker", q.BrokerName, "Queue", q.QueueID, "Topic", q.Topic, "Group", r.Group, "To", to)
	case len(p.Topics) == 1:
		return l.T("reset.action.topic", "Queues", len(p.Queues), "Topic", p.Topics[0], "Group", r.Group, "To", to)
	}
	return l.T("reset.action", "Queues", len(p.Queues), "Group", r.Group, "To", to)
}

// resetDescribe says where a reset goes, in l's language (resets.Request.Describe).
func resetDescribe(l *i18n.Localizer, r resets.Request) string {
	switch r.Mode {
	case resets.ModeTimestamp:
		return l.T("reset.to.time", "Time", resets.FormatTime(r.Timestamp, r.TimeZone))
	case resets.ModeEarliest:
		return l.T("reset.to.earliest")
	case resets.ModeLatest:
		return l.T("reset.to.latest")
	case resets.ModeOffset:
		return l.T("reset.to.offset", "Offset", r.Offset)
	case resets.ModeShift:
		if r.Shift < 0 {
			return l.T("reset.to.back", "N", -r.Shift)
		}
		return l.T("reset.to.forward", "N", r.Shift)
	}
	return r.Describe()
}
