// Package views holds the console's templ components and the view models they render.
// Nothing here does I/O: handlers build view models from service results.
package views

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// Cut shortens what a user typed for repeating it back in a heading or a sentence.
func Cut(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	r := []rune(s)
	if len(r) <= maxEcho {
		return s
	}
	return string(r[:maxEcho-1]) + "…"
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
