package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// A topic's decoder is set, replaced and removed, each with its audit entry; the
// uploaded file comes back byte for byte, another cluster's decoders are not seen,
// and removing a decoder the topic does not have changes and audits nothing.
func TestTopicDecodersSetReplacedRemoved(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s := db.open(t).ForCluster("production")
		other := s.ForCluster("staging")
		ctx := context.Background()
		at := time.UnixMilli(1_700_000_000_000).UTC()
		src := []byte{0x0a, 0x00, 0xff, 0x01} // not text: a descriptor set is binary
		d := TopicDecoder{Topic: "orders", Type: "protobuf", Message: "orders.v1.Order", SourceKind: "descriptor_set",
			SourceName: "orders.desc", Source: src, UpdatedBy: "alice", UpdatedAt: at}
		audit := func(mode string) *AuditEntry {
			return &AuditEntry{Actor: "alice", Mode: mode, Topics: []string{"orders"}, Status: AuditApplied, StartedAt: at}
		}
		if err := s.SaveTopicDecoder(ctx, d, audit("topic-decoder-set")); err != nil {
			t.Fatal(err)
		}
		if err := other.SaveTopicDecoder(ctx, TopicDecoder{Topic: "orders", Type: "json", UpdatedAt: at}, audit("topic-decoder-set")); err != nil {
			t.Fatal(err)
		}
		got, err := s.TopicDecoders(ctx)
		if err != nil || len(got) != 1 || got[0].Type != "protobuf" || !bytes.Equal(got[0].Source, src) || got[0].SourceName != "orders.desc" ||
			got[0].UpdatedBy != "alice" || !got[0].UpdatedAt.Equal(at) {
			t.Fatalf("decoders after set: %+v, %v", got, err)
		}
		if stamps, err := s.TopicDecoderStamps(ctx); err != nil || len(stamps) != 1 || stamps[0] != got[0].Stamp() || stamps[0].SourceLen != len(src) {
			t.Fatalf("stamps %+v (%v), want the stamp of %+v", stamps, err, got[0])
		}
		d.Type, d.Message, d.SourceKind, d.SourceName, d.Source = "json", "", "", "", nil
		if err := s.SaveTopicDecoder(ctx, d, audit("topic-decoder-set")); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.TopicDecoders(ctx); len(got) != 1 || got[0].Type != "json" || got[0].Source != nil {
			t.Fatalf("decoders after replace: %+v", got)
		}
		if err := s.DeleteTopicDecoder(ctx, "orders", audit("topic-decoder-remove")); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteTopicDecoder(ctx, "orders", audit("topic-decoder-remove")); !errors.Is(err, ErrTopicDecoderNotFound) {
			t.Fatalf("second remove: %v", err)
		}
		if got, _ := s.TopicDecoders(ctx); len(got) != 0 {
			t.Fatalf("decoders after remove: %+v", got)
		}
		if got, _ := other.TopicDecoders(ctx); len(got) != 1 || got[0].Type != "json" {
			t.Fatalf("the other cluster's decoder: %+v", got)
		}
		entries, _, err := s.Audit().List(ctx, AuditFilter{})
		if err != nil || len(entries) != 4 {
			t.Fatalf("audit entries %d (%v), want 4: three of production's changes, one of staging's", len(entries), err)
		}
	})
}
