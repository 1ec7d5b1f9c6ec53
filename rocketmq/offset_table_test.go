package rocketmq

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The one-pass reader of an offset table answers what the generic path answers: for the
// captured answers of real brokers, and for what fastjson may also write (quoted keys,
// escapes, white space, fields around the table).
func TestOffsetTableReadInOnePassAsDecoded(t *testing.T) {
	bodies := map[string]string{
		"quoted ids":   `{"offsetTable":{"T@g":{"0":5,"1":-1}}}`,
		"escapes":      `{"offsetTable":{"T\u0041@g\"1":{0:5}}}`,
		"white space":  " {\n \"offsetTable\" : { \"T@g\" : { 0 : 5 , 3 : 9 } } }\n",
		"around":       `{"dataVersion":{"counter":3,"stateVersion":0,"timestamp":1700000000000},"groupTopicMap":{"g":["T"]},"offsetTable":{"T@g":{0:5}},"x":[1,[true,null],{"a":-1.5e3}]}`,
		"empty":        `{"offsetTable":{}}`,
		"none at all":  `{}`,
		"two topics":   `{"offsetTable":{"T@g":{0:5},"U@g":{0:7},"T@h":{2:1}}}`,
		"large offset": `{"offsetTable":{"T@g":{0:9007199254740993}}}`,
	}
	for f, b := range captured(t, "consumer_offsets.json") {
		bodies[f] = string(b)
	}
	for name, body := range bodies {
		got, err := parseOffsetTable([]byte(body))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, err := decodeOffsetTable([]byte(body))
		if err != nil {
			t.Fatalf("%s: the generic path: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
	if got, _ := parseOffsetTable([]byte(`{"offsetTable":{"T@g":{0:5}}}`)); got["g"]["T"][0] != 5 {
		t.Errorf("T@g queue 0: %v, want 5", got)
	}
	// What it does not expect is an error, for the generic path to take.
	deep := `{"x":` + strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1) + `,"offsetTable":{}}`
	for _, body := range []string{`{"offsetTable":{"Tg":{0:5}}}`, `{"offsetTable":{"T@g":{0:5}}`, `{"offsetTable":{"T@g":{a:5}}}`, `{"offsetTable":{"T@g":{0:5.5}}}`, `[]`, deep} {
		if got, err := parseOffsetTable([]byte(body)); err == nil {
			t.Errorf("%s: %v, want an error", body, got)
		}
	}
}

// The one-pass reader against the generic path, on an offset table of 12 500 groups
// (a broker of the 100x scale simulation): go test -run '^$' -bench OffsetTable ./rocketmq/
func BenchmarkOffsetTable(b *testing.B) {
	body := []byte(`{"offsetTable":{`)
	for g := range 12500 {
		if g > 0 {
			body = append(body, ',')
		}
		body = append(body, `"scale-topic-0`+strconv.Itoa(g%5000)+`@scale-group-0`+strconv.Itoa(g)+`":{0:123456,1:123457,2:123458,3:123459}`...)
	}
	body = append(body, "}}"...)
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseOffsetTable(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeOffsetTable(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The names read in one pass from a subscription group table are its keys, for the
// captured answers of real brokers and for a body only the generic path reads.
func TestGroupNamesReadInOnePassAsDecoded(t *testing.T) {
	bodies := captured(t, "subscription_groups.json")
	bodies["bare keys"] = []byte(`{"subscriptionGroupTable":{"g":{"groupName":"g","attributes":{}}},"forbiddenTable":{"g":{"T":1}},"dataVersion":{"counter":2}}`)
	for name, body := range bodies {
		var table SubscriptionGroupTable
		if err := decodeBody(body, &table); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := parseGroupNames(body)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(*got) != len(table.Groups) || len(*got) == 0 {
			t.Errorf("%s: %d names, want the table's %d", name, len(*got), len(table.Groups))
		}
		for g := range table.Groups {
			if _, ok := (*got)[g]; !ok {
				t.Errorf("%s: %q missing", name, g)
			}
		}
	}
}

// captured is every release's captured answer named name, by file.
func captured(t *testing.T, name string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata/captured/*", name))
	if err != nil || len(files) == 0 {
		t.Fatalf("captured %s: %v, %v", name, files, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		if out[f], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
