package decoder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	// The well-known types, for descriptor sets written without --include_imports.
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/fieldmaskpb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"

	"rmqconsole/i18n"
)

// protoType is one Protobuf message type, with the files it came from, to decode
// bodies with.
type protoType struct {
	md     protoreflect.MessageDescriptor
	types  *dynamicpb.Types // resolves google.protobuf.Any contents
	source string           // the descriptor set's or .proto file's name, for How
}

// decode reads body as the type and renders it as indented JSON with the field names
// of the .proto file; it fails when the body is not a valid message of the type.
func (p *protoType) decode(body []byte) (Decoded, error) {
	msg := dynamicpb.NewMessage(p.md)
	if err := (proto.UnmarshalOptions{Resolver: p.types}).Unmarshal(body, msg); err != nil {
		return Decoded{}, err
	}
	js, err := protojson.MarshalOptions{UseProtoNames: true, Resolver: p.types}.Marshal(msg)
	if err != nil {
		return Decoded{}, err
	}
	// protojson varies its spacing on purpose; indent it the same way every time.
	var out bytes.Buffer
	if err := json.Indent(&out, js, "", "  "); err != nil {
		return Decoded{}, err
	}
	d := Decoded{Text: out.String(), Kind: KindProtobuf, How: i18n.M("decode.how.protobuf", "Type", string(p.md.FullName()), "Source", p.source)}
	if unknown := unknownFields(msg.GetUnknown()); len(unknown) > 0 {
		d.Problem = i18n.M("decode.problem.unknown_fields", "Type", string(p.md.FullName()), "Fields", strings.Join(unknown, ", "))
	}
	return d, nil
}

// unknownFields lists the field numbers the type does not define: the producer's
// schema is newer than the descriptor, or the type is the wrong one.
func unknownFields(b []byte) []string {
	var out []string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			break
		}
		b = b[m:]
		if s := fmt.Sprint(num); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// loadDescriptorSet reads a FileDescriptorSet as protoc --descriptor_set_out writes it.
// Well-known types it imports but lacks are taken from the console's own copies.
// name is the file as the config names it, for sentences.
func loadDescriptorSet(path, name string) (*protoregistry.Files, *setupError) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &setupError{id: "decode.config.descriptor.unreadable", field: "descriptor_set", kv: []any{"File", name, "Error", pathError(err)}}
	}
	return parseDescriptorSet(data, name)
}

// parseDescriptorSet reads a FileDescriptorSet's bytes; name is its file's, for sentences.
func parseDescriptorSet(data []byte, name string) (*protoregistry.Files, *setupError) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &set); err != nil {
		return nil, &setupError{id: "decode.config.descriptor.bad", field: "descriptor_set", kv: []any{"File", name, "Error", err.Error()}}
	}
	if len(set.File) == 0 {
		return nil, &setupError{id: "decode.config.descriptor.bad", field: "descriptor_set", kv: []any{"File", name, "Error", "it holds no file"}}
	}
	addWellKnown(&set)
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		if missing := missingImport(&set); missing != "" {
			return nil, &setupError{id: "decode.config.descriptor.imports", field: "descriptor_set", kv: []any{"File", name, "Import", missing}}
		}
		return nil, &setupError{id: "decode.config.descriptor.bad", field: "descriptor_set", kv: []any{"File", name, "Error", err.Error()}}
	}
	return files, nil
}

// addWellKnown adds to set the google/protobuf files it imports and lacks.
func addWellKnown(set *descriptorpb.FileDescriptorSet) {
	have := map[string]bool{}
	for _, f := range set.File {
		have[f.GetName()] = true
	}
	var add func(name string)
	add = func(name string) {
		if have[name] {
			return
		}
		fd, err := protoregistry.GlobalFiles.FindFileByPath(name)
		if err != nil || !strings.HasPrefix(name, "google/protobuf/") {
			return
		}
		have[name] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).Path())
		}
		set.File = append([]*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(fd)}, set.File...)
	}
	for _, f := range slices.Clone(set.File) {
		for _, dep := range f.Dependency {
			add(dep)
		}
	}
}

// missingImport names a file the set imports and does not hold, or "".
func missingImport(set *descriptorpb.FileDescriptorSet) string {
	have := map[string]bool{}
	for _, f := range set.File {
		have[f.GetName()] = true
	}
	for _, f := range set.File {
		for _, dep := range f.Dependency {
			if !have[dep] {
				return dep
			}
		}
	}
	return ""
}

// uploadedProto loads the message type of an entry whose descriptor set or one .proto
// file was uploaded (e.Source): a .proto file may import the google/protobuf files only,
// as nothing else came with it.
func uploadedProto(ctx context.Context, e Entry) (*protoType, *setupError) {
	if e.DescriptorSet != "" {
		files, se := parseDescriptorSet(e.Source, e.DescriptorSet)
		if se != nil {
			return nil, se
		}
		return findMessage(files, e.Message, e.DescriptorSet)
	}
	name := e.ProtoFiles[0]
	open := func(p string) (io.ReadCloser, error) {
		if p == name {
			return io.NopCloser(bytes.NewReader(e.Source)), nil
		}
		return nil, os.ErrNotExist
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: open})}
	res, err := c.Compile(ctx, name)
	if err != nil {
		return nil, &setupError{id: "decode.config.proto.bad", field: "proto_files", kv: []any{"Error", err.Error()}}
	}
	files, se := registerCompiled(res)
	if se != nil {
		return nil, se
	}
	return findMessage(files, e.Message, "")
}

// compileProtoFiles compiles .proto files found under the import paths (the
// google/protobuf ones are built in), as protoc would with -I.
func compileProtoFiles(ctx context.Context, files, importPaths []string) (*protoregistry.Files, *setupError) {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: importPaths})}
	res, err := c.Compile(ctx, files...)
	if err != nil {
		return nil, &setupError{id: "decode.config.proto.bad", field: "proto_files", kv: []any{"Error", protoError(err, importPaths)}}
	}
	return registerCompiled(res)
}

// registerCompiled puts compiled files and everything they import into one registry.
func registerCompiled(res linker.Files) (*protoregistry.Files, *setupError) {
	reg := new(protoregistry.Files)
	var register func(fd protoreflect.FileDescriptor) error
	register = func(fd protoreflect.FileDescriptor) error {
		if _, err := reg.FindFileByPath(fd.Path()); err == nil {
			return nil
		}
		imports := fd.Imports()
		for i := range imports.Len() {
			if err := register(imports.Get(i).FileDescriptor); err != nil {
				return err
			}
		}
		return reg.RegisterFile(fd)
	}
	for _, f := range res {
		if err := register(f); err != nil {
			return nil, &setupError{id: "decode.config.proto.bad", field: "proto_files", kv: []any{"Error", err.Error()}}
		}
	}
	return reg, nil
}

// protoError is the compiler's error with the import paths cut from file names, so
// it names files as the config does.
func protoError(err error, importPaths []string) string {
	s := err.Error()
	if errors.Is(err, os.ErrNotExist) || strings.Contains(s, "file does not exist") {
		s += fmt.Sprintf(" (looked under %s)", strings.Join(importPaths, ", "))
	}
	return s
}

// findMessage is the named message type of files, or the error that lists what the
// files do hold.
func findMessage(files *protoregistry.Files, name, source string) (*protoType, *setupError) {
	d, err := files.FindDescriptorByName(protoreflect.FullName(name))
	md, ok := d.(protoreflect.MessageDescriptor)
	if err != nil || !ok {
		return nil, &setupError{id: "decode.config.message.unknown", field: "message", kv: []any{"Source", source, "Message", name, "Known", knownMessages(files)}}
	}
	if source == "" {
		source = md.ParentFile().Path()
	}
	return &protoType{md: md, types: dynamicpb.NewTypes(files), source: source}, nil
}

// knownMessages lists up to 12 message types of the files, not counting the
// google.protobuf ones, for a sentence.
func knownMessages(files *protoregistry.Files) string {
	var names []string
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			if !m.IsMapEntry() {
				names = append(names, string(m.FullName()))
			}
			walk(m.Messages())
		}
	}
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(fd.Path(), "google/protobuf/") {
			walk(fd.Messages())
		}
		return true
	})
	slices.Sort(names)
	if len(names) == 0 {
		return "-"
	}
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" … (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}

// pathError is a file error without the operation Go puts first.
func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// resolve makes a config path absolute against the config file's directory.
func resolve(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
