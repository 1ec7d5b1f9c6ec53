package decoding

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"rmqconsole/decoder"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

func open(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// timestampSet is a descriptor set holding google/protobuf/timestamp.proto, as protoc
// writes it.
func timestampSet(t *testing.T) []byte {
	t.Helper()
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto((&timestamppb.Timestamp{}).ProtoReflect().Descriptor().ParentFile())}}
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func auditCount(t *testing.T, st *store.Store) int {
	t.Helper()
	entries, _, err := st.Audit().List(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// A decoder set in the console reads the topic's bodies at once, on this console and,
// after its refresh, on another sharing the database; removing it goes back to looking
// at the body. Each change is one audit entry.
func TestSavedDecoderIsUsedAtOnceAndByOtherConsolesAfterTheirRefresh(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	s, other := New(st, Options{}), New(st, Options{})
	body, _ := proto.Marshal(timestamppb.New(timestamppb.Now().AsTime().Truncate(1e9)))
	m := &rocketmq.Message{Topic: "ticks", Body: body}
	if d := s.Decode("", m); d.Kind == decoder.KindProtobuf {
		t.Fatalf("read as Protobuf before any decoder: %s", d.Text)
	}
	in := Input{Topic: "ticks", Type: "protobuf", Message: "google.protobuf.Timestamp", SourceName: "ts.desc", Source: timestampSet(t)}
	if _, err := s.Save(ctx, Who{Actor: "alice"}, in); err != nil {
		t.Fatal(err)
	}
	if d := s.Decode("", m); d.Kind != decoder.KindProtobuf {
		t.Fatalf("after save read as %s (%v), want Protobuf", d.Kind, d.Problem)
	}
	if d := other.Decode("", m); d.Kind == decoder.KindProtobuf {
		t.Fatal("the other console used the decoder before its refresh")
	}
	if err := other.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if d := other.Decode("", m); d.Kind != decoder.KindProtobuf {
		t.Fatalf("the other console after its refresh read %s", d.Kind)
	}
	if tp := s.For("ticks"); !tp.Found || tp.Console == nil || tp.File != nil || tp.Effective.Origin != decoder.OriginConsole {
		t.Errorf("where the decoder comes from: %+v", tp)
	}
	if err := s.Remove(ctx, Who{Actor: "alice"}, "ticks"); err != nil {
		t.Fatal(err)
	}
	if d := s.Decode("", m); d.Kind == decoder.KindProtobuf {
		t.Fatal("still Protobuf after remove")
	}
	if err := s.Remove(ctx, Who{Actor: "alice"}, "ticks"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("second remove: %v", err)
	}
	if n := auditCount(t, st); n != 2 {
		t.Fatalf("audit entries %d, want 2 (set, remove)", n)
	}
}

// What cannot be used is told on its field, all at once, and nothing is stored or
// audited: a file that is no descriptor set, a type it lacks, a file too big.
func TestBadDecodersAreSentencesAndNothingIsSaved(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	s := New(st, Options{})
	for _, c := range []struct {
		name  string
		in    Input
		field string
		says  string
	}{
		{"not a descriptor set", Input{Topic: "t", Type: "protobuf", Message: "a.B", SourceName: "x.desc", Source: []byte("\xff\xff garbage")}, "source", "x.desc is not a descriptor set"},
		{"unknown type", Input{Topic: "t", Type: "protobuf", Message: "google.protobuf.Nope", SourceName: "ts.desc", Source: timestampSet(t)}, "message", "has no message type google.protobuf.Nope"},
		{"too big", Input{Topic: "t", Type: "protobuf", Message: "a.B", SourceName: "big.desc", Source: make([]byte, MaxSource+1)}, "source", "at most 1024 KiB"},
		{"no type", Input{Topic: "t", Type: "yaml"}, "type", "yaml is unknown"},
		{"no message", Input{Topic: "t", Type: "protobuf", SourceName: "ts.desc", Source: timestampSet(t)}, "message", "Name the Protobuf message type"},
	} {
		_, err := s.Save(ctx, Who{Actor: "alice"}, c.in)
		fe := fault.All(err).For(c.field)
		if fe == nil || !strings.Contains(fe.Msg.String(), c.says) {
			t.Errorf("%s: %v, want on %s: %s", c.name, err, c.field, c.says)
		}
	}
	if got, _ := st.TopicDecoders(ctx); len(got) != 0 {
		t.Errorf("stored: %+v", got)
	}
	if n := auditCount(t, st); n != 0 {
		t.Errorf("%d audit entries for refused input", n)
	}
}

// The config file's decoder wins over the console's for the topics it covers, and the
// console's is kept (shown as not in use).
func TestTheConfigFileWins(t *testing.T) {
	ctx := context.Background()
	file, err := decoder.New(ctx, "", decoder.Entry{Topic: "orders-*", Type: decoder.TypeText})
	if err != nil {
		t.Fatal(err)
	}
	s := New(open(t), Options{File: file})
	if _, err := s.Save(ctx, Who{Actor: "alice"}, Input{Topic: "orders-eu", Type: "hex"}); err != nil {
		t.Fatal(err)
	}
	tp := s.For("orders-eu")
	if tp.Effective.Type != decoder.TypeText || tp.Effective.Origin != decoder.OriginFile || tp.Console == nil || tp.Console.Type != "hex" {
		t.Errorf("orders-eu: %+v", tp)
	}
	list := s.List()
	if len(list) != 2 || list[0].Origin != decoder.OriginFile || list[1].Console == nil || !list[1].Shadowed {
		t.Errorf("list: %+v", list)
	}
}

// A .proto file is told from a descriptor set by its name, kept as such, and read again
// from the database by another console.
func TestProtoFileIsKeptAsSource(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	src := "syntax = \"proto3\";\npackage shop;\nmessage Ping { int64 id = 1; }\n"
	if _, err := New(st, Options{}).Save(ctx, Who{Actor: "alice"}, Input{Topic: "pings", Type: "protobuf", Message: "shop.Ping", SourceName: "ping.proto", Source: []byte(src)}); err != nil {
		t.Fatal(err)
	}
	if ds, _ := st.TopicDecoders(ctx); len(ds) != 1 || ds[0].SourceKind != SourceProto || string(ds[0].Source) != src {
		t.Fatalf("stored: %+v", ds)
	}
	other := New(st, Options{})
	if err := other.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if d := other.Decode("", &rocketmq.Message{Topic: "pings", Body: []byte{0x08, 0x07}}); d.Kind != decoder.KindProtobuf || !strings.Contains(d.Text, `"id": "7"`) {
		t.Errorf("read as %s: %s (%v)", d.Kind, d.Text, d.Problem)
	}
}

// fileReads counts the reads of the stored decoders with their uploaded files.
type fileReads struct {
	*store.Store
	n int
}

func (f *fileReads) TopicDecoders(ctx context.Context) ([]store.TopicDecoder, error) {
	f.n++
	return f.Store.TopicDecoders(ctx)
}

// Every console refreshes every few seconds: a refresh with nothing changed compares
// stamps and reads no uploaded file; one after another console's save reads them once.
func TestRefreshReadsFilesOnlyWhenDecodersChanged(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	reads := &fileReads{Store: st}
	s, other := New(reads, Options{}), New(st, Options{})
	for range 3 {
		if err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if reads.n != 1 {
		t.Fatalf("three refreshes of an unchanged database read the files %d times, want 1", reads.n)
	}
	in := Input{Topic: "ticks", Type: "protobuf", Message: "google.protobuf.Timestamp", SourceName: "ts.desc", Source: timestampSet(t)}
	if _, err := other.Save(ctx, Who{Actor: "alice"}, in); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if reads.n != 2 {
		t.Fatalf("after another console's save the files were read %d times in all, want 2", reads.n)
	}
	if tp := s.For("ticks"); !tp.Found || tp.Console == nil {
		t.Fatalf("the saved decoder is not in use after the refresh: %+v", tp)
	}
}
