package rocketmq

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The fuzz targets hold the promises callers rely on: no panic on any
// input, errors instead of garbage, and results consistent with each
// other. Seed corpora live in testdata/fuzz/<FuzzName>/; the Java fixtures
// are added as seeds too.

func addFixtureSeeds(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join("testdata/java", pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures match %s: %v", pattern, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzDecodeMessages(f *testing.F) {
	addFixtureSeeds(f, "msg_*.bin")
	f.Add(baseRecord().build())
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, err := DecodeMessages(b)
		if err == nil && len(b) > 0 && len(msgs) == 0 {
			t.Fatal("no error and no messages from a non-empty body")
		}
		total := 0
		for _, m := range msgs {
			if len(m.Body) > MaxDecompressedBodySize {
				t.Fatalf("body of %d bytes passed the limit", len(m.Body))
			}
			if m.StoreSize < minRecordSize || m.StoreSize > len(b) {
				t.Fatalf("StoreSize %d outside [%d, %d]", m.StoreSize, minRecordSize, len(b))
			}
			if !m.InnerBatch || m.BatchIndex == 0 {
				total += m.StoreSize
			}
			_ = m.OffsetMsgID()
			_ = m.Keys()
		}
		if err == nil && total != len(b) {
			t.Fatalf("records cover %d of %d bytes without an error", total, len(b))
		}
		first, n, err1 := DecodeMessage(b)
		if len(msgs) > 0 {
			if err1 != nil || n != msgs[0].StoreSize || first.CommitLogOffset != msgs[0].CommitLogOffset || !bytes.Equal(first.Body, msgs[0].Body) {
				t.Fatalf("DecodeMessage disagrees with DecodeMessages: %v, n %d", err1, n)
			}
		} else if err1 == nil {
			t.Fatal("DecodeMessage succeeded where DecodeMessages found nothing")
		}
	})
}

func FuzzNormalizeJSON(f *testing.F) {
	addFixtureSeeds(f, "fastjson_*.txt")
	for _, s := range []string{`{0:"a",1:"b"}`, `{{"topic":"T","queueId":0}:{"x":1}}`, `{'a':'b'}`, `[1,{2:[3]}]`, `{"a":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := NormalizeJSON(b)
		if json.Valid(b) {
			if err != nil || !bytes.Equal(out, b) {
				t.Fatalf("valid JSON changed: %q, %v", out, err)
			}
			return
		}
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output is not JSON: %q", out)
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("encoding/json rejects the output: %v", err)
		}
		again, err := NormalizeJSON(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q, %v", out, again, err)
		}
	})
}

func FuzzParseOffsetMsgID(f *testing.F) {
	for _, s := range []string{
		"0A00000100002A9F00000000000F4240", "20010DB800000000000000000000000100002A9F00007048860DDF79",
		"0a00000100002a9f00000000000f4240", "7F0000011F40000000000007a1200005", "", "zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind := ClassifyID(s)
		id, err := ParseOffsetMsgID(s)
		if err != nil {
			if kind == IDOffsetMsgID {
				t.Fatalf("classified as an offsetMsgId but does not parse: %v", err)
			}
			return
		}
		enc := id.String()
		if enc != strings.ToUpper(strings.TrimSpace(s)) {
			t.Fatalf("String() = %s, input %q", enc, s)
		}
		back, err := ParseOffsetMsgID(enc)
		if err != nil || back != id {
			t.Fatalf("round trip: %+v -> %s -> %+v, %v", id, enc, back, err)
		}
	})
}

func FuzzParseUniqueKey(f *testing.F) {
	for _, s := range []string{
		"0A0000050C38ABCDEF0100000001002A", "7F0000011F40000000000007a1200005",
		"20010DB80000000000000000000000050C3812345678A0000000FFFF", "0156F7E71C361B21BC024CCDBE00000000", "", "x",
	} {
		f.Add(s, int64(1717200000000))
	}
	f.Fuzz(func(t *testing.T, s string, nowMillis int64) {
		now := time.UnixMilli(nowMillis).UTC()
		_ = ClassifyID(s)
		info, err := ParseUniqueKeyAt(s, now)
		if err != nil {
			return
		}
		if info.Client == "grpc" {
			return
		}
		// A remoting id's born time is within the two months before now
		// (the span is at most 2^32 ms, about 49.7 days).
		if info.BornApprox.After(now) || info.BornApprox.Before(now.AddDate(0, -2, -1)) {
			t.Fatalf("BornApprox %v not in the two months before %v", info.BornApprox, now)
		}
	})
}
