// Package i18n holds the console's message catalogues (English and Simplified Chinese)
// and picks the language of a request. Every sentence a user reads — pages, fragments,
// live frames, errors, notifications, CLI output — is looked up here by its id.
//
// The catalogues are TOML files in locales/, one per area and language
// (groups.en.toml, groups.zh-CN.toml), read with go-i18n, which also applies each
// language's plural rules. The Chinese follows the vocabulary of RocketMQ's own Chinese
// documentation (消费者组, 消费位点, 重置位点, 消息堆积, 死信队列, 重试队列, 消息轨迹, 重平衡, …).
package i18n

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed locales/*.toml
var locales embed.FS

// The languages the console speaks, the first being the fallback.
var (
	English = language.English
	Chinese = language.MustParse("zh-CN")
	tags    = []language.Tag{English, Chinese}
	matcher = language.NewMatcher(tags)
)

var bundle = mustLoad(locales)

func mustLoad(fsys fs.FS) *goi18n.Bundle {
	b, err := load(fsys)
	if err != nil {
		panic(err) // the catalogues are embedded: a broken one never passes the tests
	}
	return b
}

// load reads every catalogue file of fsys into a bundle.
func load(fsys fs.FS) (*goi18n.Bundle, error) {
	b := goi18n.NewBundle(English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	files, err := fs.Glob(fsys, "locales/*.toml")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		if _, err := b.ParseMessageFileBytes(data, path.Base(f)); err != nil {
			return nil, fmt.Errorf("catalogue %s: %w", f, err)
		}
	}
	return b, nil
}

// Localizer answers in one language.
type Localizer struct {
	tag     language.Tag
	l       *goi18n.Localizer
	printer *message.Printer
}

var english = newLocalizer(English)

func newLocalizer(tag language.Tag) *Localizer {
	return &Localizer{tag: tag, l: goi18n.NewLocalizer(bundle, tag.String()), printer: message.NewPrinter(tag)}
}

var byTag = map[language.Tag]*Localizer{English: english, Chinese: newLocalizer(Chinese)}

// Match returns the localizer of the first language of prefs the console speaks, each
// pref being a language tag or an Accept-Language header value; English when none.
func Match(prefs ...string) *Localizer {
	var wanted []language.Tag
	for _, p := range prefs {
		if p == "" {
			continue
		}
		ts, _, err := language.ParseAcceptLanguage(p)
		if err == nil {
			wanted = append(wanted, ts...)
		}
	}
	if len(wanted) == 0 {
		return english
	}
	_, i, conf := matcher.Match(wanted...)
	if conf == language.No {
		return english
	}
	return byTag[tags[i]]
}

// Lang is the language's BCP 47 tag, for the page's lang attribute and the cookie.
func (l *Localizer) Lang() string { return l.tag.String() }

// Languages lists the tags the console speaks, for the language switch.
func Languages() []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = t.String()
	}
	return out
}

// T returns the message id with its placeholders filled from kv, alternating names and
// values: T(id, "Group", g). A missing id comes back as itself, so a
// page shows it rather than an empty cell (the catalogue tests fail on it first).
func (l *Localizer) T(id string, kv ...any) string {
	return l.localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: l.data(kv)})
}

// N is T for a sentence about count things: the language's plural rule picks the form,
// and the count is there as {{.Count}}, formatted for the language.
func (l *Localizer) N(id string, count int, kv ...any) string {
	d := l.data(kv)
	d["Count"] = l.Int(int64(count))
	return l.localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: d, PluralCount: count})
}

func (l *Localizer) localize(cfg *goi18n.LocalizeConfig) string {
	s, err := l.l.Localize(cfg)
	if err != nil && s == "" {
		return cfg.MessageID
	}
	return s
}

// Int formats n with the language's digit grouping (12,345 in both languages).
func (l *Localizer) Int(n int64) string { return l.printer.Sprintf("%d", n) }

// data is kv as a template's values; a value that is itself a Message (a role, an
// action) is said in l's language, not in English.
func (l *Localizer) data(kv []any) map[string]any {
	d := make(map[string]any, len(kv)/2+1)
	for i := 0; i+1 < len(kv); i += 2 {
		d[fmt.Sprint(kv[i])] = l.value(kv[i+1])
	}
	return d
}

// value is v as a template's value in l's language: a Message, a Text, a Span or a
// Sayer is said in it; anything else is left to the template.
func (l *Localizer) value(v any) any {
	switch v := v.(type) {
	case Message:
		return l.Say(v)
	case Text:
		return l.SayText(v)
	case Span:
		return l.Span(time.Duration(v))
	case Sayer:
		return v.SayIn(l)
	}
	return v
}

// Sayer is a Message's value that says itself in each language in a way no catalogue
// entry can (a duration that one family of sentences rounds its own way in English).
// Encode stores it as its String, in English.
type Sayer interface {
	SayIn(l *Localizer) string
	String() string
}

type ctxKey struct{}

// With returns ctx carrying l, for the components rendered in it.
func With(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the localizer ctx carries; English when none (background work, tests).
func From(ctx context.Context) *Localizer {
	if l, ok := ctx.Value(ctxKey{}).(*Localizer); ok {
		return l
	}
	return english
}

// IsChinese reports whether l speaks Chinese, for the few formats that differ.
func (l *Localizer) IsChinese() bool { return strings.HasPrefix(l.tag.String(), "zh") }

// Message is a sentence a service hands up for the user — a refusal, a partial failure —
// kept as its id and values, so the handler says it in the request's language. Its
// String and Error say it in English, for logs and for callers without a request.
type Message struct {
	ID   string
	Args []any // alternating names and values, as T takes them
}

// M is the Message id with the values kv (alternating names and values).
func M(id string, kv ...any) Message { return Message{ID: id, Args: kv} }

func (m Message) String() string { return english.Say(m) }
func (m Message) Error() string  { return m.String() }

// Count is a Message's value "Count" that also picks the sentence's plural form, as N's
// count does: i18n.M("live.refused.views", "Count", i18n.Count(3)).
type Count int

// Say is m in l's language.
func (l *Localizer) Say(m Message) string {
	if m.ID == plainID && len(m.Args) == 2 {
		return fmt.Sprint(m.Args[1])
	}
	for i := 0; i+1 < len(m.Args); i += 2 {
		if n, ok := m.Args[i+1].(Count); ok && m.Args[i] == "Count" {
			return l.N(m.ID, int(n), m.Args...)
		}
	}
	return l.T(m.ID, m.Args...)
}

// TOr is the message id, or fallback when no catalogue has it: for values reported as
// codes (a role, a status) that the catalogues name when they know them.
func (l *Localizer) TOr(id, fallback string) string {
	s, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id})
	if err != nil || s == "" {
		return fallback
	}
	return s
}
