package views

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// messageRows writes the rows of a message table. A result holds up to 2000 messages and
// the page must render in a few milliseconds, so the rows are written directly rather
// than through templ's per-attribute machinery. Every value is still escaped as
// html.EscapeString does (message keys, tags and bodies are untrusted); a test checks the
// two agree.
//
// The body cell leads with a link that opens the whole body in a row under this one
// (app.js fetches it from BodyURL); without JavaScript it opens the message's page.
func messageRows(rows []MessageRow) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		expand := T(ctx, "messages.body.expand")
		sw, ok := w.(io.StringWriter)
		if !ok {
			sw = stringWriter{w}
		}
		var err error
		put := func(s string) {
			if err == nil {
				_, err = sw.WriteString(s)
			}
		}
		// esc writes s escaped exactly as html.EscapeString would, without building
		// the escaped copy.
		esc := func(s string) {
			last := 0
			for i := 0; i < len(s); i++ {
				var rep string
				switch s[i] {
				case '<':
					rep = "&lt;"
				case '>':
					rep = "&gt;"
				case '&':
					rep = "&amp;"
				case '\'':
					rep = "&#39;"
				case '"':
					rep = "&#34;"
				default:
					continue
				}
				put(s[last:i])
				put(rep)
				last = i + 1
			}
			put(s[last:])
		}
		for _, r := range rows {
			put(`<tr data-testid="message-row"><td class="nowrap">`)
			esc(r.StoreTime)
			put(`</td><td class="mono id">`)
			if r.UniqKeyURL != "" {
				put(`<a href="`)
				esc(r.UniqKeyURL)
				put(`" data-testid="uniq-link">`)
				esc(r.UniqKey)
				put(`</a>`)
			} else {
				esc(r.UniqKey)
			}
			put(`</td><td class="mono id"><a href="`)
			esc(r.DetailURL)
			put(`" title="`)
			esc(r.OffsetMsgID)
			put(`" data-testid="message-link">`)
			esc(r.OffsetMsgID)
			put(`</a></td><td class="mono">`)
			esc(r.Keys)
			put(`</td><td>`)
			esc(r.Tags)
			put(`</td><td class="mono nowrap">`)
			esc(r.Broker)
			put(` · `)
			esc(r.QueueID)
			put(` · `)
			esc(r.QueueOffset)
			put(`</td><td class="num">`)
			esc(r.Size)
			put(`</td><td class="preview">`)
			if r.BodyURL != "" {
				put(`<a class="expand" href="`)
				esc(r.DetailURL)
				put(`" data-body="`)
				esc(r.BodyURL)
				put(`" aria-expanded="false" title="`)
				esc(expand)
				put(`" aria-label="`)
				esc(expand)
				put(`" data-testid="body-expand">▸</a>`)
			}
			if r.Masked != "" {
				put(`<small class="muted masked" data-testid="row-masked">`)
				esc(r.Masked)
				put(`</small> `)
			}
			put(`<span data-testid="body-preview" title="`)
			esc(r.Preview)
			put(`">`)
			esc(r.Preview)
			put("</span></td></tr>\n")
		}
		return err
	})
}

type stringWriter struct{ io.Writer }

func (s stringWriter) WriteString(str string) (int, error) { return s.Write([]byte(str)) }
