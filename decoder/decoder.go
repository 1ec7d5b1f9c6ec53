// Package decoder renders message bodies for people: a Protobuf message through the
// type its topic is configured with, JSON pretty-printed, text as text, anything else
// as a hex dump — and says how each body was read ("Protobuf orders.v1.Order from
// orders.desc", "zlib-compressed JSON", "hex: not valid UTF-8").
//
// A Registry maps topics (exact names or patterns such as orders-*) to decoders; it is
// read from a TOML or YAML file (see Load) and checked whole before the console
// starts, with a sentence for a descriptor set that does not parse or a message type
// it lacks. A topic with no decoder, and a body its decoder cannot read, fall back to
// JSON, text or hex, which always succeed.
//
// Bodies arrive decompressed: rocketmq.Message inflates what clients compress (the
// remoting clients' zlib, LZ4 and zstd, chosen by the sysFlag; RocketMQ 5 gRPC clients
// send bodies uncompressed). Decode says when a body was stored compressed.
package decoder

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Kind is what a rendered body is.
type Kind string

const (
	KindProtobuf Kind = "protobuf" // a Protobuf message, rendered as JSON
	KindJSON     Kind = "json"     // JSON, indented
	KindText     Kind = "text"     // UTF-8 text as it is
	KindHex      Kind = "hex"      // a hex dump: offset, bytes, printable characters
)

// Decoded is a body rendered for a person.
type Decoded struct {
	// Text is the whole body rendered: indented JSON for Protobuf and JSON bodies.
	Text string
	Kind Kind
	// How says how the body was read, for the page to show beside it.
	How i18n.Message
	// Problem says why the topic's decoder did not apply, or why the stored body
	// could not be decompressed; zero when there was none.
	Problem i18n.Message

	raw []byte // the body, for a hex preview
}

// IsJSON reports whether Text is JSON (a JSON body, or a Protobuf one rendered), so a
// JSON field filter can be applied to it.
func (d Decoded) IsJSON() bool { return d.Kind == KindJSON || d.Kind == KindProtobuf }

// Preview is the start of the rendering on one line, at most n characters: JSON
// compacted, text with its line breaks and tabs as spaces, what was cut marked with …
func (d Decoded) Preview(n int) string {
	s := d.Text
	if d.IsJSON() {
		var b bytes.Buffer
		if json.Compact(&b, []byte(s)) == nil {
			s = b.String()
		}
	} else if d.Kind == KindHex {
		s = hex.EncodeToString(d.raw[:min(len(d.raw), n/2+1)])
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:max(n-1, 0)]) + "…"
}

// Decode renders a body with no decoder configured: JSON when it is a JSON object or
// array, text when it is UTF-8 without control characters, hex otherwise.
func Decode(m *rocketmq.Message) Decoded {
	return finish(m, sniff(m.Body))
}

// sniff picks JSON, text or hex by looking at the body.
func sniff(body []byte) Decoded {
	if len(body) == 0 {
		return Decoded{Kind: KindText, How: i18n.M("decode.how.empty")}
	}
	if d, ok := asJSON(body); ok {
		return d
	}
	return asText(body)
}

func asHex(body []byte, how i18n.Message) Decoded {
	return Decoded{Text: hexDump(body), Kind: KindHex, How: how, raw: body}
}

// asJSON renders an object or an array indented; a bare number or string stays text.
func asJSON(body []byte) (Decoded, bool) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') || !json.Valid(t) {
		return Decoded{}, false
	}
	var b bytes.Buffer
	if err := json.Indent(&b, t, "", "  "); err != nil {
		return Decoded{}, false
	}
	return Decoded{Text: b.String(), Kind: KindJSON, How: i18n.M("decode.how.json")}, true
}

// asText is text when the body is UTF-8 without control characters (other than tabs,
// line breaks and form feeds), else hex with the reason: a binary body is often valid
// UTF-8 by chance, and its NULs and control bytes would not show.
func asText(body []byte) Decoded {
	if !utf8.Valid(body) {
		return asHex(body, i18n.M("decode.how.hex.binary"))
	}
	if bytes.ContainsFunc(body, func(r rune) bool {
		return r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f
	}) {
		return asHex(body, i18n.M("decode.how.hex.control"))
	}
	return Decoded{Text: string(body), Kind: KindText, How: i18n.M("decode.how.text")}
}

// finish adds what the store did to the body: its compression, or why it could not be
// undone.
func finish(m *rocketmq.Message, d Decoded) Decoded {
	switch {
	case m.BodyError != "":
		if d.Problem.ID == "" {
			d.Problem = i18n.M("decode.problem.stored", "Error", m.BodyError)
		}
	case m.BodyCompressed && m.Compression != "":
		d.How = i18n.M("decode.how.compressed", "Codec", m.Compression, "What", d.How)
	}
	return d
}

// hexDump is the body as xxd shows it: 16 bytes a line, offset, hex, printable ASCII.
func hexDump(b []byte) string {
	var s strings.Builder
	s.Grow(len(b)/16*76 + 76)
	const digits = "0123456789abcdef"
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		for shift := 28; shift >= 0; shift -= 4 {
			s.WriteByte(digits[off>>shift&0xF])
		}
		s.WriteString(": ")
		for i := range 16 {
			if i < len(line) {
				s.WriteByte(digits[line[i]>>4])
				s.WriteByte(digits[line[i]&0xF])
			} else {
				s.WriteString("  ")
			}
			if i%2 == 1 {
				s.WriteByte(' ')
			}
		}
		s.WriteByte(' ')
		for _, c := range line {
			if c >= 0x20 && c < 0x7f {
				s.WriteByte(c)
			} else {
				s.WriteByte('.')
			}
		}
		s.WriteByte('\n')
	}
	return s.String()
}
