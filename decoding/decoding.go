// Package decoding is how the console reads each topic's message bodies: the decoders of
// the config file, and under them the decoders admins set in the console, kept in the
// database so every console sharing it reads a body the same way.
//
// The config file wins where both name a topic (or one of its patterns matches): the
// operator fixed it with the console's deployment, and a form should not silently undo
// what a reviewed file says. A decoder set in the console for such a topic is kept, and
// takes effect when the file's entry goes.
package decoding

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/decoder"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// The audit modes of decoder changes.
const (
	ModeSet    = "topic-decoder-set"
	ModeRemove = "topic-decoder-remove"
)

// MaxSource is the largest descriptor set or .proto file a decoder takes: far more than
// a service's schema with its imports, and small enough to keep in the database and
// send back in the form.
const MaxSource = 1 << 20

// Store is what the service keeps in the database; *store.Store implements it.
type Store interface {
	SaveTopicDecoder(ctx context.Context, d store.TopicDecoder, audit *store.AuditEntry) error
	DeleteTopicDecoder(ctx context.Context, topic string, audit *store.AuditEntry) error
	TopicDecoders(ctx context.Context) ([]store.TopicDecoder, error)
	TopicDecoderStamps(ctx context.Context) ([]store.TopicDecoderStamp, error)
}

// Options tune a Service.
type Options struct {
	// File are the config file's decoders (nil when it has none).
	File *decoder.Registry
	// ClusterName is the configured cluster's name, which file entries may be limited to.
	ClusterName string
	// NameServers names the cluster in audit entries.
	NameServers string
	// Messages finds a topic's newest message for a preview; nil without a cluster.
	Messages Messages
	Log      *slog.Logger
	Now      func() time.Time
}

// Messages finds messages; *lookup.Service implements it.
type Messages interface {
	ByRange(ctx context.Context, q lookup.RangeQuery) (*lookup.Result, error)
}

// Service answers which decoder reads a topic, and sets and removes the console's.
type Service struct {
	st   Store
	opts Options
	// cur is what the message pages read; replaced whole, so a reader never waits.
	cur atomic.Pointer[state]
	mu  sync.Mutex // one rebuild at a time
}

// state is one reading of the database's decoders, built.
type state struct {
	reg     *decoder.Registry // the file's over the console's
	console map[string]store.TopicDecoder
	// broken are stored decoders this console cannot build (a console of another
	// version wrote them), by topic.
	broken map[string]error
	stamp  [32]byte
	// readErr is why the database could not be read at the last refresh; the
	// decoders of the reading before stay in use.
	readErr error
}

// New returns a service over st; Refresh reads the console's decoders.
func New(st Store, opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Service{st: st, opts: opts}
	s.cur.Store(&state{reg: opts.File})
	return s
}

// Decode renders m's body with its topic's decoder.
func (s *Service) Decode(clusterName string, m *rocketmq.Message) decoder.Decoded {
	return s.cur.Load().reg.Decode(clusterName, m)
}

// Refresh reads the console's decoders again and, when they changed, builds the registry
// the pages read. A database that cannot be read leaves the last decoders in use.
func (s *Service) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.cur.Load()
	// The stamps first: every console reads them every few seconds, and they leave
	// the uploaded files in the database.
	stamps, err := s.st.TopicDecoderStamps(ctx)
	if err != nil {
		return s.readFailed(old, err)
	}
	if fingerprint(stamps) == old.stamp && old.console != nil && old.readErr == nil {
		return nil
	}
	rows, err := s.st.TopicDecoders(ctx)
	if err != nil {
		return s.readFailed(old, err)
	}
	stamps = stamps[:0]
	for _, d := range rows {
		stamps = append(stamps, d.Stamp())
	}
	stamp := fingerprint(stamps)
	next := &state{console: map[string]store.TopicDecoder{}, broken: map[string]error{}, stamp: stamp}
	var console *decoder.Registry
	for _, d := range rows {
		next.console[d.Topic] = d
		r, err := decoder.Checked(ctx, entryOf(d))
		if err != nil {
			next.broken[d.Topic] = err
			s.opts.Log.Warn("a topic's decoder kept in the database cannot be built", "topic", d.Topic, "err", err)
			continue
		}
		console = console.Over(r)
	}
	next.reg = s.opts.File.Over(console)
	s.cur.Store(next)
	return nil
}

// Run refreshes every interval until ctx ends, so a decoder another console set is
// used here within that interval.
func (s *Service) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
				s.opts.Log.Warn("reading the topics' decoders failed", "err", err)
			}
		}
	}
}

// readFailed keeps the decoders of the reading before in use, and says why the
// database could not be read.
func (s *Service) readFailed(old *state, err error) error {
	next := *old
	next.readErr = err
	s.cur.Store(&next)
	return err
}

// fingerprint tells one reading of the stored decoders from another. A decoder saved
// again gets a new UpdatedAt, so its file need not be compared.
func fingerprint(stamps []store.TopicDecoderStamp) [32]byte {
	h := sha256.New()
	for _, d := range stamps {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%d\x00", d.Topic, d.Type, d.Message, d.SourceKind, d.SourceName,
			d.UpdatedBy, d.SourceLen, d.UpdatedAtMs)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Source kinds of a Protobuf decoder's uploaded file.
const (
	SourceDescriptorSet = "descriptor_set"
	SourceProto         = "proto"
)

// entryOf is a stored decoder as package decoder reads it.
func entryOf(d store.TopicDecoder) decoder.Entry {
	e := decoder.Entry{Topic: d.Topic, Type: d.Type, Message: d.Message}
	if d.Type == decoder.TypeProtobuf {
		e.Source = d.Source
		if e.Source == nil {
			e.Source = []byte{}
		}
		if d.SourceKind == SourceProto {
			e.ProtoFiles = []string{d.SourceName}
		} else {
			e.DescriptorSet = d.SourceName
		}
	}
	return e
}

// Input is a decoder as an admin asks for it.
type Input struct {
	Topic string
	// Type is protobuf, json, text or hex.
	Type    string
	Message string
	// SourceName and Source are the uploaded descriptor set (protoc
	// --descriptor_set_out) or .proto file (a name ending in .proto).
	SourceName string
	Source     []byte
}

// Checked is an input found good: what would be stored, and the decoder it builds.
type Checked struct {
	Decoder store.TopicDecoder
	reg     *decoder.Registry
}

// Check validates in before anything is stored or asked: every mistake at once, as a
// fault.List of Invalid errors on the form's fields (topic, type, message, source).
func (s *Service) Check(ctx context.Context, in Input) (*Checked, error) {
	d := store.TopicDecoder{Topic: strings.TrimSpace(in.Topic), Type: strings.ToLower(strings.TrimSpace(in.Type))}
	var errs fault.List
	if !cluster.ValidName(d.Topic) {
		errs.Add(fault.InvalidField("topic", "decoders.error.topic", "Topic", d.Topic))
	}
	switch d.Type {
	case decoder.TypeProtobuf:
		d.Message = strings.TrimPrefix(strings.TrimSpace(in.Message), ".")
		d.SourceName = strings.TrimSpace(in.SourceName)
		d.Source = in.Source
		d.SourceKind = SourceDescriptorSet
		if strings.HasSuffix(strings.ToLower(d.SourceName), ".proto") {
			d.SourceKind = SourceProto
		}
		if d.Message == "" {
			errs.Add(fault.InvalidField("message", "decoders.error.message"))
		}
		switch {
		case len(d.Source) == 0:
			errs.Add(fault.InvalidField("source", "decoders.error.source"))
		case len(d.Source) > MaxSource:
			errs.Add(fault.InvalidField("source", "decoders.error.too_big", "File", d.SourceName, "KiB", (len(d.Source)+1023)>>10, "Max", MaxSource>>10))
		}
	case decoder.TypeJSON, decoder.TypeText, decoder.TypeHex:
		// A message type or file left in the form from another choice means nothing here.
	default:
		errs.Add(fault.InvalidField("type", "decoders.error.type", "Type", d.Type))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	reg, err := decoder.Checked(ctx, entryOf(d))
	if err != nil {
		for _, fe := range fault.All(err) {
			field := fe.Field
			if field != "message" && field != "type" && field != "topic" {
				field = "source"
			}
			errs.Add(fault.InvalidField(field, "decoders.error.decoder", "What", fe.Msg))
		}
		return nil, errs.Err()
	}
	return &Checked{Decoder: d, reg: reg}, nil
}

// Preview renders m's body with the checked decoder, as the message pages would once it
// is saved.
func (c *Checked) Preview(m *rocketmq.Message) decoder.Decoded {
	return c.reg.Decode("", m)
}

// Preview is a checked decoder tried on the topic's newest message.
type Preview struct {
	*Checked
	// Message is the newest message (nil when the topic holds none, or none could be
	// read), Decoded its body as the decoder reads it.
	Message *lookup.Message
	Decoded decoder.Decoded
	// Failures are the brokers that did not answer; Err why no message could be read.
	Failures []lookup.BrokerFailure
	Err      error
}

// Preview validates in and reads the topic's newest message with it; nothing is stored.
// Bad input is the error; a cluster that cannot be read is said in the Preview.
func (s *Service) Preview(ctx context.Context, in Input) (*Preview, error) {
	c, err := s.Check(ctx, in)
	if err != nil {
		return nil, err
	}
	p := &Preview{Checked: c}
	if s.opts.Messages == nil {
		p.Err = fault.New(fault.Unavailable, "decoders.preview.no_cluster")
		return p, nil
	}
	// The newest message stored at any time: the range query's offset searches find
	// it in each queue's last stored messages.
	res, err := s.opts.Messages.ByRange(ctx, lookup.RangeQuery{Topic: c.Decoder.Topic, Begin: time.UnixMilli(1), End: s.opts.Now().Add(time.Minute), Limit: 1})
	if err != nil {
		p.Err = err
		return p, nil
	}
	p.Failures = res.Failures
	if len(res.Messages) > 0 {
		m := res.Messages[0]
		p.Message, p.Decoded = &m, c.Preview(m.Message)
	}
	return p, nil
}

// Who is the admin changing a decoder, for the audit log.
type Who struct{ Actor, Addr string }

// Save validates in, stores it with its audit entry, and puts it to use at once.
func (s *Service) Save(ctx context.Context, who Who, in Input) (*store.TopicDecoder, error) {
	c, err := s.Check(ctx, in)
	if err != nil {
		return nil, err
	}
	d := c.Decoder
	d.UpdatedBy, d.UpdatedAt = who.Actor, s.opts.Now()
	if err := s.st.SaveTopicDecoder(ctx, d, s.auditEntry(who, ModeSet, d)); err != nil {
		return nil, err
	}
	return &d, s.Refresh(ctx)
}

// Remove deletes the console's decoder of topic, audited, and stops using it at once.
// A topic without one is fault.NotFound.
func (s *Service) Remove(ctx context.Context, who Who, topic string) error {
	d := store.TopicDecoder{Topic: topic}
	if cur, ok := s.cur.Load().console[topic]; ok {
		d = cur
	}
	err := s.st.DeleteTopicDecoder(ctx, topic, s.auditEntry(who, ModeRemove, d))
	if errors.Is(err, store.ErrTopicDecoderNotFound) {
		return fault.Wrap(err, fault.NotFound, "decoders.error.none", "Topic", topic).Because("topic_decoder_not_found")
	}
	if err != nil {
		return err
	}
	return s.Refresh(ctx)
}

// auditEntry records what a change set: the decoder, and of an uploaded file its name,
// size and SHA-256 (not its contents).
func (s *Service) auditEntry(who Who, mode string, d store.TopicDecoder) *store.AuditEntry {
	p := map[string]any{"topic": d.Topic, "type": d.Type}
	if d.Type == decoder.TypeProtobuf {
		p["message"], p["sourceKind"], p["sourceName"], p["sourceBytes"] = d.Message, d.SourceKind, d.SourceName, len(d.Source)
		p["sourceSha256"] = fmt.Sprintf("%x", sha256.Sum256(d.Source))
	}
	params, _ := json.Marshal(p)
	return &store.AuditEntry{Actor: who.Actor, ActorAddr: who.Addr, Cluster: s.opts.NameServers, Topics: []string{d.Topic},
		Mode: mode, Params: params, Status: store.AuditApplied, StartedAt: s.opts.Now()}
}

// Topic says how a topic's bodies are read and where that comes from.
type Topic struct {
	// Effective is the decoder in use; false Found means none (bodies are read by
	// looking at them).
	Effective decoder.Entry
	Found     bool
	// File is the config file's decoder of the topic, if any; Console the one set in
	// the console, if any (it is not in use while File is).
	File    *decoder.Entry
	Console *store.TopicDecoder
	// Broken says why the console's decoder cannot be built here.
	Broken error
	// ReadErr says why the database could not be read at the last refresh.
	ReadErr error
}

// For says how topic's bodies are read.
func (s *Service) For(topic string) Topic {
	st := s.cur.Load()
	t := Topic{Broken: st.broken[topic], ReadErr: st.readErr}
	t.Effective, t.Found = st.reg.For(s.opts.ClusterName, topic)
	if e, ok := s.opts.File.For(s.opts.ClusterName, topic); ok {
		t.File = &e
	}
	if d, ok := st.console[topic]; ok {
		t.Console = &d
	}
	return t
}

// Listed is one decoder of the cluster, for the list of them all.
type Listed struct {
	decoder.Entry
	// Console is set for a decoder set in the console; Shadowed when the file's
	// decoder of the topic wins over it.
	Console  *store.TopicDecoder
	Shadowed bool
}

// List is every decoder that can apply on this cluster: the file's first (in the order
// they win), then the console's.
func (s *Service) List() []Listed {
	st := s.cur.Load()
	var out []Listed
	for _, e := range s.opts.File.Entries() {
		if e.Cluster == "" || e.Cluster == s.opts.ClusterName {
			out = append(out, Listed{Entry: e})
		}
	}
	for _, d := range sortedConsole(st.console) {
		_, shadowed := s.opts.File.For(s.opts.ClusterName, d.Topic)
		out = append(out, Listed{Entry: entryOf(d), Console: &d, Shadowed: shadowed})
	}
	return out
}

// Problem is a message for a page about a broken stored decoder.
func Problem(err error) i18n.Message {
	if fe := fault.As(err); fe != nil {
		return i18n.M("decoders.error.decoder", "What", fe.Msg)
	}
	return i18n.M("decoders.error.decoder", "What", err.Error())
}

func sortedConsole(m map[string]store.TopicDecoder) []store.TopicDecoder {
	out := make([]store.TopicDecoder, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}
