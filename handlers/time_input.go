package handlers

import (
	"strconv"
	"strings"
	"time"

	"rmqconsole/fault"
	"rmqconsole/freetext"
)

// timeInputLayouts are the zone-less forms a time field takes, read in the field's zone:
// the console's own format (seconds and their fractions optional), the same with a "T"
// (links made when forms used datetime-local inputs), and a date alone (its midnight).
var timeInputLayouts = []string{
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02",
}

// minEpochMillis is the smallest number taken as epoch milliseconds: anything below is
// before 1973 in milliseconds, and far likelier someone's epoch seconds.
const minEpochMillis = 100_000_000_000

// parseTimeInput reads a time as every form and API of the console takes it: RFC 3339
// (its own zone wins), epoch milliseconds, or a zone-less time of timeInputLayouts in
// loc. The time comes back in loc; an empty string is the zero time. What it cannot
// read is an Invalid *fault.Error whose sentence quotes the value and names loc; the
// caller sets the field (On).
func parseTimeInput(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < minEpochMillis {
			return time.Time{}, fault.New(fault.Invalid, "format.time.seconds", "Value", strconv.Quote(s), "Millis", strconv.FormatInt(n*1000, 10))
		}
		return time.UnixMilli(n).In(loc), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.In(loc), nil
	}
	for _, l := range timeInputLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fault.New(fault.Invalid, "format.time.bad", "Value", freetext.Quote(s), "Zone", loc.String())
}
