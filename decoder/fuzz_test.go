package decoder

import (
	"testing"
	"unicode/utf8"

	"rmqconsole/rocketmq"
)

// FuzzDecode: any body, read with the Protobuf decoder or by looking at it, renders
// without panicking, and its preview is valid UTF-8 within its length. Seeds are in
// testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	fd := testProto(f)
	dir := f.TempDir()
	writeDescriptorSet(f, dir, "orders.desc", fd, true)
	r, err := New(f.Context(), dir, Entry{Topic: "pb", Message: "orders.v1.Order", DescriptorSet: "orders.desc"}, Entry{Topic: "js", Type: TypeJSON})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(orderBody(f, fd, 1, 3))
	f.Add([]byte(`{"a":[1,2,{"b":null}]}`))
	f.Add([]byte{0xff, 0x00, 0x01})
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, topic := range []string{"pb", "js", "other"} {
			d := r.Decode("", &rocketmq.Message{Topic: topic, Body: body})
			p := d.Preview(120)
			if !utf8.ValidString(p) || utf8.RuneCountInString(p) > 120 {
				t.Fatalf("%s: preview %q", topic, p)
			}
			if d.How.ID == "" {
				t.Fatalf("%s: no how", topic)
			}
		}
	})
}
