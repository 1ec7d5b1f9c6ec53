package rocketmq

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// decodeBody reads a broker's JSON body (fastjson or standard) into v.
func decodeBody(body []byte, v any) error {
	if len(body) == 0 {
		return fmt.Errorf("empty body")
	}
	// Most answers are JSON already: decode them at once (Unmarshal checks the whole
	// body before it writes to v), and normalize only those that are not, as fastjson
	// writes maps with object keys.
	err := json.Unmarshal(body, v)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		norm, nerr := NormalizeJSON(body)
		if nerr != nil {
			return nerr
		}
		err = json.Unmarshal(norm, v)
	}
	if err != nil {
		return fmt.Errorf("decode body: %w", err)
	}
	return nil
}

// queueKeyed turns a normalized map keyed by MessageQueue JSON into a map
// keyed by MessageQueue.
func queueKeyed[V any](in map[string]V) (map[MessageQueue]V, error) {
	out := make(map[MessageQueue]V, len(in))
	for k, v := range in {
		mq, err := ParseMessageQueueKey(k)
		if err != nil {
			return nil, err
		}
		out[mq] = v
	}
	return out, nil
}

// header reads an integer field of a response header.
func headerInt64(resp *command, key string) (int64, error) {
	s, ok := resp.ExtFields[key]
	if !ok {
		return 0, fmt.Errorf("response header has no %s", key)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("response header %s=%q: %w", key, s, err)
	}
	return v, nil
}

// headerInt64Or reads an optional integer field of a response header.
func headerInt64Or(resp *command, key string, def int64) int64 {
	if v, err := headerInt64(resp, key); err == nil {
		return v
	}
	return def
}

func itoa(v int) string     { return strconv.Itoa(v) }
func i64toa(v int64) string { return strconv.FormatInt(v, 10) }
func btoa(v bool) string    { return strconv.FormatBool(v) }

// flexString decodes a JSON string, number or boolean as its text; fastjson
// writes enums by name, Go clients sometimes by ordinal.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexString(s)
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	*f = flexString(b)
	return nil
}

// flexFloat decodes a number, a numeric string or null (fastjson writes NaN
// and infinities as null) as a float64.
type flexFloat float64

func (f *flexFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil // lenient: a statistic is not worth failing a page for
		}
		*f = flexFloat(v)
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = flexFloat(v)
	return nil
}
