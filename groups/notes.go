package groups

import (
	"context"
	"strings"
	"sync"
	"time"

	"rmqconsole/i18n"
)

// The sentences this package writes for people — why a lag is unknown, what a total
// leaves out, why a client did not report — stay English strings in its results, the
// language of the JSON API, and pages say them in their own language with SayNote: note
// remembers each sentence's catalogue messages under its English text. Sentences are
// copied from queue to group and joined, so the text is the key that follows them.

// noteBookSize bounds the sentences remembered; past it the book starts again (a note
// written before and shown after reads in English).
const noteBookSize = 8192

var noteBook = struct {
	sync.Mutex
	m map[string][]i18n.Message
}{m: map[string][]i18n.Message{}}

// note writes the sentences ms in English, one after the other, and remembers them for
// SayNote.
func note(ms ...i18n.Message) string {
	s := sayAll(english, ms)
	noteBook.Lock()
	if len(noteBook.m) >= noteBookSize {
		clear(noteBook.m)
	}
	noteBook.m[s] = ms
	noteBook.Unlock()
	return s
}

var english = i18n.From(context.Background())

// SayNote is a sentence of this package's results in l's language: the messages note
// wrote it from, or the text as it is (an error from elsewhere, an empty string).
func SayNote(l *i18n.Localizer, s string) string {
	if s == "" {
		return ""
	}
	noteBook.Lock()
	ms, ok := noteBook.m[s]
	noteBook.Unlock()
	if !ok {
		return s
	}
	return sayAll(l, ms)
}

func sayAll(l *i18n.Localizer, ms []i18n.Message) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = Say(l, m)
	}
	if l.IsChinese() {
		return strings.Join(parts, "")
	}
	return strings.Join(parts, " ")
}

// Say is m in l's language; the values that are sentences of their own (noted) or
// spans are said in it too.
func Say(l *i18n.Localizer, m i18n.Message) string {
	args := make([]any, len(m.Args))
	for i, a := range m.Args {
		switch v := a.(type) {
		case i18n.Message:
			a = Say(l, v)
		case noted:
			a = SayNote(l, string(v))
		case agoArg:
			if l.IsChinese() {
				a = FormatSpanIn(l, time.Duration(v))
			}
		}
		args[i] = a
	}
	return l.T(m.ID, args...)
}

// noted is a value of a message that is itself a noted sentence.
type noted string

func (n noted) String() string { return string(n) }

// appendNote is the sentence prev (a note, or "") followed by m.
func appendNote(prev string, m i18n.Message) string {
	if prev == "" {
		return note(m)
	}
	return note(i18n.M("group.note", "Text", noted(prev)), m)
}
