package i18n

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Span is a duration as a Message's value: said rounded to what a person reads, "3h20m"
// in English and "3 小时 20 分钟" in Chinese.
type Span time.Duration

func (s Span) String() string { return FormatSpan(time.Duration(s)) }

// FormatSpan writes a duration rounded to what a person reads: "45s", "12m", "3h20m", "2d5h".
func FormatSpan(d time.Duration) string {
	var b strings.Builder
	for _, p := range spanParts(d) {
		b.WriteString(strconv.Itoa(p.n) + p.unit)
	}
	return b.String()
}

// Span is d in l's language: FormatSpan's in English, in words in Chinese ("3 小时 20 分钟").
func (l *Localizer) Span(d time.Duration) string {
	if !l.IsChinese() {
		return FormatSpan(d)
	}
	var parts []string
	for _, p := range spanParts(d) {
		parts = append(parts, l.T("format.span."+p.unit, "N", p.n))
	}
	return strings.Join(parts, " ")
}

type spanPart struct {
	n    int
	unit string // d, h, m or s
}

// spanParts rounds d to what a person reads and splits it in at most two units.
func spanParts(d time.Duration) []spanPart {
	switch {
	case d < time.Minute:
		return []spanPart{{int(d.Round(time.Second) / time.Second), "s"}}
	case d < time.Hour:
		m := d.Round(time.Second)
		if s := int(m/time.Second) % 60; s != 0 && m < 10*time.Minute {
			return []spanPart{{int(m / time.Minute), "m"}, {s, "s"}}
		}
		return []spanPart{{int(d.Round(time.Minute) / time.Minute), "m"}}
	case d < 48*time.Hour:
		h := d.Round(time.Minute)
		out := []spanPart{{int(h / time.Hour), "h"}}
		if m := int(h/time.Minute) % 60; m != 0 {
			out = append(out, spanPart{m, "m"})
		}
		return out
	}
	h := d.Round(time.Hour)
	out := []spanPart{{int(h / (24 * time.Hour)), "d"}}
	if r := int(h/time.Hour) % 24; r != 0 {
		out = append(out, spanPart{r, "h"})
	}
	return out
}

// Plain is text that reads the same in every language — what a broker said, a name, or
// a sentence stored as English before sentences were stored as messages.
func Plain(s string) Message { return Message{ID: plainID, Args: []any{"Text", s}} }

// plainID marks a Plain message; no catalogue has it.
const plainID = "\x00plain"

// PlainText is s as a Text said as it is; empty when s is.
func PlainText(s string) Text {
	if s == "" {
		return nil
	}
	return Text{Plain(s)}
}

// PlainOf is the text of a Plain message; ok is false for a catalogue's message.
func PlainOf(m Message) (s string, ok bool) {
	if m.ID != plainID || len(m.Args) != 2 {
		return "", false
	}
	s, ok = m.Args[1].(string)
	return s, ok
}

// Text is sentences said one after the other as one: a note built up as a result
// travels ("lag unknown: …", then "… and one more reason"). In English the sentences
// are joined by a space, in Chinese without one.
type Text []Message

// TextOf is the sentences ms as one Text.
func TextOf(ms ...Message) Text { return Text(ms) }

// And is t followed by m.
func (t Text) And(m Message) Text { return append(t[:len(t):len(t)], m) }

// String says t in English, for logs and the JSON API.
func (t Text) String() string { return english.SayText(t) }

// MarshalJSON writes t as its English sentence: the API's language.
func (t Text) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }

// SayText is t in l's language.
func (l *Localizer) SayText(t Text) string {
	parts := make([]string, 0, len(t))
	for _, m := range t {
		if s := l.Say(m); s != "" {
			parts = append(parts, s)
		}
	}
	if l.IsChinese() {
		return strings.Join(parts, "")
	}
	return strings.Join(parts, " ")
}

// Encode writes t for storage, so that what is read back later is said in its reader's
// language: each message's id and values, values that are messages, texts and spans
// kept as such.
func Encode(t Text) (string, error) {
	ms := make([]storedMessage, len(t))
	for i, m := range t {
		sm, err := storeMessage(m)
		if err != nil {
			return "", err
		}
		ms[i] = sm
	}
	b, err := json.Marshal(ms)
	return string(b), err
}

// Decode reads what Encode wrote. Anything else — a sentence stored as English before
// sentences were stored as messages — comes back as Plain text, said as it is.
func Decode(s string) Text {
	if s == "" {
		return nil
	}
	if !strings.HasPrefix(s, "[{") {
		return Text{Plain(s)}
	}
	var ms []storedMessage
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&ms); err != nil {
		return Text{Plain(s)}
	}
	t := make(Text, len(ms))
	for i, sm := range ms {
		t[i] = sm.message()
	}
	return t
}

// storedMessage is a Message as Encode writes it: {"id": "...", "args": ["Name", value, ...]}
// where a value is a string, a number, or {"msg":…}, {"text":[…]}, {"span":ms}.
type storedMessage struct {
	ID   string            `json:"id"`
	Args []json.RawMessage `json:"args,omitempty"`
}

type storedValue struct {
	Msg  *storedMessage  `json:"msg,omitempty"`
	Text []storedMessage `json:"text,omitempty"`
	Span *int64          `json:"span,omitempty"`
}

func storeMessage(m Message) (storedMessage, error) {
	sm := storedMessage{ID: m.ID, Args: make([]json.RawMessage, len(m.Args))}
	for i, a := range m.Args {
		v, err := storeValue(a)
		if err != nil {
			return storedMessage{}, fmt.Errorf("message %s, value %d: %w", m.ID, i, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return storedMessage{}, err
		}
		sm.Args[i] = b
	}
	return sm, nil
}

func storeValue(a any) (any, error) {
	switch v := a.(type) {
	case Message:
		sm, err := storeMessage(v)
		return storedValue{Msg: &sm}, err
	case Text:
		ms := make([]storedMessage, len(v))
		for i, m := range v {
			sm, err := storeMessage(m)
			if err != nil {
				return nil, err
			}
			ms[i] = sm
		}
		return storedValue{Text: ms}, nil
	case Span:
		ms := time.Duration(v).Milliseconds()
		return storedValue{Span: &ms}, nil
	case string, bool, int, int32, int64, uint32, uint64, float64:
		return v, nil
	case fmt.Stringer:
		return v.String(), nil
	}
	return nil, fmt.Errorf("a value of type %T cannot be stored", a)
}

func (sm storedMessage) message() Message {
	m := Message{ID: sm.ID, Args: make([]any, len(sm.Args))}
	for i, raw := range sm.Args {
		m.Args[i] = loadValue(raw)
	}
	return m
}

func loadValue(raw json.RawMessage) any {
	if bytes.HasPrefix(raw, []byte("{")) {
		var v storedValue
		if json.Unmarshal(raw, &v) == nil {
			switch {
			case v.Msg != nil:
				return v.Msg.message()
			case v.Text != nil:
				t := make(Text, len(v.Text))
				for i, sm := range v.Text {
					t[i] = sm.message()
				}
				return t
			case v.Span != nil:
				return Span(time.Duration(*v.Span) * time.Millisecond)
			}
		}
		return string(raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, _ := n.Float64()
		return f
	}
	return v
}

// Series is ms said as one list, each but the last followed by the separator of the
// catalogue's sep ("format.list.comma": "a, b, c"; "format.list.semicolon": "a; b; c"),
// in the reader's language.
func Series(sep string, ms ...Message) Text {
	t := make(Text, len(ms))
	for i, m := range ms {
		if i < len(ms)-1 {
			m = M(sep, "Text", m)
		}
		t[i] = m
	}
	return t
}

// The separators Series takes.
const (
	ListComma     = "format.list.comma"
	ListSemicolon = "format.list.semicolon"
)
