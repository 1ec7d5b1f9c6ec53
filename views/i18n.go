package views

import (
	"context"

	"rmqconsole/i18n"
)

// T is the sentence id in the language of the request being rendered (i18n.Localizer.T).
// Components take the localizer from their ctx, where the request's middleware put it.
func T(ctx context.Context, id string, kv ...any) string { return i18n.From(ctx).T(id, kv...) }

// N is T for a sentence about count things, in the language's plural form.
func N(ctx context.Context, id string, count int, kv ...any) string {
	return i18n.From(ctx).N(id, count, kv...)
}

// languageName is each language's name in itself, as a language switch shows it.
func languageName(ctx context.Context, lang string) string { return T(ctx, "language."+lang) }
