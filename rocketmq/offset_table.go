package rocketmq

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// parseOffsetTable reads GET_ALL_CONSUMER_OFFSET's body, group → topic → queue id →
// committed offset, in one pass over the bytes. A broker of 10 000 groups answers
// megabytes of it, written by fastjson with bare integer keys ({"T@g":{0:12}}), which
// the generic path first rewrites as JSON and then decodes by reflection: five times
// slower, and most of a group list pass. A body this reader does not expect is an
// error, and the caller falls back to the generic path.
func parseOffsetTable(body []byte) (map[string]map[string]map[int]int64, error) {
	s := &jsonScan{b: body}
	out := map[string]map[string]map[int]int64{}
	err := s.object(func(key string) error {
		if key != "offsetTable" {
			return s.skip()
		}
		return s.object(func(key string) error {
			topic, group, ok := strings.Cut(key, "@")
			if !ok {
				return fmt.Errorf("key %q is not topic@group", key)
			}
			qs := map[int]int64{}
			if err := s.object(func(id string) error {
				n, err := strconv.Atoi(id)
				if err != nil {
					return fmt.Errorf("queue id %q of %s: %w", id, key, err)
				}
				qs[n], err = s.int()
				return err
			}); err != nil {
				return err
			}
			byTopic := out[group]
			if byTopic == nil {
				byTopic = map[string]map[int]int64{}
				out[group] = byTopic
			}
			byTopic[topic] = qs
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if s.ws(); s.i != len(s.b) {
		return nil, s.fail("end of body")
	}
	return out, nil
}

// jsonScan reads the JSON that fastjson writes, keys bare or quoted, without reflection.
type jsonScan struct {
	b     []byte
	i     int
	depth int // of the values skip is inside, bounded as the normalizer bounds them
}

var errUnexpected = errors.New("unexpected input")

func (s *jsonScan) fail(want string) error {
	return fmt.Errorf("at byte %d: want %s: %w", s.i, want, errUnexpected)
}

func (s *jsonScan) ws() { s.i = spaceEnd(s.b, s.i) }

// next skips white space and reports whether the next byte is c, taking it if so.
func (s *jsonScan) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// list reads open, items separated by commas, and close, calling item for each.
func (s *jsonScan) list(open, close byte, item func() error) error {
	if !s.next(open) {
		return s.fail(string(open))
	}
	if s.next(close) {
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		if s.next(',') {
			continue
		}
		if s.next(close) {
			return nil
		}
		return s.fail(", or " + string(close))
	}
}

// object reads {key: value, ...}, calling member for each key with the value next.
func (s *jsonScan) object(member func(key string) error) error {
	return s.list('{', '}', func() error {
		key, err := s.key()
		if err != nil {
			return err
		}
		if !s.next(':') {
			return s.fail(":")
		}
		return member(key)
	})
}

// key is a quoted string or, as fastjson writes integer keys, a bare number.
func (s *jsonScan) key() (string, error) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '"' {
		return s.str()
	}
	if d := s.digits(); d != "" {
		return d, nil
	}
	return "", s.fail("a key")
}

// digits reads an optional minus sign and the digits after it ("" when none).
func (s *jsonScan) digits() string {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return string(s.b[start:s.i])
}

// str reads a quoted string; one with escapes is left to strconv, whose escapes are
// JSON's but \/ (never in a topic or group name).
func (s *jsonScan) str() (string, error) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", s.fail("a string")
	}
	start := s.i
	escaped := false
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			escaped = true
			s.i++
		case '"':
			s.i++
			if !escaped {
				return string(s.b[start+1 : s.i-1]), nil
			}
			v, err := strconv.Unquote(string(s.b[start:s.i]))
			if err != nil {
				return "", fmt.Errorf("at byte %d: %w", start, err)
			}
			return v, nil
		}
	}
	return "", s.fail("the end of a string")
}

// int reads an integer.
func (s *jsonScan) int() (int64, error) {
	start := s.i
	n, err := strconv.ParseInt(s.digits(), 10, 64)
	if err != nil {
		s.i = start
		return 0, s.fail("an integer")
	}
	return n, nil
}

// skip reads past one value of any kind.
func (s *jsonScan) skip() error {
	s.ws()
	if s.i >= len(s.b) {
		return s.fail("a value")
	}
	switch c := s.b[s.i]; c {
	case '{', '[':
		if s.depth++; s.depth > maxJSONDepth {
			return fmt.Errorf("at byte %d: nesting deeper than %d levels: %w", s.i, maxJSONDepth, errUnexpected)
		}
		defer func() { s.depth-- }()
		if c == '{' {
			return s.object(func(string) error { return s.skip() })
		}
		return s.list('[', ']', s.skip)
	case '"':
		_, err := s.str()
		return err
	default: // a number or a literal
		start := s.i
		for s.i < len(s.b) && strings.IndexByte("+-.0123456789eEtruefalsn", s.b[s.i]) >= 0 {
			s.i++
		}
		if s.i == start {
			return s.fail("a value")
		}
		return nil
	}
}
