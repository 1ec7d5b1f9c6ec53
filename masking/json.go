package masking

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// jsonPath is a field of a JSON body as rules name it, in the dotted form the message
// filter's JSON condition takes: customer.email, items.#.card (every element),
// items.0.card (the first), a\.b (a key holding a dot). Its steps are keys, indexes, or
// "#".
type jsonPath []string

// everyElement is the step that matches every element of an array.
const everyElement = "#"

// parsePath reads a rule's JSON path; ok is false, with the step at fault, when a step
// is empty or uses what only queries take (wildcards, modifiers, conditions): a mask
// must name exactly the fields it hides.
func parsePath(s string) (p jsonPath, bad string, ok bool) {
	if s == "" {
		return nil, "", false
	}
	var step strings.Builder
	flush := func() bool {
		if step.Len() == 0 {
			return false
		}
		p = append(p, step.String())
		step.Reset()
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			step.WriteByte(s[i])
		case c == '.':
			if !flush() {
				return nil, s[:i+1], false
			}
		case strings.IndexByte("*?@|()[]$!=<>", c) >= 0:
			return nil, string(c), false
		default:
			step.WriteByte(c)
		}
	}
	if !flush() {
		return nil, s, false
	}
	for _, st := range p {
		if strings.Contains(st, everyElement) && st != everyElement {
			return nil, st, false
		}
	}
	return p, "", true
}

// at is one step into a document: a key of an object, or an index of an array.
type at struct {
	key   string
	index int // -1 for a key
}

// matches reports whether the steps taken so far are exactly p.
func (p jsonPath) matches(steps []at) bool {
	if len(p) != len(steps) {
		return false
	}
	for i, s := range steps {
		want := p[i]
		switch {
		case s.index < 0:
			if want != s.key {
				return false
			}
		case want == everyElement:
		default:
			if n, err := strconv.Atoi(want); err != nil || n != s.index {
				return false
			}
		}
	}
	return true
}

// maskJSON rewrites a JSON body with the values at paths replaced by Marker and
// patterns masked in its strings; keys, their order and the document's shape stay.
// ok is false when the body is not one JSON document.
func maskJSON(body []byte, paths []jsonPath, patterns []*regexp.Regexp) ([]byte, bool) {
	if !json.Valid(body) {
		return nil, false
	}
	w := &jsonMasker{d: json.NewDecoder(bytes.NewReader(body)), paths: paths, patterns: patterns}
	w.d.UseNumber()
	w.enc = json.NewEncoder(&w.out)
	w.enc.SetEscapeHTML(false)
	if err := w.value(nil); err != nil {
		return nil, false
	}
	if _, err := w.d.Token(); err != io.EOF {
		return nil, false
	}
	return w.out.Bytes(), true
}

type jsonMasker struct {
	d        *json.Decoder
	enc      *json.Encoder
	out      bytes.Buffer
	paths    []jsonPath
	patterns []*regexp.Regexp
}

func (w *jsonMasker) masked(steps []at) bool {
	for _, p := range w.paths {
		if p.matches(steps) {
			return true
		}
	}
	return false
}

// value copies the next value of the document, masked.
func (w *jsonMasker) value(steps []at) error {
	if w.masked(steps) {
		var skip json.RawMessage
		if err := w.d.Decode(&skip); err != nil {
			return err
		}
		w.str(Marker)
		return nil
	}
	tok, err := w.d.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		object := t == '{'
		w.out.WriteByte(byte(t))
		for i := 0; w.d.More(); i++ {
			if i > 0 {
				w.out.WriteByte(',')
			}
			step := at{index: i}
			if object {
				k, err := w.d.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				w.str(key)
				w.out.WriteByte(':')
				step = at{key: key, index: -1}
			}
			if err := w.value(append(steps[:len(steps):len(steps)], step)); err != nil {
				return err
			}
		}
		end, err := w.d.Token()
		if err != nil {
			return err
		}
		w.out.WriteByte(byte(end.(json.Delim)))
	case string:
		for _, re := range w.patterns {
			t = re.ReplaceAllLiteralString(t, Marker)
		}
		w.str(t)
	case json.Number:
		w.out.WriteString(t.String())
	case bool:
		w.out.WriteString(strconv.FormatBool(t))
	case nil:
		w.out.WriteString("null")
	}
	return nil
}

// str writes s as a JSON string, without escaping <, > and & as HTML would need.
func (w *jsonMasker) str(s string) {
	_ = w.enc.Encode(s)
	w.out.Truncate(w.out.Len() - 1) // Encode ends with a newline
}
