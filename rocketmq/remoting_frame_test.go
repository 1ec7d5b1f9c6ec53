package rocketmq

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The worked example of a GET_ROUTEINFO_BY_TOPIC request, in both header
// serializations, byte for byte as a Java client writes it.
func TestEncodeFrameMatchesJavaBytes(t *testing.T) {
	req := &command{Code: 105, Language: "JAVA", Version: 409, Opaque: 1, ExtFields: map[string]string{"topic": "TopicTest"}}

	gotJSON, err := encodeFrame(req, serializeJSON)
	if err != nil {
		t.Fatal(err)
	}
	header := `{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA","opaque":1,"serializeTypeCurrentRPC":"JSON","version":409}`
	wantJSON := append(mustHex(t, "00000087 00000083"), header...)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("JSON frame\n got %q\nwant %q", gotJSON, wantJSON)
	}

	gotBin, err := encodeFrame(req, serializeRocketMQ)
	if err != nil {
		t.Fatal(err)
	}
	wantBin := mustHex(t, "0000002d 01000029 0069 00 0199 00000001 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374")
	if !bytes.Equal(gotBin, wantBin) {
		t.Errorf("binary frame\n got %x\nwant %x", gotBin, wantBin)
	}
}

func TestFrameRoundTrip(t *testing.T) {
	cmds := []*command{
		{Code: 105, Language: "GO", Version: 409, Opaque: 7, ExtFields: map[string]string{"topic": "T", "acceptStandardJsonOnly": "true"}},
		{Code: 0, Language: "JAVA", Version: 479, Opaque: -3, Flag: flagResponse, Remark: "ok ✓", Body: []byte(`{"a":1}`)},
		{Code: 1, Language: "JAVA", Version: 479, Opaque: 1 << 30, Flag: flagResponse, Remark: "boom", ExtFields: map[string]string{"k": ""}},
		{Code: 11, Language: "GO", Version: 409, Opaque: 2, Flag: flagOneway, Body: bytes.Repeat([]byte{0, 1, 2}, 1000)},
	}
	for _, st := range []byte{serializeJSON, serializeRocketMQ} {
		for i, c := range cmds {
			frame, err := encodeFrame(c, st)
			if err != nil {
				t.Fatalf("type %d #%d: encode: %v", st, i, err)
			}
			got, err := decodeFrame(frame)
			if err != nil {
				t.Fatalf("type %d #%d: decode: %v", st, i, err)
			}
			if got.serializeType != st {
				t.Errorf("type %d #%d: serializeType %d", st, i, got.serializeType)
			}
			got.serializeType = 0
			want := *c
			if st == serializeRocketMQ && want.ExtFields["k"] == "" && want.ExtFields != nil {
				// an empty value survives in both encodings
			}
			if !reflect.DeepEqual(got, &want) {
				t.Errorf("type %d #%d: round trip\n got %+v\nwant %+v", st, i, got, &want)
			}
			// The same bytes through the stream reader.
			got2, err := readFrame(bytes.NewReader(frame))
			if err != nil {
				t.Fatalf("type %d #%d: readFrame: %v", st, i, err)
			}
			got2.serializeType = 0
			if !reflect.DeepEqual(got2, &want) {
				t.Errorf("type %d #%d: readFrame\n got %+v\nwant %+v", st, i, got2, &want)
			}
		}
	}
}

func frameOf(serializeType byte, header, body []byte) []byte {
	b := make([]byte, 8, 8+len(header)+len(body))
	binary.BigEndian.PutUint32(b[0:4], uint32(4+len(header)+len(body)))
	binary.BigEndian.PutUint32(b[4:8], uint32(serializeType)<<24|uint32(len(header)))
	b = append(b, header...)
	return append(b, body...)
}

func TestDecodeHeaderJSONVariants(t *testing.T) {
	tests := []struct {
		name   string
		header string
		want   command
	}{
		{
			name:   "java broker response",
			header: `{"code":0,"extFields":{"offset":"123"},"flag":1,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":479}`,
			want:   command{Code: 0, Language: "JAVA", Version: 479, Opaque: 42, Flag: 1, ExtFields: map[string]string{"offset": "123"}},
		},
		{
			name:   "error with remark, no extFields",
			header: `{"code":17,"flag":1,"language":"JAVA","opaque":3,"remark":"No topic route info in name server for the topic: X","serializeTypeCurrentRPC":"JSON","version":409}`,
			want:   command{Code: 17, Language: "JAVA", Version: 409, Opaque: 3, Flag: 1, Remark: "No topic route info in name server for the topic: X"},
		},
		{
			name:   "go client relayed answer, numeric language and ext values",
			header: `{"code":0,"language":9,"version":317,"opaque":5,"flag":1,"remark":"","extFields":{"n":12,"b":true,"z":null}}`,
			want:   command{Code: 0, Language: "GO", Version: 317, Opaque: 5, Flag: 1, ExtFields: map[string]string{"n": "12", "b": "true"}},
		},
		{
			name:   "unknown fields ignored, field order free",
			header: `{"version":1,"opaque":-1,"future":{"x":[1,2]},"code":3,"flag":3,"language":"NODE_JS"}`,
			want:   command{Code: 3, Language: "NODE_JS", Version: 1, Opaque: -1, Flag: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeFrame(frameOf(serializeJSON, []byte(tt.header), nil))
			if err != nil {
				t.Fatal(err)
			}
			got.serializeType = 0
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestDecodeFrameRejectsGarbage(t *testing.T) {
	be32 := func(v uint32) []byte { b := make([]byte, 4); binary.BigEndian.PutUint32(b, v); return b }
	goodBin := encodeHeaderRocketMQ(&command{Code: 1, Remark: "r", ExtFields: map[string]string{"a": "b"}})
	cut := func(b []byte, n int) []byte { return append([]byte(nil), b[:len(b)-n]...) }
	tests := []struct {
		name  string
		frame []byte
		want  error
	}{
		{"empty", nil, ErrBadFrame},
		{"length only", be32(0), ErrBadFrame},
		{"huge length", append(be32(0x7fffffff), be32(0)...), ErrFrameTooLarge},
		{"length just over the limit", append(be32(MaxFrameSize+1), be32(0)...), ErrFrameTooLarge},
		{"length disagrees with data", append(be32(100), be32(0)...), ErrBadFrame},
		{"header longer than frame", append(be32(8), append(be32(1000), 'x', 'x', 'x', 'x')...), ErrBadFrame},
		{"bad header JSON", frameOf(serializeJSON, []byte(`{"code":`), nil), ErrBadFrame},
		{"header JSON not an object", frameOf(serializeJSON, []byte(`[1,2]`), nil), ErrBadFrame},
		{"header JSON without code", frameOf(serializeJSON, []byte(`{"flag":1}`), nil), ErrBadFrame},
		{"header code not an int", frameOf(serializeJSON, []byte(`{"code":1.5}`), nil), ErrBadFrame},
		{"header opaque overflow", frameOf(serializeJSON, []byte(`{"code":0,"opaque":99999999999}`), nil), ErrBadFrame},
		{"unknown serialize type", frameOf(7, []byte(`{}`), nil), ErrBadFrame},
		{"binary header too short", frameOf(serializeRocketMQ, []byte{0, 1, 2}, nil), ErrBadFrame},
		{"binary header cut in ext", frameOf(serializeRocketMQ, cut(goodBin, 1), nil), ErrBadFrame},
		{"binary negative remark length", frameOf(serializeRocketMQ, append(make([]byte, 13), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0), nil), ErrBadFrame},
		{"binary remark longer than header", frameOf(serializeRocketMQ, append(make([]byte, 13), 0, 0, 0x10, 0, 0, 0, 0, 0), nil), ErrBadFrame},
		{"binary ext length past end", frameOf(serializeRocketMQ, append(make([]byte, 17), 0, 0, 0, 9), nil), ErrBadFrame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := decodeFrame(tt.frame)
			if !errors.Is(err, tt.want) {
				t.Fatalf("decodeFrame = %+v, %v; want %v", c, err, tt.want)
			}
			if len(tt.frame) >= 4 {
				// The stream reader must agree (or report a short read).
				_, err := readFrame(bytes.NewReader(tt.frame))
				if err == nil {
					t.Fatalf("readFrame accepted %x", tt.frame)
				}
			}
		})
	}
}

// A length field near the cap must not make readFrame allocate it when the
// stream ends early… it may allocate up to the cap, but never beyond.
func TestReadFrameShortStream(t *testing.T) {
	frame := []byte{0, 0, 0, 100, 0, 0, 0, 2, '{', '}'}
	if _, err := readFrame(bytes.NewReader(frame)); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
}

func TestEncodeFrameRejectsOversizedBody(t *testing.T) {
	_, err := encodeFrame(&command{Code: 1, Body: make([]byte, MaxFrameSize)}, serializeJSON)
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("err = %v, want ErrFrameTooLarge", err)
	}
}
