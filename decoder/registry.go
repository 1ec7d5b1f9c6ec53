package decoder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"rmqconsole/configfile"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoregistry"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// The decoder types an entry names.
const (
	TypeProtobuf = "protobuf"
	TypeJSON     = "json"
	TypeText     = "text"
	TypeHex      = "hex"
)

// Entry is one decoder as configured: which topics, and how to read their bodies.
//
// In a file (TOML shown; YAML takes the same keys under "decoders:"), paths relative
// to the file's directory:
//
//	[[decoders]]
//	topic = "orders-*"                  # a topic name, or a pattern: * ? [a-z]
//	cluster = "production"              # only on this cluster (default: every cluster)
//	type = "protobuf"                   # protobuf, json, text or hex
//	message = "orders.v1.Order"         # the Protobuf message type
//	descriptor_set = "orders.desc"      # protoc --include_imports --descriptor_set_out
//	# or, instead of descriptor_set:
//	proto_files = ["orders/v1/order.proto"]
//	import_paths = ["proto"]            # where the files and their imports are (-I)
type Entry struct {
	Topic         string   `toml:"topic" yaml:"topic"`
	Cluster       string   `toml:"cluster" yaml:"cluster"`
	Type          string   `toml:"type" yaml:"type"`
	Message       string   `toml:"message" yaml:"message"`
	DescriptorSet string   `toml:"descriptor_set" yaml:"descriptor_set"`
	ProtoFiles    []string `toml:"proto_files" yaml:"proto_files"`
	ImportPaths   []string `toml:"import_paths" yaml:"import_paths"`

	// Source is the contents of the descriptor set or of the one .proto file (named by
	// DescriptorSet or ProtoFiles) when they were uploaded rather than read from disk:
	// a decoder set in the console (see Checked).
	Source []byte `toml:"-" yaml:"-"`
	// Origin is where the entry comes from: OriginFile or OriginConsole.
	Origin string `toml:"-" yaml:"-"`
}

// Where an entry comes from.
const (
	OriginFile    = "file"    // the decoders of the config file
	OriginConsole = "console" // set by an admin in the console, kept in its database
)

// Registry maps topics to decoders. Its zero value and nil decode every topic by
// looking at the body. It is safe for concurrent use.
type Registry struct {
	rules []rule
}

type rule struct {
	Entry
	pattern bool
	proto   *protoType
}

// configFile is a decoders file; "clusters" may sit beside "decoders", so one file can
// hold both.
type configFile struct {
	Decoders []Entry `toml:"decoders" yaml:"decoders"`
	Clusters any     `toml:"clusters" yaml:"clusters"`
	Masking  any     `toml:"masking" yaml:"masking"` // read by package masking
	Rights   any     `toml:"rights" yaml:"rights"`   // read by package rights
}

// Load reads and checks a decoders file, TOML (.toml) or YAML (.yaml, .yml). Every
// problem is reported at once, as a fault.List of Invalid errors whose sentences name
// the file and the entry, and whose Field is the setting ("decoders[2].message").
func Load(ctx context.Context, file string) (*Registry, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fileFault(file, "", i18n.M("decode.config.unreadable", "Error", pathError(err)))
	}
	return Parse(ctx, raw, file)
}

// Parse is Load on a file's contents; file names it (its extension says the format)
// and its directory is where relative paths start.
func Parse(ctx context.Context, raw []byte, file string) (*Registry, error) {
	var f configFile
	// The decoders own the file's top level; the other sections are other packages'.
	owns := func(k []string) bool {
		return len(k) == 0 || (k[0] != "clusters" && k[0] != "masking" && k[0] != "rights")
	}
	if err := configfile.Decode(raw, file, &f, owns); err != nil {
		switch e := err.(*configfile.Error); e.Problem {
		case configfile.Unknown:
			return nil, fileFault(file, e.Setting, i18n.M("decode.config.unknown", "Setting", e.Setting))
		case configfile.Format:
			return nil, fileFault(file, "", i18n.M("decode.config.format"))
		default:
			return nil, fileFault(file, "", i18n.M("decode.config.syntax", "Error", e.Detail))
		}
	}
	r, err := New(ctx, filepath.Dir(file), f.Decoders...)
	if err != nil {
		var out fault.List
		for _, e := range fault.All(err) {
			e.Msg = i18n.M("decode.config.file", "File", file, "What", e.Msg)
			out = append(out, e)
		}
		return nil, out
	}
	return r, nil
}

func fileFault(file, field string, what i18n.Message) error {
	return fault.List{fault.InvalidField(field, "decode.config.file", "File", file, "What", what)}
}

// setupError is a problem with one setting of one entry.
type setupError struct {
	id    string
	field string
	kv    []any
}

// New builds a registry from entries, checking each (paths relative to dir): a topic
// or pattern, a known type, and for Protobuf a message type that the descriptor set
// or the .proto files define. Errors are a fault.List, each naming its entry.
func New(ctx context.Context, dir string, entries ...Entry) (*Registry, error) {
	r := &Registry{}
	var errs fault.List
	sets := map[string]*protoregistry.Files{} // one load per descriptor set
	seen := map[string]int{}
	for i, e := range entries {
		if e.Origin == "" {
			e.Origin = OriginFile
		}
		ru, problems := checkEntry(ctx, dir, e, sets)
		key := ru.Cluster + "\x00" + ru.Topic
		if first, dup := seen[key]; dup && ru.Topic != "" {
			problems = append(problems, &setupError{id: "decode.config.duplicate", field: "topic", kv: []any{"First", first}})
		}
		seen[key] = i + 1
		who := ru.Topic
		if who == "" {
			who = "-"
		}
		for _, se := range problems {
			errs.Add(fault.InvalidField(fmt.Sprintf("decoders[%d].%s", i, se.field), "decode.config.entry",
				"N", i+1, "Topic", who, "What", i18n.M(se.id, se.kv...)))
		}
		r.rules = append(r.rules, ru)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	// The most specific entry wins: an exact name over a pattern, an entry for the
	// cluster over one for every cluster; otherwise the order they were given.
	slices.SortStableFunc(r.rules, func(a, b rule) int { return a.rank() - b.rank() })
	return r, nil
}

func (ru rule) rank() int {
	r := 0
	if ru.pattern {
		r += 2
	}
	if ru.Cluster == "" {
		r++
	}
	return r
}

// checkEntry normalises one entry and loads what it names, with every problem found.
func checkEntry(ctx context.Context, dir string, e Entry, sets map[string]*protoregistry.Files) (rule, []*setupError) {
	var problems []*setupError
	fail := func(se *setupError) { problems = append(problems, se) }
	e.Topic = strings.TrimSpace(e.Topic)
	e.Cluster = strings.TrimSpace(e.Cluster)
	e.Type = strings.ToLower(strings.TrimSpace(e.Type))
	e.Message = strings.TrimPrefix(strings.TrimSpace(e.Message), ".")
	if e.Type == "" && e.Message != "" {
		e.Type = TypeProtobuf
	}
	ru := rule{Entry: e, pattern: strings.ContainsAny(e.Topic, "*?[")}
	switch {
	case e.Topic == "":
		fail(&setupError{id: "decode.config.topic.missing", field: "topic"})
	case ru.pattern:
		if _, err := path.Match(e.Topic, ""); err != nil {
			fail(&setupError{id: "decode.config.topic.bad", field: "topic", kv: []any{"Pattern", e.Topic}})
		}
	}
	switch e.Type {
	case TypeProtobuf:
		p, se := protoFor(ctx, dir, e, sets)
		if se != nil {
			fail(se)
		}
		ru.proto = p
	case TypeJSON, TypeText, TypeHex:
		for _, s := range []struct {
			field string
			set   bool
		}{{"message", e.Message != ""}, {"descriptor_set", e.DescriptorSet != ""}, {"proto_files", len(e.ProtoFiles) > 0}, {"import_paths", len(e.ImportPaths) > 0}} {
			if s.set {
				fail(&setupError{id: "decode.config.protobuf_only", field: s.field, kv: []any{"Setting", s.field, "Type", e.Type}})
			}
		}
	default:
		fail(&setupError{id: "decode.config.type.bad", field: "type", kv: []any{"Type", e.Type}})
	}
	return ru, problems
}

// Checked builds a registry of one decoder set in the console, whose descriptor set or
// .proto file is in e.Source. Its problems are a fault.List of Invalid errors, each a
// sentence on its own (no file or entry to name) whose Field is the setting: "type",
// "message", "descriptor_set" or "proto_files".
func Checked(ctx context.Context, e Entry) (*Registry, error) {
	e.Origin = OriginConsole
	ru, problems := checkEntry(ctx, "", e, map[string]*protoregistry.Files{})
	var errs fault.List
	for _, se := range problems {
		errs.Add(fault.InvalidField(se.field, se.id, se.kv...))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return &Registry{rules: []rule{ru}}, nil
}

// Over is a registry where r's decoders come before under's: a topic both have a
// decoder for is read with r's. Either may be nil.
func (r *Registry) Over(under *Registry) *Registry {
	out := &Registry{}
	if r != nil {
		out.rules = append(out.rules, r.rules...)
	}
	if under != nil {
		out.rules = append(out.rules, under.rules...)
	}
	return out
}

// protoFor loads the message type a Protobuf entry names.
func protoFor(ctx context.Context, dir string, e Entry, sets map[string]*protoregistry.Files) (*protoType, *setupError) {
	switch {
	case e.Message == "":
		return nil, &setupError{id: "decode.config.message.missing", field: "message"}
	case e.DescriptorSet != "" && len(e.ProtoFiles) > 0:
		return nil, &setupError{id: "decode.config.source.both", field: "proto_files"}
	case e.DescriptorSet == "" && len(e.ProtoFiles) == 0:
		return nil, &setupError{id: "decode.config.source.missing", field: "descriptor_set"}
	case e.DescriptorSet != "" && len(e.ImportPaths) > 0:
		return nil, &setupError{id: "decode.config.import_paths", field: "import_paths"}
	}
	if e.Source != nil {
		return uploadedProto(ctx, e)
	}
	if e.DescriptorSet != "" {
		file := resolve(dir, e.DescriptorSet)
		files, ok := sets[file]
		if !ok {
			var se *setupError
			if files, se = loadDescriptorSet(file, e.DescriptorSet); se != nil {
				return nil, se
			}
			sets[file] = files
		}
		return findMessage(files, e.Message, filepath.Base(e.DescriptorSet))
	}
	imports := make([]string, 0, len(e.ImportPaths))
	for _, p := range e.ImportPaths {
		imports = append(imports, resolve(dir, p))
	}
	if len(imports) == 0 {
		imports = []string{dir}
	}
	files, se := compileProtoFiles(ctx, e.ProtoFiles, imports)
	if se != nil {
		return nil, se
	}
	return findMessage(files, e.Message, "")
}

// Entries are the decoders as configured (exact topics first), for a page that lists
// them.
func (r *Registry) Entries() []Entry {
	if r == nil {
		return nil
	}
	out := make([]Entry, len(r.rules))
	for i, ru := range r.rules {
		out[i] = ru.Entry
	}
	return out
}

// For is the decoder of topic on cluster: an entry naming the topic (one for this
// cluster before one for every cluster), else the first pattern that matches it;
// false when none does.
func (r *Registry) For(cluster, topic string) (Entry, bool) {
	if ru := r.rule(cluster, topic); ru != nil {
		return ru.Entry, true
	}
	return Entry{}, false
}

func (r *Registry) rule(cluster, topic string) *rule {
	if r == nil {
		return nil
	}
	for i := range r.rules {
		ru := &r.rules[i]
		if ru.Cluster != "" && ru.Cluster != cluster {
			continue
		}
		if ru.pattern {
			if ok, _ := path.Match(ru.Topic, topic); ok {
				return ru
			}
		} else if ru.Topic == topic {
			return ru
		}
	}
	return nil
}

// Decode renders m's body with the decoder of its topic on cluster. A message in a
// retry or dead-letter topic, or held for later delivery in a system topic, is read
// with the decoder of the topic it was sent to.
func (r *Registry) Decode(cluster string, m *rocketmq.Message) Decoded {
	ru := r.rule(cluster, SentTopic(m))
	if ru == nil || len(m.Body) == 0 || m.BodyError != "" {
		return Decode(m)
	}
	var d Decoded
	switch ru.Type {
	case TypeProtobuf:
		var err error
		if d, err = ru.proto.decode(m.Body); err != nil {
			d = sniff(m.Body)
			d.Problem = i18n.M("decode.problem.protobuf", "Type", string(ru.proto.md.FullName()), "Error", err.Error())
		}
	case TypeJSON:
		t := bytes.TrimSpace(m.Body)
		var b bytes.Buffer
		if json.Valid(t) && json.Indent(&b, t, "", "  ") == nil {
			d = Decoded{Text: b.String(), Kind: KindJSON, How: i18n.M("decode.how.json")}
		} else {
			d = asText(m.Body)
			d.Problem = i18n.M("decode.problem.json")
		}
	case TypeText:
		if d = asText(m.Body); d.Kind != KindText {
			d.Problem = i18n.M("decode.problem.text")
		}
	default:
		d = asHex(m.Body, i18n.M("decode.how.hex"))
	}
	return finish(m, d)
}

// SentTopic is the topic a producer sent m to: the original topic of a message in a
// retry (%RETRY%) or dead-letter (%DLQ%) topic, or in a system topic that holds it for
// later delivery (REAL_TOPIC); m's own topic otherwise.
func SentTopic(m *rocketmq.Message) string {
	t := m.Topic
	if real := m.Properties["REAL_TOPIC"]; real != "" && isSystemTopic(t) {
		t = real
	}
	if orig := m.Properties["RETRY_TOPIC"]; orig != "" && (strings.HasPrefix(t, "%RETRY%") || strings.HasPrefix(t, "%DLQ%")) {
		t = orig
	}
	return t
}

func isSystemTopic(t string) bool {
	return strings.HasPrefix(t, "SCHEDULE_TOPIC_") || strings.HasPrefix(t, "rmq_sys_") || strings.HasPrefix(t, "RMQ_SYS_") || strings.HasPrefix(t, "%")
}
