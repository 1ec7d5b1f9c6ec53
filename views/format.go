// Package views holds the console's templ components and the view models they render.
// Nothing here does I/O: handlers build view models from service results.
package views

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"rmqconsole/freetext"
	"rmqconsole/i18n"
)

func statusTitle(ctx context.Context, status int) string {
	if http.StatusText(status) != "" {
		return strconv.Itoa(status) + " " + T(ctx, "status."+strconv.Itoa(status))
	}
	return strconv.Itoa(status)
}

// Thousands formats n with thin separators for dense tables: 1234567 → "1,234,567".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// TimeUTC formats t for a table cell: ISO-like, seconds, always with its zone.
func TimeUTC(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000 UTC")
}

// ISO formats t as RFC 3339 in UTC with milliseconds, for datetime attributes and exports.
func ISO(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// Percent formats a ratio 0..1 as "42.0 %".
func Percent(r float64) string {
	return strconv.FormatFloat(r*100, 'f', 1, 64) + " %"
}

// Rate formats a per-second rate with up to two decimals.
func Rate(r float64) string {
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// maxEcho is how much of a name the console repeats back: every real topic or group
// name fits (RocketMQ allows 255 characters, and they are far shorter in practice),
// while a pasted page of text does not fill the screen.
const maxEcho = 80

// Cut shortens what a user typed for repeating it back in a heading or a sentence;
// what the free-text rule refuses (control characters, direction overrides, bytes that
// are not UTF-8) is repeated escaped, never as it came.
func Cut(s string) string {
	if !freetext.Allowed(s) {
		return freetext.Quote(s)
	}
	return freetext.Cut(s, maxEcho)
}

// Bytes formats a byte count in binary units: "0 B", "512 B", "1.5 KiB", "3.2 MiB".
func Bytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
}

// Behind writes an age for a time-behind cell, in English.
func Behind(d time.Duration) string { return BehindIn(i18n.From(context.Background()), d) }

// BehindIn writes an age for a time-behind cell in l's language, two units at most:
// "0 s", "4.2 s", "3 min 12 s", "2 h 5 min", "3 d 4 h" (Chinese "3 分 12 秒", "2 小时 5 分").
func BehindIn(l *i18n.Localizer, d time.Duration) string {
	switch {
	case d < time.Second:
		return l.T("format.behind.s", "S", "0")
	case d < time.Minute:
		return l.T("format.behind.s", "S", strconv.FormatFloat(d.Seconds(), 'f', 1, 64))
	case d < time.Hour:
		return l.T("format.behind.ms", "M", int(d/time.Minute), "S", int(d%time.Minute/time.Second))
	case d < 24*time.Hour:
		return l.T("format.behind.hm", "H", int(d/time.Hour), "M", int(d%time.Hour/time.Minute))
	}
	return l.T("format.behind.dh", "D", int(d/(24*time.Hour)), "H", int(d%(24*time.Hour)/time.Hour))
}

// DurationIn writes a duration as Duration does in English ("2m", "1h30m") and in
// words in Chinese ("2 分钟", "1 小时 30 分钟"), for a sentence of l's language.
func DurationIn(l *i18n.Localizer, d time.Duration) string {
	if !l.IsChinese() {
		return Duration(d)
	}
	return SpanIn(l, d)
}

// SpanIn writes d in l's units, largest first, leaving out the zero ones: "1 h 30 min",
// "2 分钟", "1.5 秒", "20 毫秒". Under a minute it keeps a tenth of a second.
func SpanIn(l *i18n.Localizer, d time.Duration) string {
	if d < 0 {
		return "-" + SpanIn(l, -d)
	}
	if d > 0 && d < time.Second {
		return l.T("format.span.ms", "N", d.Milliseconds())
	}
	if d < time.Minute {
		s := strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64)
		return l.T("format.span.s", "N", s)
	}
	var parts []string
	for _, u := range []struct {
		id   string
		unit time.Duration
	}{{"format.span.d", 24 * time.Hour}, {"format.span.h", time.Hour}, {"format.span.m", time.Minute}, {"format.span.s", time.Second}} {
		if n := d / u.unit; n > 0 {
			parts = append(parts, l.T(u.id, "N", int64(n)))
			d -= n * u.unit
		}
	}
	return strings.Join(parts, " ")
}

// Duration writes a duration the short way people say it: "30s", "5m", "2h", "7d",
// "1h30m".
func Duration(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d >= time.Minute && d%time.Minute == 0:
		s := d.String()
		return strings.TrimSuffix(s, "0s")
	}
	return d.String()
}
