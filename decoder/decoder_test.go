package decoder

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// testProto compiles testdata's orders/v1/order.proto with protocompile directly (not
// through this package), for building bodies and descriptor sets.
func testProto(t testing.TB) protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{"testdata/proto"}})}
	files, err := c.Compile(context.Background(), "orders/v1/order.proto")
	if err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// orderBody is a Protobuf orders.v1.Order as a producer would send it, with n items.
func orderBody(t testing.TB, fd protoreflect.FileDescriptor, id int64, items int) []byte {
	t.Helper()
	md := fd.Messages().ByName("Order")
	m := dynamicpb.NewMessage(md)
	f := md.Fields()
	m.Set(f.ByName("id"), protoreflect.ValueOfInt64(id))
	m.Set(f.ByName("customer"), protoreflect.ValueOfString("Zoë 订单"))
	m.Set(f.ByName("status"), protoreflect.ValueOfEnum(1))
	ts := timestamppb.New(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	paid := dynamicpb.NewMessage(f.ByName("paid_at").Message())
	paid.Set(paid.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(ts.Seconds))
	m.Set(f.ByName("paid_at"), protoreflect.ValueOfMessage(paid))
	labels := m.Mutable(f.ByName("labels")).Map()
	labels.Set(protoreflect.ValueOfString("region").MapKey(), protoreflect.ValueOfString("eu"))
	list := m.Mutable(f.ByName("items")).List()
	itemMD := f.ByName("items").Message()
	for i := range items {
		it := dynamicpb.NewMessage(itemMD)
		it.Set(itemMD.Fields().ByName("sku"), protoreflect.ValueOfString("SKU-"+strings.Repeat("x", i%3)))
		it.Set(itemMD.Fields().ByName("qty"), protoreflect.ValueOfInt32(int32(i+1)))
		it.Set(itemMD.Fields().ByName("price"), protoreflect.ValueOfFloat64(9.5))
		list.Append(protoreflect.ValueOfMessage(it))
	}
	m.Set(f.ByName("signature"), protoreflect.ValueOfBytes([]byte{0xde, 0xad}))
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeDescriptorSet writes fd and, with imports, every file it imports, as protoc
// --descriptor_set_out [--include_imports] would.
func writeDescriptorSet(t testing.TB, dir, name string, fd protoreflect.FileDescriptor, imports bool) {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		if imports {
			for i := range f.Imports().Len() {
				add(f.Imports().Get(i).FileDescriptor)
			}
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	add(fd)
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fields reads a rendering back as JSON.
func fields(t testing.TB, d Decoded) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(d.Text), &m); err != nil {
		t.Fatalf("%s rendering is not JSON: %v\n%s", d.Kind, err, d.Text)
	}
	return m
}

func checkOrder(t testing.TB, d Decoded, id string) {
	t.Helper()
	m := fields(t, d)
	items, _ := m["items"].([]any)
	labels, _ := m["labels"].(map[string]any)
	if m["id"] != id || m["customer"] != "Zoë 订单" || m["status"] != "PAID" || m["paid_at"] != "2026-11-29T10:00:00Z" ||
		len(items) == 0 || labels["region"] != "eu" || m["signature"] != "3q0=" {
		t.Errorf("rendered order lacks its fields:\n%s", d.Text)
	}
}

func TestProtobufFromProtoFilesAndFromDescriptorSets(t *testing.T) {
	fd := testProto(t)
	body := orderBody(t, fd, 4711, 2)
	dir := t.TempDir()
	writeDescriptorSet(t, dir, "orders.desc", fd, true)
	writeDescriptorSet(t, dir, "orders-bare.desc", fd, false) // no imports: item.proto missing
	protoDir, _ := filepath.Abs("testdata/proto")
	cfg := writeFile(t, dir, "decoders.toml", `
[[decoders]]
topic = "orders"
type = "protobuf"
message = "orders.v1.Order"
proto_files = ["orders/v1/order.proto"]
import_paths = ["`+protoDir+`"]

[[decoders]]
topic = "orders-*"
message = "orders.v1.Order"     # type protobuf is implied
descriptor_set = "orders.desc"

[[decoders]]
topic = "orders-archive"
cluster = "archive"
type = "hex"
`)
	r, err := Load(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cluster, topic, how string
	}{
		{"", "orders", "Protobuf orders.v1.Order from orders/v1/order.proto"},
		{"default", "orders-eu", "Protobuf orders.v1.Order from orders.desc"},
		{"default", "orders-archive", "Protobuf orders.v1.Order from orders.desc"},
		{"archive", "orders-archive", "hex"},
	} {
		d := r.Decode(c.cluster, &rocketmq.Message{Topic: c.topic, Body: body})
		if got := d.How.String(); got != c.how {
			t.Errorf("%s on %q: how %q, want %q", c.topic, c.cluster, got, c.how)
		}
		if d.Kind == KindProtobuf {
			checkOrder(t, d, "4711")
			if !d.IsJSON() || d.Problem.ID != "" {
				t.Errorf("%s: %+v", c.topic, d)
			}
		}
	}
	// A descriptor set without its imports is refused, naming what it lacks.
	_, err = New(t.Context(), dir, Entry{Topic: "x", Message: "orders.v1.Order", DescriptorSet: "orders-bare.desc"})
	if e := fault.As(err); e == nil || e.Msg.Args[5].(i18n.Message).ID != "decode.config.descriptor.imports" || !strings.Contains(err.Error(), "lacks orders/v1/item.proto") {
		t.Errorf("bare set: %v", err)
	}
}

// A descriptor set written without --include_imports still decodes when what it
// lacks is a well-known type: the console has those.
func TestDescriptorSetWithoutWellKnownImports(t *testing.T) {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{
		"ev.proto": `syntax = "proto3"; package ev; import "google/protobuf/timestamp.proto"; import "google/protobuf/struct.proto";
message Event { google.protobuf.Timestamp at = 1; google.protobuf.Struct data = 2; }`,
	})})}
	files, err := c.Compile(t.Context(), "ev.proto")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeDescriptorSet(t, dir, "ev.desc", files[0], false)
	r, err := New(t.Context(), dir, Entry{Topic: "events", Message: "ev.Event", DescriptorSet: "ev.desc"})
	if err != nil {
		t.Fatal(err)
	}
	md := files[0].Messages().ByName("Event")
	m := dynamicpb.NewMessage(md)
	at := dynamicpb.NewMessage(md.Fields().ByName("at").Message())
	at.Set(at.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(1))
	m.Set(md.Fields().ByName("at"), protoreflect.ValueOfMessage(at))
	body, _ := proto.Marshal(m)
	d := r.Decode("", &rocketmq.Message{Topic: "events", Body: body})
	if fields(t, d)["at"] != "1970-01-01T00:00:01Z" {
		t.Errorf("rendered %s", d.Text)
	}
}

func TestBodiesThatTheDecoderCannotReadFallBack(t *testing.T) {
	fd := testProto(t)
	dir := t.TempDir()
	writeDescriptorSet(t, dir, "orders.desc", fd, true)
	r, err := New(t.Context(), dir,
		Entry{Topic: "pb", Message: "orders.v1.Order", DescriptorSet: "orders.desc"},
		Entry{Topic: "js", Type: "json"},
		Entry{Topic: "tx", Type: "TEXT"},
	)
	if err != nil {
		t.Fatal(err)
	}
	binary := []byte{0xff, 0xfe, 0x00, 'o', 'k'}
	newer := append(orderBody(t, fd, 1, 0), 0x48, 0x01) // field 9, which Order lacks
	for _, c := range []struct {
		topic   string
		body    []byte
		kind    Kind
		how     string
		problem string
	}{
		{"pb", []byte(`{"id": 1}`), KindJSON, "JSON", "decode.problem.protobuf"},
		{"pb", []byte{0x0a, 0xff}, KindHex, "hex: not valid UTF-8", "decode.problem.protobuf"},
		{"pb", newer, KindProtobuf, "Protobuf orders.v1.Order from orders.desc", "decode.problem.unknown_fields"},
		{"js", []byte(" [1, 2] "), KindJSON, "JSON", ""},
		{"js", []byte(`"a string is JSON too"`), KindJSON, "JSON", ""},
		{"js", []byte("not json"), KindText, "text", "decode.problem.json"},
		{"tx", binary, KindHex, "hex: not valid UTF-8", "decode.problem.text"},
		{"tx", []byte(`{"a":1}`), KindText, "text", ""},
		{"other", []byte(`{"a":1}`), KindJSON, "JSON", ""},
		{"other", []byte("12"), KindText, "text", ""},
		{"other", []byte("订单 4711"), KindText, "text", ""},
		{"other", binary, KindHex, "hex: not valid UTF-8", ""},
		{"other", nil, KindText, "empty body", ""},
	} {
		d := r.Decode("", &rocketmq.Message{Topic: c.topic, Body: c.body})
		if d.Kind != c.kind || d.How.String() != c.how || d.Problem.ID != c.problem {
			t.Errorf("%s %q: %s %q problem %q; want %s %q %q", c.topic, c.body, d.Kind, d.How, d.Problem.ID, c.kind, c.how, c.problem)
		}
	}
	if d := r.Decode("", &rocketmq.Message{Topic: "pb", Body: newer}); !strings.Contains(d.Problem.String(), "numbers 9") {
		t.Errorf("unknown fields: %s", d.Problem)
	}
}

func TestHowSaysTheBodyWasCompressedOrCouldNotBe(t *testing.T) {
	m := &rocketmq.Message{Topic: "t", Body: []byte(`{"a":1}`), BodyCompressed: true, Compression: rocketmq.CompressionZlib}
	if got := Decode(m).How.String(); got != "zlib-compressed JSON" {
		t.Errorf("how %q", got)
	}
	if got := i18n.Match("zh-CN").Say(Decode(m).How); got != "zlib 压缩的JSON" {
		t.Errorf("Chinese how %q", got)
	}
	bad := &rocketmq.Message{Topic: "t", Body: []byte{0x78, 0x9c, 0xff}, BodyCompressed: true, Compression: rocketmq.CompressionZlib, BodyError: "the zlib body could not be decompressed: unexpected EOF; showing the stored bytes"}
	d := (*Registry)(nil).Decode("", bad)
	if d.Kind != KindHex || !strings.Contains(d.Problem.String(), "could not be decompressed") {
		t.Errorf("undecompressable: %+v", d)
	}
}

func TestHexDumpAndPreview(t *testing.T) {
	body := []byte("\x00\x01ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	d := Decode(&rocketmq.Message{Body: body})
	want := "00000000: 0001 4142 4344 4546 4748 494a 4b4c 4d4e  ..ABCDEFGHIJKLMN\n" +
		"00000010: 4f50 5152 5354 5556 5758 595a            OPQRSTUVWXYZ\n"
	if d.Text != want {
		t.Errorf("hex dump:\n%s\nwant\n%s", d.Text, want)
	}
	if d.How.String() != "hex: not text (control characters)" {
		t.Errorf("how %q", d.How)
	}
	if p := d.Preview(10); p != "000141424…" {
		t.Errorf("hex preview %q", p)
	}
	j := Decode(&rocketmq.Message{Body: []byte("{\n  \"order\": {\"id\": 4711,\n \"note\": \"订单\"}}")})
	if p := j.Preview(120); p != `{"order":{"id":4711,"note":"订单"}}` {
		t.Errorf("JSON preview %q", p)
	}
	if p := j.Preview(12); p != `{"order":{"…` {
		t.Errorf("cut preview %q", p)
	}
	if p := Decode(&rocketmq.Message{Body: []byte("a\nb\tc")}).Preview(10); p != "a b c" {
		t.Errorf("text preview %q", p)
	}
}

func TestTopicsMatchExactNamesFirstThenPatternsInOrder(t *testing.T) {
	r, err := New(t.Context(), "", Entry{Topic: "orders-*", Type: "text"}, Entry{Topic: "orders-?u", Type: "hex"},
		Entry{Topic: "orders-eu", Type: "json"}, Entry{Topic: "orders-eu", Cluster: "prod", Type: "hex"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cluster, topic, want string }{
		{"", "orders-eu", "json"},
		{"prod", "orders-eu", "hex"},
		{"", "orders-au", "text"}, // the first pattern wins
		{"", "payments", ""},
	} {
		e, ok := r.For(c.cluster, c.topic)
		if e.Type != c.want || ok != (c.want != "") {
			t.Errorf("%s on %q: %q, want %q", c.topic, c.cluster, e.Type, c.want)
		}
	}
	if n := len(r.Entries()); n != 4 {
		t.Errorf("%d entries", n)
	}
}

func TestRetryAndDeadLetterMessagesUseTheirTopicsDecoder(t *testing.T) {
	for _, c := range []struct {
		m    rocketmq.Message
		want string
	}{
		{rocketmq.Message{Topic: "orders"}, "orders"},
		{rocketmq.Message{Topic: "%RETRY%cg", Properties: map[string]string{"RETRY_TOPIC": "orders"}}, "orders"},
		{rocketmq.Message{Topic: "%DLQ%cg", Properties: map[string]string{"RETRY_TOPIC": "orders"}}, "orders"},
		{rocketmq.Message{Topic: "SCHEDULE_TOPIC_XXXX", Properties: map[string]string{"REAL_TOPIC": "orders"}}, "orders"},
		{rocketmq.Message{Topic: "SCHEDULE_TOPIC_XXXX", Properties: map[string]string{"REAL_TOPIC": "%RETRY%cg", "RETRY_TOPIC": "orders"}}, "orders"},
		{rocketmq.Message{Topic: "orders", Properties: map[string]string{"REAL_TOPIC": "x"}}, "orders"},
	} {
		if got := SentTopic(&c.m); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.m.Topic, c.m.Properties, got, c.want)
		}
	}
}

// TestConfigErrorsAreSentencesOnTheirSetting: every problem of a decoders file is
// found at once, each naming the file, the entry and the setting.
func TestConfigErrorsAreSentencesOnTheirSetting(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "garbage.desc", "this is not a descriptor set")
	writeDescriptorSet(t, dir, "orders.desc", testProto(t), true)
	cfg := writeFile(t, dir, "decoders.yaml", `
decoders:
  - topic: orders
    type: protobuf
    message: orders.v1.Ordr
    descriptor_set: orders.desc
  - topic: payments
    type: protobuf
    message: pay.Payment
    descriptor_set: garbage.desc
  - topic: "bad[pattern"
    type: json
  - type: text
  - topic: orders
    type: xml
  - topic: logs
    type: json
    message: x.Y
  - topic: missing
    message: a.B
    descriptor_set: nowhere.desc
  - topic: nothing
    message: a.B
  - topic: both
    message: a.B
    descriptor_set: orders.desc
    proto_files: [a.proto]
  - topic: broken
    message: a.B
    proto_files: [broken.proto]
  - topic: nomessage
    type: protobuf
    descriptor_set: orders.desc
`)
	writeFile(t, dir, "broken.proto", "syntax = \"proto3\";\nmessage B { int32 x = 1 }\n")
	_, err := Load(t.Context(), cfg)
	list := fault.All(err)
	want := map[string]string{
		"decoders[0].message":        "has no message type orders.v1.Ordr. Give its full name with the package; it has: orders.v1.Item, orders.v1.Order",
		"decoders[1].descriptor_set": "garbage.desc is not a descriptor set",
		"decoders[2].topic":          "the topic pattern bad[pattern is malformed",
		"decoders[3].topic":          "decoder #4 (-): it names no topic",
		"decoders[4].topic":          "the same topic is given in decoder #1",
		"decoders[4].type":           "the type xml is unknown",
		"decoders[5].message":        "message is for protobuf decoders only",
		"decoders[6].descriptor_set": "the descriptor set nowhere.desc cannot be read: no such file or directory",
		"decoders[7].descriptor_set": "needs descriptor_set",
		"decoders[8].proto_files":    "not both",
		"decoders[9].proto_files":    "broken.proto:2:25: syntax error",
		"decoders[10].message":       "names its message type",
	}
	for field, text := range want {
		e := list.For(field)
		if e == nil {
			t.Errorf("no error on %s", field)
			continue
		}
		if !strings.Contains(e.Error(), text) || !strings.HasPrefix(e.Error(), "Decoders file "+cfg+": ") {
			t.Errorf("%s: %q does not say %q", field, e.Error(), text)
		}
		for _, lang := range []string{"en", "zh-CN"} {
			if s := e.Say(i18n.Match(lang)); strings.Contains(s, "decode.") || strings.Contains(s, "<no value>") {
				t.Errorf("%s in %s: %s", field, lang, s)
			}
		}
	}
	if len(list) != len(want) {
		t.Errorf("%d errors, want %d:\n%v", len(list), len(want), err)
	}
}

func TestConfigFileFormats(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"ok.toml":        "[[clusters]]\nname = \"prod\"\nnamesrv = [\"a:9876\"]\n\n[[decoders]]\ntopic = \"t\"\ntype = \"json\"\n",
		"ok.yml":         "clusters: [{name: prod}]\ndecoders:\n  - {topic: t, type: json}\n",
		"unknown.toml":   "[[decoders]]\ntopic = \"t\"\ntype = \"json\"\ndescriptor = \"x\"\n",
		"unknown.yaml":   "decoders:\n  - {topic: t, type: json, descriptor: x}\n",
		"broken.toml":    "[[decoders]\n",
		"decoders.json":  "{}",
		"empty.toml":     "",
		"notalist.yaml":  "decoders: 5\n",
		"unreadable.yml": "",
	} {
		writeFile(t, dir, name, content)
	}
	os.Chmod(filepath.Join(dir, "unreadable.yml"), 0) //nolint:errcheck
	for name, want := range map[string]string{
		"ok.toml":        "",
		"ok.yml":         "",
		"empty.toml":     "",
		"unknown.toml":   "decoders.descriptor is not a decoder setting",
		"unknown.yaml":   "it does not parse",
		"broken.toml":    "it does not parse",
		"decoders.json":  "must end in .toml, .yaml or .yml",
		"notalist.yaml":  "it does not parse",
		"missing.toml":   "cannot be read: no such file or directory",
		"unreadable.yml": "cannot be read",
	} {
		_, err := Load(t.Context(), filepath.Join(dir, name))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			if name == "unreadable.yml" && os.Geteuid() == 0 {
				continue // root reads every file
			}
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}
