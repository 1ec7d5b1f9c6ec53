package rocketmq

import (
	"bytes"
	"testing"
)

// FuzzDecodeFrame: no input may panic or hang the frame decoder, and
// whatever decodes must encode and decode back to the same command.
func FuzzDecodeFrame(f *testing.F) {
	for _, c := range []*command{
		{Code: 105, Language: "JAVA", Version: 409, Opaque: 1, ExtFields: map[string]string{"topic": "TopicTest"}},
		{Code: 0, Language: "JAVA", Version: 479, Opaque: 9, Flag: 1, Remark: "x", Body: []byte("body")},
	} {
		for _, st := range []byte{serializeJSON, serializeRocketMQ} {
			b, _ := encodeFrame(c, st)
			f.Add(b)
		}
	}
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 4, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeFrame(data)
		if err != nil {
			return
		}
		if _, err := readFrame(bytes.NewReader(data)); err != nil {
			t.Fatalf("decodeFrame accepted what readFrame rejects: %v", err)
		}
		again, err := encodeFrame(c, c.serializeType)
		if err != nil {
			return // e.g. a binary header field too long to re-encode
		}
		c2, err := decodeFrame(again)
		if err != nil {
			t.Fatalf("re-encoded frame does not decode: %v", err)
		}
		if c2.Code != c.Code || c2.Opaque != c.Opaque || c2.Flag != c.Flag || !bytes.Equal(c2.Body, c.Body) || len(c2.ExtFields) != len(c.ExtFields) {
			t.Fatalf("round trip changed the command:\n%+v\n%+v", c, c2)
		}
	})
}

// FuzzDecodeHeader: the first byte picks the serialization, the rest is the
// header. Either it decodes or it errors; it never panics.
func FuzzDecodeHeader(f *testing.F) {
	f.Add(append([]byte{serializeJSON}, `{"code":0,"extFields":{"offset":"123"},"flag":1,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":479}`...))
	f.Add(append([]byte{serializeJSON}, `{"code":0,"language":9,"extFields":{"n":1}}`...))
	f.Add(append([]byte{serializeRocketMQ}, encodeHeaderRocketMQ(&command{Code: 105, Language: "JAVA", Version: 409, Opaque: 1, ExtFields: map[string]string{"topic": "TopicTest"}})...))
	f.Add(append([]byte{serializeRocketMQ}, encodeHeaderRocketMQ(&command{Code: 1, Remark: "boom", Flag: 1})...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		c, err := decodeHeader(data[1:], data[0])
		if err != nil {
			return
		}
		if c.serializeType != data[0] {
			t.Fatalf("serializeType %d for type byte %d", c.serializeType, data[0])
		}
	})
}
