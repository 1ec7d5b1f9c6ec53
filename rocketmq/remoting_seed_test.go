package rocketmq

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFuzzSeeds regenerates the committed seed corpora when
// RMQC_WRITE_FUZZ_SEEDS=1; otherwise it checks they are there.
func TestWriteFuzzSeeds(t *testing.T) {
	jsonHdr := `{"code":0,"extFields":{"offset":"123"},"flag":1,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":479}`
	binHdr := encodeHeaderRocketMQ(&command{Code: 105, Language: "JAVA", Version: 409, Opaque: 1, Remark: "r", ExtFields: map[string]string{"topic": "TopicTest"}})
	f1, _ := encodeFrame(&command{Code: 105, Language: "JAVA", Version: 409, Opaque: 1, ExtFields: map[string]string{"topic": "TopicTest"}}, serializeJSON)
	f2, _ := encodeFrame(&command{Code: 0, Language: "JAVA", Version: 479, Opaque: 2, Flag: 1, Remark: "x", Body: []byte(`{"brokerAddrs":{0:"a"}}`)}, serializeRocketMQ)
	seeds := map[string][][]byte{
		"FuzzDecodeFrame": {
			f1, f2,
			frameOf(serializeJSON, []byte(`{"code":1,"language":9,"extFields":{"n":1,"z":null}}`), []byte("body")),
			{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0},
			{0, 0, 0, 4, 1, 0, 0, 0},
			{0, 0, 0, 8, 0, 0, 0, 100, '{', '}', 0, 0},
		},
		"FuzzDecodeHeader": {
			append([]byte{serializeJSON}, jsonHdr...),
			append([]byte{serializeJSON}, `{"code":0,"language":9,"extFields":{"n":1}}`...),
			append([]byte{serializeRocketMQ}, binHdr...),
			append([]byte{serializeRocketMQ}, binHdr[:len(binHdr)-3]...),
			{serializeRocketMQ, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff},
		},
	}
	for target, list := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		if os.Getenv("RMQC_WRITE_FUZZ_SEEDS") != "1" {
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) == 0 {
				t.Errorf("no committed seed corpus in %s; run with RMQC_WRITE_FUZZ_SEEDS=1", dir)
			}
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range list {
			content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
