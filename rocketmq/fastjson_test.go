package rocketmq

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestNormalizeJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bare numeric keys", `{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"}}`,
			`{"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"}}`},
		{"negative and fractional numeric keys", `{-1:"a",2.5e3:"b"}`, `{"-1":"a","2.5e3":"b"}`},
		{"message queue key", `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"brokerOffset":250}}}`,
			`{"offsetTable":{"{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}":{"brokerOffset":250}}}`},
		{"object key with spaces is compacted", `{ { "topic" : "T" , "queueId" : 1 } : 5 }`,
			`{"{\"topic\":\"T\",\"queueId\":1}":5}`},
		{"object key holding a bare numeric key", `{{1:{2:3}}:4}`, `{"{\"1\":{\"2\":3}}":4}`},
		{"array key", `{[1,2]:"x"}`, `{"[1,2]":"x"}`},
		{"literal keys", `{true:1,null:2,name:3,$ref:4}`, `{"true":1,"null":2,"name":3,"$ref":4}`},
		{"braces and quotes inside key strings", `{{"topic":"a}:{,\"b"}:1}`, `{"{\"topic\":\"a}:{,\\\"b\"}":1}`},
		{"single-quoted strings", `{'a':'it''s'}`, ``},
		{"single quotes with escapes", `{'k':'say \'hi\' and "bye"'}`, `{"k":"say 'hi' and \"bye\""}`},
		{"raw control characters in a string", "{\"a\":\"x\ty\"}", `{"a":"x\u0009y"}`},
		{"null for NaN", `{"consumeTps":null,1:2}`, `{"consumeTps":null,"1":2}`},
		{"nested arrays and values", `[{0:[true,false,null,-0.5e-3]},"s",{}]`, `[{"0":[true,false,null,-0.5e-3]},"s",{}]`},
		{"unicode escapes kept", `{1:"\u00e9\ud83d\ude00"}`, `{"1":"\u00e9\ud83d\ude00"}`},
		{"top-level scalar", `  42 `, `  42 `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeJSON([]byte(tc.in))
			if tc.want == "" {
				if err == nil {
					t.Fatalf("want an error, got %s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Error("output is not valid JSON")
			}
		})
	}
}

func TestNormalizeJSONKeepsValidJSON(t *testing.T) {
	for _, in := range []string{
		`{"a": [1, 2.5, "x\"y"], "b": {"c": null}}`,
		"{\n\t\"pretty\": true\n}",
		`{"0":"quoted numeric key"}`,
		`"just a string"`,
	} {
		got, err := NormalizeJSON([]byte(in))
		if err != nil || string(got) != in {
			t.Errorf("NormalizeJSON(%s) = %s, %v; want the input unchanged", in, got, err)
		}
	}
}

func TestNormalizeJSONRejectsMalformed(t *testing.T) {
	if _, err := NormalizeJSON(nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty body: %v, want an error saying it is empty", err)
	}
	for _, in := range []string{
		``, " \n", `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `{1 2}`, `{"a":1}x`, `{"a":01}`,
		`{"a":1.}`, `{"a":-}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"unterminated}`, `{{"a":1}}`,
		`{{"a":1:2}`, `{'a':tru}`, `{"a":1 "b":2}`, `@`, `{:1}`,
		// Too deep for the normaliser (valid JSON this deep is passed through).
		strings.Repeat("{1:", maxJSONDepth+2) + "1" + strings.Repeat("}", maxJSONDepth+2),
		strings.Repeat("{{", 600),
	} {
		got, err := NormalizeJSON([]byte(in))
		if err == nil {
			t.Errorf("NormalizeJSON(%.60q) = %.60s, want an error", in, got)
		}
	}
}

func TestParseMessageQueueKey(t *testing.T) {
	mq, err := ParseMessageQueueKey(`{"brokerName":"broker-a","queueId":7,"topic":"%RETRY%grp"}`)
	if err != nil || mq != (MessageQueue{Topic: "%RETRY%grp", BrokerName: "broker-a", QueueID: 7}) {
		t.Fatalf("got %+v, %v", mq, err)
	}
	// Go clients write the fields in struct order.
	if mq, err := ParseMessageQueueKey(`{"topic":"T","brokerName":"b","queueId":0}`); err != nil || mq.Topic != "T" {
		t.Errorf("Go-client key: %+v, %v", mq, err)
	}
	for _, bad := range []string{``, `{}`, `{"topic":"T","brokerName":"b"}`, `{"topic":"T","queueId":1}`, `[1]`, `{"topic":1,"brokerName":"b","queueId":0}`, `MessageQueue [topic=T]`} {
		if _, err := ParseMessageQueueKey(bad); err == nil {
			t.Errorf("ParseMessageQueueKey(%q): want an error", bad)
		}
	}
}

type javaTableEntry struct {
	Key   MessageQueue    `json:"key"`
	Value json.RawMessage `json:"value"`
}

// TestNormalizeJSONMatchesFastjson normalises bodies serialised by the real
// fastjson 1.2.83 from RocketMQ's body classes (testdata/javagen) and checks
// every MessageQueue-keyed entry survives with its value.
func TestNormalizeJSONMatchesFastjson(t *testing.T) {
	var expected map[string]json.RawMessage
	readJSON(t, "testdata/java/fastjson.json", &expected)
	tableField := map[string]string{
		"consume_stats": "offsetTable", "consume_stats_pretty": "offsetTable", "topic_stats": "offsetTable",
		"consumer_running_info": "mqTable", "reset_offset": "offsetTable", "single_quotes": "offsetTable",
	}
	for name, exp := range expected {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata/java", "fastjson_"+name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if json.Valid(raw) {
				t.Fatal("the fixture is already valid JSON; it does not exercise the normaliser")
			}
			norm, err := NormalizeJSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			if name == "cluster_info" {
				var ci struct {
					BrokerAddrTable map[string]struct {
						BrokerAddrs map[string]string `json:"brokerAddrs"`
					} `json:"brokerAddrTable"`
				}
				if err := json.Unmarshal(norm, &ci); err != nil {
					t.Fatal(err)
				}
				var want map[string]string
				if err := json.Unmarshal(exp, &want); err != nil {
					t.Fatal(err)
				}
				if got := ci.BrokerAddrTable["broker-a"].BrokerAddrs; !reflect.DeepEqual(got, want) {
					t.Errorf("brokerAddrs = %v, want %v", got, want)
				}
				return
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(norm, &body); err != nil {
				t.Fatal(err)
			}
			var table map[string]json.RawMessage
			if err := json.Unmarshal(body[tableField[name]], &table); err != nil {
				t.Fatal(err)
			}
			var want []javaTableEntry
			if err := json.Unmarshal(exp, &want); err != nil {
				t.Fatal(err)
			}
			got := map[MessageQueue]string{}
			for k, v := range table {
				mq, err := ParseMessageQueueKey(k)
				if err != nil {
					t.Fatal(err)
				}
				got[mq] = compactJSON(t, v)
			}
			if len(got) != len(want) {
				t.Fatalf("%d entries, fastjson wrote %d", len(got), len(want))
			}
			for _, w := range want {
				if got[w.Key] != compactJSON(t, w.Value) {
					t.Errorf("%v = %s, want %s", w.Key, got[w.Key], w.Value)
				}
			}
		})
	}
}

// compactJSON re-encodes v with sorted keys so values compare by meaning.
func compactJSON(t *testing.T, v json.RawMessage) string {
	t.Helper()
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// TestNormalizeCapturedBodies normalises every body captured from real
// brokers (testdata/captured/<version>/*.json) and checks each
// MessageQueue-keyed table: every key parses, and none is lost.
func TestNormalizeCapturedBodies(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "captured", "*", "*.json"))
	if len(files) == 0 {
		t.Skip("no captured replies")
	}
	tables := map[string]bool{"offsetTable": true, "mqTable": true, "mqPopTable": true, "messageQueueTable": true}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) == 0 {
				t.Skip("empty body")
			}
			norm, err := NormalizeJSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			if json.Valid(raw) && string(norm) != string(raw) {
				t.Fatal("valid JSON was changed")
			}
			var doc any
			if err := json.Unmarshal(norm, &doc); err != nil {
				t.Fatal(err)
			}
			keys := 0
			var walk func(v any)
			walk = func(v any) {
				switch v := v.(type) {
				case map[string]any:
					for k, child := range v {
						// GET_ALL_CONSUMER_OFFSET's offsetTable is keyed by topic@group.
						byName := filepath.Base(f) == "consumer_offsets.json"
						if tab, ok := child.(map[string]any); ok && tables[k] && !byName {
							for mqKey := range tab {
								if _, err := ParseMessageQueueKey(mqKey); err != nil {
									t.Errorf("%s key: %v", k, err)
								}
								keys++
							}
						}
						walk(child)
					}
				case []any:
					for _, child := range v {
						walk(child)
					}
				}
			}
			walk(doc)
			// Every object key fastjson wrote is a queue; none may vanish.
			if want := len(queueKeyInRaw.FindAll(raw, -1)); keys != want {
				t.Errorf("%d queue keys after normalising, %d in the body", keys, want)
			}
		})
	}
}

// queueKeyInRaw matches a MessageQueue object written in key position: the object is
// followed by a colon.
var queueKeyInRaw = regexp.MustCompile(`\{"(?:brokerName|queueId|topic)"[^{}]*\}:`)
