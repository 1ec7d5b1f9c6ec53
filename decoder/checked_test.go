package decoder

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

// A decoder set in the console carries its descriptor set or .proto file in memory:
// both read a producer's Order, and what does not parse or lacks the type is a sentence
// on the setting it concerns, with no file or entry number to name.
func TestCheckedReadsUploadedFilesAndSaysWhatIsWrong(t *testing.T) {
	ctx := context.Background()
	fd := testProto(t)
	dir := t.TempDir()
	writeDescriptorSet(t, dir, "orders.desc", fd, true)
	set, err := os.ReadFile(filepath.Join(dir, "orders.desc"))
	if err != nil {
		t.Fatal(err)
	}
	body := &rocketmq.Message{Topic: "orders", Body: orderBody(t, fd, 42, 2)}

	r, err := Checked(ctx, Entry{Topic: "orders", Type: TypeProtobuf, Message: "orders.v1.Order", DescriptorSet: "orders.desc", Source: set})
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, r.Decode("", body), "42")
	if e, _ := r.For("", "orders"); e.Origin != OriginConsole {
		t.Errorf("origin %q, want console", e.Origin)
	}

	src := "syntax = \"proto3\";\npackage shop;\nimport \"google/protobuf/timestamp.proto\";\nmessage Ping { int64 id = 1; google.protobuf.Timestamp at = 2; }\n"
	r, err = Checked(ctx, Entry{Topic: "pings", Message: "shop.Ping", ProtoFiles: []string{"ping.proto"}, Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Decode("", &rocketmq.Message{Topic: "pings", Body: []byte{0x08, 0x07}}); d.Kind != KindProtobuf || !strings.Contains(d.Text, `"id": "7"`) {
		t.Errorf("ping decoded as %s: %s (%v)", d.Kind, d.Text, d.Problem)
	}

	for _, c := range []struct {
		name  string
		e     Entry
		field string
		says  string
	}{
		{"not a descriptor set", Entry{Topic: "t", Type: TypeProtobuf, Message: "orders.v1.Order", DescriptorSet: "x.desc", Source: []byte("not protobuf \xff\xff")}, "descriptor_set", "x.desc"},
		{"unknown type", Entry{Topic: "t", Type: TypeProtobuf, Message: "orders.v1.Nope", DescriptorSet: "orders.desc", Source: set}, "message", "orders.v1.Order"},
		{"proto that does not compile", Entry{Topic: "t", Type: TypeProtobuf, Message: "shop.Ping", ProtoFiles: []string{"ping.proto"}, Source: []byte("message {")}, "proto_files", "ping.proto"},
	} {
		_, err := Checked(ctx, c.e)
		fe := fault.As(err)
		if fe == nil || fe.Field != c.field || !strings.Contains(fe.Msg.String(), c.says) || strings.Contains(fe.Msg.String(), "ntry") {
			t.Errorf("%s: %v (field %v), want a sentence on %s naming %s", c.name, err, fe, c.field, c.says)
		}
	}
}

// Over puts one registry's decoders before another's, whichever is more specific: the
// console's registry sits under the file's, so the file's pattern still wins.
func TestOverPutsTheFirstRegistryFirst(t *testing.T) {
	ctx := context.Background()
	file, err := New(ctx, "", Entry{Topic: "orders-*", Type: TypeText})
	if err != nil {
		t.Fatal(err)
	}
	console, err := Checked(ctx, Entry{Topic: "orders-eu", Type: TypeHex})
	if err != nil {
		t.Fatal(err)
	}
	r := file.Over(console)
	if e, _ := r.For("", "orders-eu"); e.Type != TypeText || e.Origin != OriginFile {
		t.Errorf("orders-eu read as %s from %s, want the file's text", e.Type, e.Origin)
	}
	r = (*Registry)(nil).Over(console)
	if e, _ := r.For("", "orders-eu"); e.Type != TypeHex || e.Origin != OriginConsole {
		t.Errorf("without a file: %s from %s, want the console's hex", e.Type, e.Origin)
	}
}
