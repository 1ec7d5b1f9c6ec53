package rocketmq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// Real message bodies, as brokers send them, are kept under
// testdata/captured/<version>/messages_<op>.bin with what the producers
// reported in messages_<op>.want (JSON; not *.json, which holds the
// transport's JSON captures). TestCaptureMessages writes them against a real
// cluster when RMQC_CAPTURE=1; TestDecodeCapturedMessages replays them
// offline on every run.

// wantMessage is what a producer reported for one message it sent.
type wantMessage struct {
	UniqueKey   string   `json:"uniqueKey"`
	OffsetMsgID string   `json:"offsetMsgId,omitempty"` // "" when the producer did not report it
	QueueID     int      `json:"queueId"`
	QueueOffset int64    `json:"queueOffset"` // -1 when unknown
	Body        string   `json:"body"`
	Keys        []string `json:"keys,omitempty"`
	Tag         string   `json:"tag,omitempty"`
	Producer    string   `json:"producer"` // "go" or "java"
}

func TestCaptureMessages(t *testing.T) {
	if !captureOn() {
		t.Skip("set RMQC_CAPTURE=1 to capture real message bodies")
	}
	e := newITEnv(t)
	topic := e.createTopic(t, "capmsg", 1)
	p := rmqclient.StartProducer(t, e.cluster.NameServer, "capmsg-pg")

	var want []wantMessage
	add := func(s sent, producer string) {
		want = append(want, wantMessage{UniqueKey: s.msgID, OffsetMsgID: s.offsetMsgID, QueueID: s.queueID,
			QueueOffset: s.queueOffset, Body: s.body, Keys: s.keys, Tag: s.tag, Producer: producer})
	}
	add(sendGo(t, p, topic, "small body from Go", []string{"cap-k1", "cap-k2"}, "TagA", map[string]string{"biz": "v=1"}), "go")
	// Above 4 KiB the Go client compresses the body with zlib.
	big := strings.Repeat(`{"line":"compressible text for the zlib path"}`+"\n", 200)
	add(sendGo(t, p, topic, big, []string{"cap-big"}, "TagB", nil), "go")
	add(e.sendMQAdmin(t, topic, "sent by mqadmin", "cap-java", "TagJ"), "java")

	mq := MessageQueue{Topic: topic, BrokerName: e.broker, QueueID: 0}
	var pull []byte
	dev.Eventually(t, 30*time.Second, "pull all captured messages", func() error {
		resp, err := e.c.call(ctxT(t), e.addr, CodePullMessage, pullHeader(mq, 0, 32), nil)
		if err != nil {
			return err
		}
		if msgs, err := DecodeMessages(resp.Body); err != nil || len(msgs) < len(want) {
			return fmt.Errorf("code %d, %d messages, %v", resp.Code, len(msgs), err)
		}
		pull = resp.Body
		return nil
	})
	msgs, _ := DecodeMessages(pull)
	for i := range want { // mqadmin does not print the offset; take it from the pull
		for _, m := range msgs {
			if m.UniqueKey() == want[i].UniqueKey {
				want[i].QueueOffset = m.QueueOffset
				if want[i].OffsetMsgID == "" {
					want[i].OffsetMsgID = m.OffsetMsgID()
				}
			}
		}
	}
	writeMessageCapture(t, e.version, "pull", pull, want)

	// VIEW_MESSAGE_BY_ID answers exactly the one message at the offset.
	id, err := ParseOffsetMsgID(want[1].OffsetMsgID)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.c.call(ctxT(t), e.addr, CodeViewMessageByID, map[string]string{"offset": fmt.Sprint(id.CommitLogOffset), "topic": topic}, nil)
	if err != nil || resp.Code != int(CodeSuccess) {
		t.Fatalf("view message: %v %+v", err, resp)
	}
	writeMessageCapture(t, e.version, "view", resp.Body, want[1:2])

	// QUERY_MESSAGE by key, once the index has it.
	dev.Eventually(t, 30*time.Second, "query the key index", func() error {
		resp, err := e.c.call(ctxT(t), e.addr, CodeQueryMessage, map[string]string{
			"topic": topic, "key": "cap-k2", "maxNum": "32", "beginTimestamp": "0",
			"endTimestamp": fmt.Sprint(time.Now().Add(time.Hour).UnixMilli()), "_UNIQUE_KEY_QUERY": "false",
		}, nil)
		if err != nil {
			return err
		}
		if resp.Code != int(CodeSuccess) {
			return fmt.Errorf("code %d %s", resp.Code, resp.Remark)
		}
		writeMessageCapture(t, e.version, "query_key", resp.Body, want[:1])
		return nil
	})
}

func writeMessageCapture(t *testing.T, v BrokerVersion, op string, body []byte, want []wantMessage) {
	t.Helper()
	dir := captureDir(v)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, _ := json.MarshalIndent(want, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "messages_"+op+".bin"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "messages_"+op+".want"), append(w, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDecodeCapturedMessages decodes real broker bodies and checks every
// message a producer reported is there with its ids, body, keys and tag,
// and that both ids decode.
func TestDecodeCapturedMessages(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "captured", "*", "messages_*.bin"))
	if len(files) == 0 {
		t.Skip("no captured message bodies; run TestCaptureMessages with RMQC_CAPTURE=1")
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".bin")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want []wantMessage
			readJSON(t, strings.TrimSuffix(f, ".bin")+".want", &want)
			msgs, err := DecodeMessages(body)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				i := slices.IndexFunc(msgs, func(m *Message) bool { return m.UniqueKey() == w.UniqueKey })
				if i < 0 {
					t.Errorf("message %s (%s producer) not decoded", w.UniqueKey, w.Producer)
					continue
				}
				m := msgs[i]
				if m.BodyError != "" || !bytes.Equal(m.Body, []byte(w.Body)) {
					t.Errorf("%s: body %.60q (error %q), want %.60q", w.UniqueKey, m.Body, m.BodyError, w.Body)
				}
				if m.OffsetMsgID() != w.OffsetMsgID || m.QueueID != w.QueueID || (w.QueueOffset >= 0 && m.QueueOffset != w.QueueOffset) {
					t.Errorf("%s: offsetMsgId %s queue %d@%d, want %s %d@%d", w.UniqueKey, m.OffsetMsgID(), m.QueueID, m.QueueOffset, w.OffsetMsgID, w.QueueID, w.QueueOffset)
				}
				if !slices.Equal(m.Keys(), w.Keys) || m.Tags() != w.Tag {
					t.Errorf("%s: keys %q tag %q, want %q %q", w.UniqueKey, m.Keys(), m.Tags(), w.Keys, w.Tag)
				}
				if ClassifyID(w.OffsetMsgID) != IDOffsetMsgID || ClassifyID(w.UniqueKey) != IDUniqueKey {
					t.Errorf("ClassifyID: %s -> %v, %s -> %v", w.OffsetMsgID, ClassifyID(w.OffsetMsgID), w.UniqueKey, ClassifyID(w.UniqueKey))
				}
				id, err := ParseOffsetMsgID(w.OffsetMsgID)
				if err != nil || id.StoreHost != m.StoreHost || id.CommitLogOffset != m.CommitLogOffset {
					t.Errorf("offsetMsgId %s decodes to %+v, %v", w.OffsetMsgID, id, err)
				}
				// The unique key's born time, rebuilt in the capture's zone
				// (UTC on the test machines), is close to the broker's.
				info, err := ParseUniqueKeyAt(w.UniqueKey, m.StoreTime().Add(time.Minute).In(time.Local))
				if err != nil {
					t.Errorf("unique key %s: %v", w.UniqueKey, err)
				} else if d := info.BornApprox.Sub(m.BornTime()).Abs(); d > 2*time.Second {
					t.Logf("unique key %s born %v, broker says %v (producer in another zone?)", w.UniqueKey, info.BornApprox, m.BornTime())
				}
				if info.Client != "" && info.Client != w.Producer {
					t.Errorf("unique key %s guessed as a %s client, sent by %s", w.UniqueKey, info.Client, w.Producer)
				}
			}
		})
	}
}
