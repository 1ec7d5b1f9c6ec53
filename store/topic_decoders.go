package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TopicDecoder is how the bodies of one topic are read, as an admin set it in the
// console (package decoding checks it; the config file's decoders are not stored).
type TopicDecoder struct {
	Topic   string
	Type    string // protobuf, json, text or hex
	Message string // the Protobuf message type
	// SourceKind is descriptor_set or proto for a Protobuf decoder, SourceName the
	// uploaded file's name and Source its contents.
	SourceKind string
	SourceName string
	Source     []byte
	UpdatedBy  string
	UpdatedAt  time.Time
}

// ErrTopicDecoderNotFound means the console holds no decoder for the topic.
var ErrTopicDecoderNotFound = errors.New("topic decoder not found")

type topicDecoderRow struct {
	ClusterName string `gorm:"primaryKey"`
	Topic       string `gorm:"primaryKey"`
	Type        string
	Message     string
	SourceKind  string
	SourceName  string
	Source      []byte
	UpdatedBy   string
	UpdatedAtMs int64
}

func (topicDecoderRow) TableName() string { return "topic_decoders" }

// SaveTopicDecoder sets a topic's decoder (replacing the one it had) and records the
// audit entry in the same transaction: a decoder never changes unaudited.
func (s *Store) SaveTopicDecoder(ctx context.Context, d TopicDecoder, audit *AuditEntry) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	row := topicDecoderRow{ClusterName: s.cluster, Topic: d.Topic, Type: d.Type, Message: d.Message, SourceKind: d.SourceKind,
		SourceName: d.SourceName, Source: d.Source, UpdatedBy: d.UpdatedBy, UpdatedAtMs: d.UpdatedAt.UnixMilli()}
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
			return err
		}
		return s.Audit().recordTx(tx, audit)
	})
	if err != nil {
		return fmt.Errorf("save decoder of topic %q: %w", d.Topic, err)
	}
	return nil
}

// DeleteTopicDecoder removes a topic's decoder and records the audit entry in the same
// transaction; a topic without one is ErrTopicDecoderNotFound, and nothing is audited.
func (s *Store) DeleteTopicDecoder(ctx context.Context, topic string, audit *AuditEntry) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		r := tx.Where("cluster_name = ? AND topic = ?", s.cluster, topic).Delete(&topicDecoderRow{})
		if r.Error != nil {
			return r.Error
		}
		if r.RowsAffected == 0 {
			return ErrTopicDecoderNotFound
		}
		return s.Audit().recordTx(tx, audit)
	})
	if err != nil {
		return fmt.Errorf("remove decoder of topic %q: %w", topic, err)
	}
	return nil
}

// TopicDecoders returns the decoders set in the console for this cluster's topics, by
// topic name.
func (s *Store) TopicDecoders(ctx context.Context) ([]TopicDecoder, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []topicDecoderRow
	if err := s.DB.WithContext(ctx).Where("cluster_name = ?", s.cluster).Order("topic").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read topic decoders: %w", err)
	}
	out := make([]TopicDecoder, len(rows))
	for i, r := range rows {
		out[i] = TopicDecoder{Topic: r.Topic, Type: r.Type, Message: r.Message, SourceKind: r.SourceKind, SourceName: r.SourceName,
			Source: r.Source, UpdatedBy: r.UpdatedBy, UpdatedAt: time.UnixMilli(r.UpdatedAtMs).UTC()}
	}
	return out, nil
}

// TopicDecoderStamp is a stored decoder without its uploaded file: enough to tell
// whether the decoders changed since the last reading.
type TopicDecoderStamp struct {
	Topic, Type, Message, SourceKind, SourceName, UpdatedBy string
	// SourceLen is the size of the uploaded file, in bytes.
	SourceLen   int
	UpdatedAtMs int64
}

// TopicDecoderStamps returns the stamps of the decoders set for this cluster's topics,
// by topic name. Consoles compare them every few seconds, so they leave the uploaded
// files (up to a MiB each) in the database.
func (s *Store) TopicDecoderStamps(ctx context.Context) ([]TopicDecoderStamp, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []TopicDecoderStamp
	err := s.DB.WithContext(ctx).Model(&topicDecoderRow{}).
		Select("topic, type, message, source_kind, source_name, updated_by, length(source) AS source_len, updated_at_ms").
		Where("cluster_name = ?", s.cluster).Order("topic").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read topic decoders: %w", err)
	}
	return rows, nil
}

// Stamp is d's stamp.
func (d TopicDecoder) Stamp() TopicDecoderStamp {
	return TopicDecoderStamp{Topic: d.Topic, Type: d.Type, Message: d.Message, SourceKind: d.SourceKind, SourceName: d.SourceName,
		UpdatedBy: d.UpdatedBy, SourceLen: len(d.Source), UpdatedAtMs: d.UpdatedAt.UnixMilli()}
}
