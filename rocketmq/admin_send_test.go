package rocketmq

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
)

// The properties string is name \x01 value \x02 per property, in name order, and reads
// back through the stored-record parser unchanged.
func TestEncodeProperties(t *testing.T) {
	p := map[string]string{"TAGS": "paid", "KEYS": "a b", "color": "blue"}
	got, err := EncodeProperties(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "KEYS\x01a b\x02TAGS\x01paid\x02color\x01blue\x02"; got != want {
		t.Fatalf("EncodeProperties = %q, want %q", got, want)
	}
	back := parseProperties([]byte(got))
	if len(back) != len(p) || back["KEYS"] != "a b" || back["color"] != "blue" {
		t.Fatalf("parsed back %v, want %v", back, p)
	}
	for _, bad := range []map[string]string{{"k": "a\x01b"}, {"k\x02": "v"}, {"": "v"}, {"k": ""}} {
		if _, err := EncodeProperties(bad); err == nil {
			t.Errorf("EncodeProperties(%q) accepted", bad)
		}
	}
}

// SendMessage writes SEND_MESSAGE_V2 with the one-letter header every client sends and
// the body as given, and reads the answers real brokers gave (captured by
// TestIntegrationSendMessage with RMQC_CAPTURE=1) into a SendResult.
func TestSendMessageOnCapturedAnswers(t *testing.T) {
	for _, v := range []string{dev.DefaultVersion, dev.Version4} {
		t.Run(v, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "send", v, "send_answer.json"))
			if err != nil {
				t.Fatalf("%v: run TestIntegrationSendMessage with RMQC_CAPTURE=1 against RocketMQ %s", err, v)
			}
			var ans struct {
				ExtFields map[string]string `json:"extFields"`
				Sent      map[string]string `json:"sent"`
			}
			if err := json.Unmarshal(raw, &ans); err != nil {
				t.Fatal(err)
			}
			reqs := make(chan *command, 1)
			srv := startFake(t, func(_ int, c net.Conn) {
				req, err := readFrame(c)
				if err != nil {
					return
				}
				reqs <- req
				_ = send(c, reply(req, CodeSuccess, ans.ExtFields, nil))
			})
			c := newTestClient(t, srv.addr())
			mq := MessageQueue{Topic: "orders", BrokerName: "broker-a", QueueID: 1}
			before := time.Now()
			res, err := c.SendMessage(t.Context(), srv.addr(), mq, "rmqc_resend", OutgoingMessage{
				Topic: "orders", Body: []byte("hello"), Flag: 3, Properties: ans.Sent})
			if err != nil {
				t.Fatal(err)
			}
			req := <-reqs
			if RequestCode(req.Code) != CodeSendMessageV2 || string(req.Body) != "hello" {
				t.Fatalf("request code %d body %q", req.Code, req.Body)
			}
			h := req.ExtFields
			wantProps, _ := EncodeProperties(ans.Sent)
			for k, want := range map[string]string{"a": "rmqc_resend", "b": "orders", "c": "TBW102", "d": "4", "e": "1",
				"f": "0", "h": "3", "i": wantProps, "j": "0", "k": "false", "m": "false", "n": "broker-a"} {
				if h[k] != want {
					t.Errorf("header %s = %q, want %q", k, h[k], want)
				}
			}
			// bornTimestamp is the send's own time, in epoch ms.
			if born, err := strconv.ParseInt(h["g"], 10, 64); err != nil || born < before.UnixMilli() || born > time.Now().UnixMilli() {
				t.Errorf("bornTimestamp %q, want the time of the send (from %d)", h["g"], before.UnixMilli())
			}
			if !strings.Contains(wantProps, "UNIQ_KEY\x01"+ans.Sent[PropertyUniqueKey]+"\x02") {
				t.Fatalf("properties %q lack the unique key", wantProps)
			}
			if res.Status != SendOK || res.OffsetMsgID != ans.ExtFields["msgId"] || res.MsgID != ans.Sent[PropertyUniqueKey] ||
				itoa64(int64(res.Queue.QueueID)) != ans.ExtFields["queueId"] || itoa64(res.QueueOffset) != ans.ExtFields["queueOffset"] {
				t.Fatalf("result %+v from answer %v", res, ans.ExtFields)
			}
			if _, err := ParseOffsetMsgID(res.OffsetMsgID); err != nil {
				t.Fatalf("the answered offsetMsgId: %v", err)
			}
		})
	}
}

// What the broker stored for a message we sent (the VIEW_MESSAGE_BY_ID record, captured)
// holds the properties we wrote, plus only the three that 4.9.7 and 5.3.3 add to every
// message they store (region, cluster, trace switch).
func TestCapturedStoredSendKeepsProperties(t *testing.T) {
	for _, v := range []string{dev.DefaultVersion, dev.Version4} {
		t.Run(v, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "send", v, "send_stored.bin"))
			if err != nil {
				t.Fatalf("%v: run TestIntegrationSendMessage with RMQC_CAPTURE=1 against RocketMQ %s", err, v)
			}
			ans, err := os.ReadFile(filepath.Join("testdata", "send", v, "send_answer.json"))
			if err != nil {
				t.Fatal(err)
			}
			var a struct {
				Sent map[string]string `json:"sent"`
			}
			if err := json.Unmarshal(ans, &a); err != nil {
				t.Fatal(err)
			}
			ms, err := DecodeMessages(raw)
			if err != nil || len(ms) != 1 {
				t.Fatalf("decode: %d messages, %v", len(ms), err)
			}
			got := ms[0].Properties
			for k, want := range a.Sent {
				if got[k] != want {
					t.Errorf("stored %s = %q, want %q", k, got[k], want)
				}
			}
			for k, val := range got {
				if _, ok := a.Sent[k]; !ok && k != "MSG_REGION" && k != "CLUSTER" && k != "TRACE_ON" {
					t.Errorf("the broker added %s=%q", k, val)
				}
			}
		})
	}
}

// A new unique key is 32 hex characters that ParseUniqueKey reads back with this
// process's pid and the time it was made; two in a row differ.
func TestNewUniqueKey(t *testing.T) {
	now := time.Now()
	a, b := newUniqueKeyAt(now), NewUniqueKey()
	if len(a) != 32 || a == b || strings.ToUpper(a) != a {
		t.Fatalf("keys %q %q", a, b)
	}
	info, err := ParseUniqueKeyAt(a, now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if info.PID != os.Getpid()&0xFFFF || info.BornApprox.Sub(now).Abs() > time.Second {
		t.Fatalf("parsed %+v, want pid %d born about %v", info, os.Getpid()&0xFFFF, now)
	}
}
