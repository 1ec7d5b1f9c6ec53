package rocketmq

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting so a hostile or corrupt body cannot exhaust
// the stack; real broker bodies nest fewer than ten levels.
const maxJSONDepth = 512

// NormalizeJSON turns a body written by fastjson (the JSON library brokers,
// NameServers and Java clients use) into strict JSON that encoding/json
// accepts. fastjson writes map keys that are not strings as they are:
//
//   - numeric keys bare: {0:"127.0.0.1:10911"} becomes {"0":"127.0.0.1:10911"};
//   - object keys as objects: a MessageQueue key in ConsumeStats.offsetTable,
//     {{"brokerName":"b","queueId":0,"topic":"T"}:{...}}, becomes a string key
//     holding the compact key JSON, {"{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}":{...}},
//     so callers decode into map[string]X and read each key with
//     ParseMessageQueueKey;
//   - true, false, null and bare identifiers as keys are quoted the same way;
//   - single-quoted strings become double-quoted.
//
// Input that is already valid JSON is returned unchanged (the same slice).
// Anything else is re-emitted compactly. Malformed input yields an error,
// never a panic. Use it for every body before encoding/json, so there is
// one place that knows fastjson's habits.
func NormalizeJSON(body []byte) ([]byte, error) {
	if json.Valid(body) {
		return body, nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		// Usually an error reply's missing body: say so plainly.
		return nil, errors.New("normalize JSON: the body is empty")
	}
	n := normalizer{in: body, out: make([]byte, 0, len(body)+len(body)/8+16)}
	n.skipSpace()
	if err := n.value(0); err != nil {
		return nil, err
	}
	n.skipSpace()
	if n.pos != len(n.in) {
		return nil, n.errorf("unexpected %s after the top-level value", n.describe())
	}
	if !json.Valid(n.out) {
		// A safety net: the normaliser should only emit valid JSON, but if
		// some input slips through, say so rather than pass it on.
		return nil, errors.New("normalize JSON: could not produce valid JSON from the body")
	}
	return n.out, nil
}

// ParseMessageQueueKey reads a map key produced by NormalizeJSON from a
// fastjson MessageQueue key, e.g. {"brokerName":"b","queueId":0,"topic":"T"}.
// All three fields must be present, since a partial key would silently
// name the wrong queue.
func ParseMessageQueueKey(key string) (MessageQueue, error) {
	var raw struct {
		Topic      *string `json:"topic"`
		BrokerName *string `json:"brokerName"`
		QueueID    *int    `json:"queueId"`
	}
	if err := json.Unmarshal([]byte(key), &raw); err != nil {
		return MessageQueue{}, fmt.Errorf("parse message queue key %q: %w", truncateForError(key), err)
	}
	if raw.Topic == nil || raw.BrokerName == nil || raw.QueueID == nil {
		return MessageQueue{}, fmt.Errorf("parse message queue key %q: topic, brokerName and queueId are all required", truncateForError(key))
	}
	return MessageQueue{Topic: *raw.Topic, BrokerName: *raw.BrokerName, QueueID: *raw.QueueID}, nil
}

// truncateForError keeps error messages readable when the input is huge.
func truncateForError(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// normalizer is a small recursive-descent parser that copies a lenient
// (fastjson) JSON text into strict, compact JSON.
type normalizer struct {
	in  []byte
	pos int
	out []byte
}

func (n *normalizer) errorf(format string, args ...any) error {
	return fmt.Errorf("normalize JSON at byte %d: %s", n.pos, fmt.Sprintf(format, args...))
}

func (n *normalizer) describe() string {
	if n.pos >= len(n.in) {
		return "end of input"
	}
	return strconv.QuoteRune(rune(n.in[n.pos]))
}

func (n *normalizer) skipSpace() { n.pos = spaceEnd(n.in, n.pos) }

// spaceEnd is the index of the first byte of b from i on that is not JSON white space.
func spaceEnd(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (n *normalizer) value(depth int) error {
	if depth > maxJSONDepth {
		return n.errorf("nesting deeper than %d levels", maxJSONDepth)
	}
	if n.pos >= len(n.in) {
		return n.errorf("unexpected end of input, expected a value")
	}
	switch c := n.in[n.pos]; {
	case c == '{':
		return n.object(depth)
	case c == '[':
		return n.array(depth)
	case c == '"' || c == '\'':
		return n.str()
	case c == '-' || (c >= '0' && c <= '9'):
		num, err := n.number()
		if err != nil {
			return err
		}
		n.out = append(n.out, num...)
		return nil
	default:
		word := n.word()
		switch string(word) {
		case "true", "false", "null":
			n.out = append(n.out, word...)
			return nil
		}
		return n.errorf("unexpected %s, expected a value", n.describe())
	}
}

func (n *normalizer) object(depth int) error {
	n.pos++ // '{'
	n.out = append(n.out, '{')
	n.skipSpace()
	if n.pos < len(n.in) && n.in[n.pos] == '}' {
		n.pos++
		n.out = append(n.out, '}')
		return nil
	}
	for {
		n.skipSpace()
		if err := n.key(depth); err != nil {
			return err
		}
		n.skipSpace()
		if n.pos >= len(n.in) || n.in[n.pos] != ':' {
			return n.errorf("unexpected %s, expected ':' after an object key", n.describe())
		}
		n.pos++
		n.out = append(n.out, ':')
		n.skipSpace()
		if err := n.value(depth + 1); err != nil {
			return err
		}
		n.skipSpace()
		if n.pos >= len(n.in) {
			return n.errorf("unexpected end of input inside an object")
		}
		switch n.in[n.pos] {
		case ',':
			n.pos++
			n.out = append(n.out, ',')
		case '}':
			n.pos++
			n.out = append(n.out, '}')
			return nil
		default:
			return n.errorf("unexpected %s, expected ',' or '}' in an object", n.describe())
		}
	}
}

// key copies one object key, turning every non-string key into a string
// that holds the key's strict, compact JSON text.
func (n *normalizer) key(depth int) error {
	if n.pos >= len(n.in) {
		return n.errorf("unexpected end of input, expected an object key")
	}
	c := n.in[n.pos]
	switch {
	case c == '"' || c == '\'':
		return n.str()
	case c == '{' || c == '[':
		// Normalise the key value on its own, then quote its text.
		saved := n.out
		n.out = nil
		err := n.value(depth + 1)
		keyJSON := n.out
		n.out = saved
		if err != nil {
			return err
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, keyJSON); err != nil {
			return n.errorf("object key is not valid JSON: %v", err)
		}
		n.out = appendJSONString(n.out, compact.Bytes())
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		num, err := n.number()
		if err != nil {
			return err
		}
		n.out = appendJSONString(n.out, num)
		return nil
	default:
		word := n.word()
		if len(word) == 0 {
			return n.errorf("unexpected %s, expected an object key", n.describe())
		}
		n.out = appendJSONString(n.out, word)
		return nil
	}
}

func (n *normalizer) array(depth int) error {
	n.pos++ // '['
	n.out = append(n.out, '[')
	n.skipSpace()
	if n.pos < len(n.in) && n.in[n.pos] == ']' {
		n.pos++
		n.out = append(n.out, ']')
		return nil
	}
	for {
		n.skipSpace()
		if err := n.value(depth + 1); err != nil {
			return err
		}
		n.skipSpace()
		if n.pos >= len(n.in) {
			return n.errorf("unexpected end of input inside an array")
		}
		switch n.in[n.pos] {
		case ',':
			n.pos++
			n.out = append(n.out, ',')
		case ']':
			n.pos++
			n.out = append(n.out, ']')
			return nil
		default:
			return n.errorf("unexpected %s, expected ',' or ']' in an array", n.describe())
		}
	}
}

// word reads a bare identifier (letters, digits, '_' and '$'), as fastjson
// accepts for unquoted field names and writes for true/false/null.
func (n *normalizer) word() []byte {
	start := n.pos
	for n.pos < len(n.in) {
		c := n.in[n.pos]
		if c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			n.pos++
			continue
		}
		break
	}
	return n.in[start:n.pos]
}

// number reads a JSON number and checks its grammar, so the output stays
// strict even when the input is not.
func (n *normalizer) number() ([]byte, error) {
	start := n.pos
	i := n.pos
	in := n.in
	if i < len(in) && in[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
		return i - s
	}
	intStart := i
	if d := digits(); d == 0 || (d > 1 && in[intStart] == '0') {
		n.pos = i
		return nil, n.errorf("malformed number %q", in[start:i])
	}
	if i < len(in) && in[i] == '.' {
		i++
		if digits() == 0 {
			n.pos = i
			return nil, n.errorf("malformed number %q", in[start:i])
		}
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		if digits() == 0 {
			n.pos = i
			return nil, n.errorf("malformed number %q", in[start:i])
		}
	}
	n.pos = i
	return in[start:i], nil
}

// str copies a string literal delimited by " or ' as a strict JSON string.
// Escapes valid in JSON are kept, \' becomes ', and raw control characters
// are escaped.
func (n *normalizer) str() error {
	quote := n.in[n.pos]
	n.pos++
	n.out = append(n.out, '"')
	for {
		if n.pos >= len(n.in) {
			return n.errorf("unterminated string")
		}
		c := n.in[n.pos]
		switch {
		case c == quote:
			n.pos++
			n.out = append(n.out, '"')
			return nil
		case c == '\\':
			if n.pos+1 >= len(n.in) {
				return n.errorf("unterminated string")
			}
			e := n.in[n.pos+1]
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				n.out = append(n.out, '\\', e)
				n.pos += 2
			case '\'':
				n.out = append(n.out, '\'')
				n.pos += 2
			case 'u':
				if n.pos+6 > len(n.in) || !isHex4(n.in[n.pos+2:n.pos+6]) {
					return n.errorf("malformed \\u escape")
				}
				n.out = append(n.out, n.in[n.pos:n.pos+6]...)
				n.pos += 6
			default:
				return n.errorf("invalid escape \\%c in a string", e)
			}
		case c == '"': // only reachable inside a single-quoted string
			n.out = append(n.out, '\\', '"')
			n.pos++
		case c < 0x20:
			n.out = append(n.out, `\u00`...)
			n.out = append(n.out, hexDigitsUpper[c>>4], hexDigitsUpper[c&0xF])
			n.pos++
		default:
			n.out = append(n.out, c)
			n.pos++
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !isHexDigit(c) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

const hexDigitsUpper = "0123456789ABCDEF"

// appendJSONString appends s as a quoted JSON string. Invalid UTF-8 is
// kept byte for byte, as encoding/json's decoder tolerates it.
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c < 0x20:
				dst = append(dst, `\u00`...)
				dst = append(dst, hexDigitsUpper[c>>4], hexDigitsUpper[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		dst = append(dst, c)
		i++
	}
	return append(dst, '"')
}
