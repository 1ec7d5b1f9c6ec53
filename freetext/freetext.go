// Package freetext is the console's one rule for the text people type that it keeps,
// shows or sends on (reasons, names, URLs, search filters): a bound on its length per
// field, and none of
//   - bytes that are not UTF-8 (PostgreSQL refuses them, and so would a page),
//   - control characters — NUL, ESC, CR, LF, tab and the other C0 and C1 controls —
//     nor the Unicode line and paragraph separators, which break lines, logs and
//     exports and can hide what follows on a terminal,
//   - the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
//     U+2066–U+2069), which make text read differently from what it holds.
//
// Each field is checked once, where its service (or, for a query string that goes
// straight to a store, its handler) first reads it: before it reaches a store or a
// broker. Refused text that must still be kept or shown — in the entry that records a
// refusal, in the sentence that refuses it — is escaped first (Shown).
package freetext

import (
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"rmqconsole/i18n"
)

// Field is one kind of free text: its name in forms and the API, what sentences call
// it, and the most characters it takes.
type Field struct {
	Name  string
	Label i18n.Message
	Max   int
}

// Bounds shared by several fields, in characters.
const (
	// NameMax bounds names and search terms.
	NameMax = 255
	// ReasonMax bounds the reason an operator gives for a change.
	ReasonMax = 1000
)

// The console's free-text fields. README's table of limits lists the same.
var (
	ResetReason  = Field{"reason", i18n.M("freetext.field.reset_reason"), ReasonMax}
	ResendReason = Field{"reason", i18n.M("freetext.field.resend_reason"), ReasonMax}
	AlertName    = Field{"name", i18n.M("freetext.field.alert_name"), 200}
	AlertGroup   = Field{"group", i18n.M("freetext.field.alert_group"), NameMax}
	WebhookURL   = Field{"webhookUrl", i18n.M("freetext.field.webhook_url"), 2048}
	TokenName    = Field{"name", i18n.M("freetext.field.token_name"), 64}
	UserName     = Field{"name", i18n.M("freetext.field.user_name"), 64}
	ListFilter   = Field{"q", i18n.M("freetext.field.filter"), NameMax}
	AuditGroup   = Field{"group", i18n.M("freetext.field.audit_group"), NameMax}
	AuditTopic   = Field{"topic", i18n.M("freetext.field.audit_topic"), NameMax}
	AuditActor   = Field{"actor", i18n.M("freetext.field.audit_actor"), NameMax}
	AuditCluster = Field{"cluster", i18n.M("freetext.field.audit_cluster"), NameMax}
	ClientID     = Field{"clientId", i18n.M("freetext.field.client_id"), NameMax}
	MessageKey   = Field{"key", i18n.M("freetext.field.message_key"), NameMax}
	MessageTag   = Field{"tag", i18n.M("freetext.field.message_tag"), NameMax}
)

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = errors.New("free text refused")

// Error is text the rule refuses: which field, the value as sent (escaped by Shown and
// cut), and a sentence saying what is wrong and what to do.
type Error struct {
	Field Field
	Value string
	say   i18n.Message
}

func (e *Error) Error() string { return e.say.String() }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Say is the sentence, for a page or the API to say in its reader's language.
func (e *Error) Say() i18n.Message { return e.say }

// shownMax bounds how much of a refused value its sentence quotes.
const shownMax = 80

// Check applies the rule to s as field f: nil, or an *Error.
func (f Field) Check(s string) error {
	if !utf8.ValidString(s) {
		at := 0
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				at = i
				break
			}
			i += n
		}
		return f.refuse(s, "freetext.not_utf8", "Byte", fmt.Sprintf("0x%02X", s[at]), "At", at+1)
	}
	if n := utf8.RuneCountInString(s); n > f.Max {
		return f.refuse(s, "freetext.too_long", "Len", n, "Max", f.Max)
	}
	at := 0
	for _, r := range s {
		at++
		if id := refusal(r); id != "" {
			return f.refuse(s, id, "Char", fmt.Sprintf("U+%04X", r), "At", at)
		}
	}
	return nil
}

// CheckAll applies the rule to each value of a field that takes several.
func (f Field) CheckAll(values []string) error {
	for _, v := range values {
		if err := f.Check(v); err != nil {
			return err
		}
	}
	return nil
}

func (f Field) refuse(s, id string, kv ...any) *Error {
	v := Quote(s)
	m := i18n.M(id, append([]any{"Field", f.Label, "Value", v}, kv...)...)
	return &Error{Field: f, Value: v, say: m}
}

// refusal is the catalogue's sentence for a character the rule refuses, "" for the
// others.
func refusal(r rune) string {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return "freetext.control"
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069':
		return "freetext.bidi"
	}
	return ""
}

// Allowed reports whether s holds only what the rule allows, whatever its length.
func Allowed(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if refusal(r) != "" {
			return false
		}
	}
	return true
}

// Shown is s fit to be kept and shown whatever it holds: s itself when Allowed, else
// quoted as a Go string literal, the refused characters and bytes escaped ("a\x00b",
// "\u202egnp.exe"), so a record of what was sent says exactly what it was and can be
// stored in any database.
func Shown(s string) string {
	if Allowed(s) {
		return s
	}
	return strconv.QuoteToGraphic(s)
}

// Quote is a value quoted for a sentence: at most shownMax characters of it (then an
// ellipsis), as a Go string literal whose refused characters are escaped.
func Quote(s string) string {
	return strconv.QuoteToGraphic(Cut(s, shownMax+1))
}

// Cut is s in at most n characters: when it is longer, its first n-1 and an ellipsis.
// It cuts between characters, never inside one (a byte cut can split a Chinese
// character); the console's every shortened echo goes through it.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	kept := 0
	for i := range s {
		if kept == n-1 {
			return s[:i] + "…"
		}
		kept++
	}
	return s
}
