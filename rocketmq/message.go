package rocketmq

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Magic codes at the start of a stored message record.
const (
	// MagicCodeV1 marks a record whose topic length is one byte (every
	// 4.x record, and 5.x records with short topics).
	MagicCodeV1 int32 = -626843481 // 0xDAA320A7
	// MagicCodeV2 marks a 5.x record whose topic length is an int16.
	MagicCodeV2 int32 = -626843477 // 0xDAA320AB
)

// The magic codes as unsigned words, for error messages.
const (
	magicV1Hex uint32 = 0xDAA320A7
	magicV2Hex uint32 = 0xDAA320AB
)

// SysFlag bits of a stored message (MessageSysFlag, same in 4.x and 5.x).
const (
	SysFlagCompressed       = 0x1   // the stored body is compressed
	SysFlagMultiTags        = 0x2   // TAGS holds several tags
	SysFlagTransactionMask  = 0xC   // 0x4 prepared, 0x8 commit, 0xC rollback; 0 = not transactional
	SysFlagBornHostV6       = 0x10  // the born host IP is 16 bytes
	SysFlagStoreHostV6      = 0x20  // the store host IP is 16 bytes
	SysFlagNeedUnwrap       = 0x40  // with SysFlagInnerBatch: the body holds sub-messages
	SysFlagInnerBatch       = 0x80  // a 5.x inner batch record
	SysFlagCompressionMask  = 0x700 // (sysFlag & mask) >> 8: 1 LZ4, 2 ZSTD, 3 or 0 ZLIB
	sysFlagCompressionShift = 8
)

// Names of the body codecs, as Message.Compression reports them.
const (
	CompressionZlib = "zlib"
	CompressionLZ4  = "lz4"
	CompressionZstd = "zstd"
)

// Property names (MessageConst) the console reads.
const (
	PropertyKeys      = "KEYS"
	PropertyTags      = "TAGS"
	PropertyUniqueKey = "UNIQ_KEY"
)

// Decompression limits. A stored body is at most a few MiB (the broker's
// maxMessageSize defaults to 4 MiB), so a body that inflates beyond these is
// corrupt or hostile; the limits keep one bad record from exhausting memory.
const (
	// MaxDecompressedBodySize caps one message body after decompression.
	MaxDecompressedBodySize = 64 << 20
	// maxDecompressedPerCall caps all bodies decompressed by one
	// DecodeMessages call (a pull answers at most 32 messages).
	maxDecompressedPerCall = 256 << 20
)

// minRecordSize is the smallest possible record: V1 magic, IPv4 hosts,
// empty body, topic and properties.
const minRecordSize = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 4 + 1 + 2

// Message is one stored message as a broker returns it in PULL_MESSAGE,
// QUERY_MESSAGE and VIEW_MESSAGE_BY_ID bodies (Java's MessageExt), with
// the body decompressed and inner batches expanded.
//
// Timestamps are kept as epoch milliseconds, exactly as stored, because the
// console's JSON API reports epoch ms and no precision or zone is lost; use
// BornTime and StoreTime for time.Time values.
type Message struct {
	Topic string
	// Flag is the producer's user flag (Message.setFlag), not SysFlag.
	Flag    int
	QueueID int
	// QueueOffset is the message's logical offset in its queue.
	QueueOffset int64
	// CommitLogOffset is the record's physical offset in the broker's
	// commit log; with StoreHost it makes the offsetMsgId.
	CommitLogOffset int64
	// SysFlag is the flag word as stored; the compression bit stays set
	// even though Body is decompressed (see BodyCompressed).
	SysFlag int
	// BornTimestamp is when the producer made the message, epoch ms.
	BornTimestamp int64
	// StoreTimestamp is when the broker stored it, epoch ms.
	StoreTimestamp int64
	// BornHost is the producer's address as the broker saw it.
	BornHost netip.AddrPort
	// StoreHost is the storing broker's address (brokerIP1:listenPort).
	StoreHost netip.AddrPort
	// ReconsumeTimes counts redeliveries of a retried message.
	ReconsumeTimes int
	// PreparedTransactionOffset is the commit-log offset of the prepared
	// half message for a transaction commit/rollback record.
	PreparedTransactionOffset int64
	// BodyCRC is the CRC32 the broker computed over the stored (possibly
	// compressed) body.
	BodyCRC uint32
	// StoreSize is the size of the whole stored record in bytes.
	StoreSize int
	// Properties holds the user and system properties (KEYS, TAGS,
	// UNIQ_KEY, ...); nil when there are none.
	Properties map[string]string
	// Body is the message body, decompressed when it was stored compressed.
	// If decompression failed, Body holds the stored bytes and BodyError
	// says why.
	Body []byte
	// StoredBodySize is the body's size as stored, before decompression.
	StoredBodySize int
	// BodyCompressed reports that the body was stored compressed.
	BodyCompressed bool
	// Compression names the codec of a compressed body ("zlib", "lz4",
	// "zstd"), or "" when the body was not compressed.
	Compression string
	// BodyError is set when the body could not be decompressed or an inner
	// batch could not be unwrapped. The rest of the message is still good,
	// so it is reported rather than failing the whole response.
	BodyError string
	// MagicVersion is 1 or 2, the record format version (MagicCodeV1/V2).
	MagicVersion int
	// InnerBatch reports that this message was unwrapped from a 5.x inner
	// batch record; BatchIndex is its position there. All messages of one
	// batch share the record's commit-log offset, hence one offsetMsgId.
	InnerBatch bool
	BatchIndex int
}

// OffsetMsgID returns the broker-made id of the message (store host and
// commit-log offset, upper-case hex), or "" when the store host is unknown.
func (m *Message) OffsetMsgID() string {
	return OffsetMsgID{StoreHost: m.StoreHost, CommitLogOffset: m.CommitLogOffset}.String()
}

// UniqueKey returns the client-made message id (property UNIQ_KEY), or ""
// for messages sent without one.
func (m *Message) UniqueKey() string { return m.Properties[PropertyUniqueKey] }

// MsgID returns the id clients show as "msgId": the unique key when there
// is one, else the offsetMsgId (Java's MessageClientExt.getMsgId).
func (m *Message) MsgID() string {
	if k := m.UniqueKey(); k != "" {
		return k
	}
	return m.OffsetMsgID()
}

// Keys returns the message keys (property KEYS, space-separated), which the
// broker indexes for QUERY_MESSAGE. Empty entries are dropped.
func (m *Message) Keys() []string {
	v := m.Properties[PropertyKeys]
	if v == "" {
		return nil
	}
	var keys []string
	for k := range strings.SplitSeq(v, " ") {
		if k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// Tags returns the message tag (property TAGS), or "".
func (m *Message) Tags() string { return m.Properties[PropertyTags] }

// BornTime returns BornTimestamp as a time.Time.
func (m *Message) BornTime() time.Time { return time.UnixMilli(m.BornTimestamp) }

// StoreTime returns StoreTimestamp as a time.Time.
func (m *Message) StoreTime() time.Time { return time.UnixMilli(m.StoreTimestamp) }

// ErrTruncatedRecord reports a message record cut short or with lengths that
// do not fit; the response body is corrupt or was read incompletely.
var ErrTruncatedRecord = errors.New("message record is truncated or its lengths are inconsistent")

// DecodeMessages decodes a PULL_MESSAGE, QUERY_MESSAGE or VIEW_MESSAGE_BY_ID
// body: stored message records back to back. 5.x inner batches are
// expanded into their messages. On a corrupt record it returns the messages
// decoded before it together with an error that says where decoding stopped.
func DecodeMessages(b []byte) ([]*Message, error) {
	// One copy of the input serves as the backing store of every stored
	// body, instead of one allocation per message; the messages of one
	// response are normally used (and dropped) together.
	d := decoder{budget: maxDecompressedPerCall, owned: true}
	b = bytes.Clone(b)
	// Capacity bounded by what the input can hold, never by a length field.
	msgs := make([]*Message, 0, min(len(b)/minRecordSize, 64))
	for off := 0; off < len(b); {
		batch, n, err := d.decodeRecord(b[off:])
		if err != nil {
			return msgs, fmt.Errorf("decode message record %d at byte %d of %d: %w", len(msgs), off, len(b), err)
		}
		msgs = append(msgs, batch...)
		off += n
	}
	return msgs, nil
}

// DecodeMessage decodes the first record of b and returns it with the
// number of bytes it took. A 5.x inner batch record comes back as its
// first message with the whole batch's length; use DecodeMessages to get
// every message of a batch.
func DecodeMessage(b []byte) (*Message, int, error) {
	d := decoder{budget: MaxDecompressedBodySize}
	msgs, n, err := d.decodeRecord(b)
	if err != nil {
		return nil, 0, fmt.Errorf("decode message record: %w", err)
	}
	return msgs[0], n, nil
}

// decoder carries state across the records of one response.
type decoder struct {
	budget    int    // bytes still allowed to be produced by decompression
	owned     bool   // the input is our own copy: bodies may point into it
	lastTopic string // reused while records share a topic, as they usually do
}

// reader is a bounds-checked big-endian cursor: after the first short read
// every further read returns zero and err stays set, so field-by-field code
// checks once at the end.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.err = ErrTruncatedRecord
		return nil
	}
	// Cap the capacity so appending to a body can never write over the
	// bytes that follow it (the next message's body shares the array).
	s := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return s
}

func (r *reader) u8() uint8 {
	if s := r.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (r *reader) i16() int16 {
	if s := r.take(2); s != nil {
		return int16(binary.BigEndian.Uint16(s))
	}
	return 0
}

func (r *reader) i32() int32 {
	if s := r.take(4); s != nil {
		return int32(binary.BigEndian.Uint32(s))
	}
	return 0
}

func (r *reader) i64() int64 {
	if s := r.take(8); s != nil {
		return int64(binary.BigEndian.Uint64(s))
	}
	return 0
}

func (r *reader) host(v6 bool) netip.AddrPort {
	var addr netip.Addr
	if v6 {
		if s := r.take(16); s != nil {
			addr = netip.AddrFrom16([16]byte(s))
		}
	} else if s := r.take(4); s != nil {
		addr = netip.AddrFrom4([4]byte(s))
	}
	port := r.i32()
	return netip.AddrPortFrom(addr, uint16(port))
}

// decodeRecord decodes one record at the start of b into one message, or
// several for an inner batch, and returns the record's length.
func (d *decoder) decodeRecord(b []byte) ([]*Message, int, error) {
	if len(b) < 8 {
		return nil, 0, fmt.Errorf("%d bytes left, too few for a record header: %w", len(b), ErrTruncatedRecord)
	}
	total := int(int32(binary.BigEndian.Uint32(b)))
	if total < minRecordSize || total > len(b) {
		return nil, 0, fmt.Errorf("record size %d does not fit the %d bytes left: %w", total, len(b), ErrTruncatedRecord)
	}
	r := reader{b: b[:total], pos: 4}
	m := &Message{StoreSize: total}
	magic := r.i32()
	switch magic {
	case MagicCodeV1:
		m.MagicVersion = 1
	case MagicCodeV2:
		m.MagicVersion = 2
	default:
		return nil, 0, fmt.Errorf("unknown magic code %#08x (expected %#08x or %#08x); the body is not a stored message", uint32(magic), magicV1Hex, magicV2Hex)
	}
	m.BodyCRC = uint32(r.i32())
	m.QueueID = int(r.i32())
	m.Flag = int(r.i32())
	m.QueueOffset = r.i64()
	m.CommitLogOffset = r.i64()
	sysFlag := r.i32()
	m.SysFlag = int(sysFlag)
	m.BornTimestamp = r.i64()
	m.BornHost = r.host(sysFlag&SysFlagBornHostV6 != 0)
	m.StoreTimestamp = r.i64()
	m.StoreHost = r.host(sysFlag&SysFlagStoreHostV6 != 0)
	m.ReconsumeTimes = int(r.i32())
	m.PreparedTransactionOffset = r.i64()
	stored := r.take(int(r.i32()))
	var topicLen int
	if m.MagicVersion == 1 {
		topicLen = int(r.u8())
	} else {
		topicLen = int(r.i16())
	}
	if topic := r.take(topicLen); string(topic) == d.lastTopic {
		m.Topic = d.lastTopic
	} else {
		m.Topic = string(topic)
		d.lastTopic = m.Topic
	}
	props := r.take(int(r.i16()))
	if r.err != nil {
		return nil, 0, fmt.Errorf("record of %d bytes: %w", total, r.err)
	}
	m.Properties = parseProperties(props)
	m.StoredBodySize = len(stored)

	body, shared := stored, !d.owned
	if sysFlag&SysFlagCompressed != 0 {
		m.BodyCompressed = true
		m.Compression = compressionName(int(sysFlag))
		out, err := d.decompress(m.Compression, stored)
		if err != nil {
			m.BodyError = fmt.Sprintf("the %s body could not be decompressed: %v; showing the stored bytes", m.Compression, err)
		} else {
			body, shared = out, false
		}
	}
	if m.BodyError == "" && sysFlag&(SysFlagInnerBatch|SysFlagNeedUnwrap) == SysFlagInnerBatch|SysFlagNeedUnwrap {
		msgs, err := unwrapInnerBatch(m, body, shared)
		if err == nil {
			return msgs, total, nil
		}
		m.BodyError = fmt.Sprintf("the inner batch could not be unwrapped: %v; showing the stored body", err)
	}
	if shared {
		// The caller's buffer may be reused: the body needs its own copy.
		body = bytes.Clone(body)
	}
	m.Body = body
	return []*Message{m}, total, nil
}

// compressionName maps the sysFlag codec bits to a codec name. Value 0 is
// zlib: 4.x and old 5.x clients set only the compressed bit.
func compressionName(sysFlag int) string {
	switch (sysFlag & SysFlagCompressionMask) >> sysFlagCompressionShift {
	case 1:
		return CompressionLZ4
	case 2:
		return CompressionZstd
	case 0, 3:
		return CompressionZlib
	default:
		return fmt.Sprintf("unknown codec %d", (sysFlag&SysFlagCompressionMask)>>sysFlagCompressionShift)
	}
}

// unwrapInnerBatch expands a 5.x inner batch: the record body holds
// sub-messages (TOTALSIZE, MAGICCODE, BODYCRC, FLAG, body, properties),
// which take topic, queue, hosts, times, sysFlag and commit-log offset from
// the outer record, and consecutive queue offsets.
// Sub-message bodies are copied when body is the caller's memory (shared).
func unwrapInnerBatch(outer *Message, body []byte, shared bool) ([]*Message, error) {
	r := reader{b: body}
	var msgs []*Message
	for i := 0; r.pos < len(body); i++ {
		r.i32() // TOTALSIZE; Java reads fields in sequence and ignores it
		r.i32() // MAGICCODE
		r.i32() // BODYCRC
		flag := r.i32()
		sub := r.take(int(r.i32()))
		props := r.take(int(r.i16()))
		if r.err != nil {
			return nil, fmt.Errorf("sub-message %d at byte %d of %d: %w", i, r.pos, len(body), r.err)
		}
		if shared {
			sub = bytes.Clone(sub)
		}
		msgs = append(msgs, &Message{
			Topic:           outer.Topic,
			Flag:            int(flag),
			QueueID:         outer.QueueID,
			QueueOffset:     outer.QueueOffset + int64(i),
			CommitLogOffset: outer.CommitLogOffset,
			SysFlag:         outer.SysFlag,
			BornTimestamp:   outer.BornTimestamp,
			StoreTimestamp:  outer.StoreTimestamp,
			BornHost:        outer.BornHost,
			StoreHost:       outer.StoreHost,
			StoreSize:       outer.StoreSize,
			Properties:      parseProperties(props),
			Body:            sub,
			StoredBodySize:  outer.StoredBodySize,
			BodyCompressed:  outer.BodyCompressed,
			Compression:     outer.Compression,
			MagicVersion:    outer.MagicVersion,
			InnerBatch:      true,
			BatchIndex:      i,
		})
	}
	if len(msgs) == 0 {
		return nil, errors.New("the batch holds no messages")
	}
	return msgs, nil
}

// Separators of the stored properties string (MessageDecoder).
const (
	nameValueSeparator = 1
	propertySeparator  = 2
)

// parseProperties reads name\x01value\x02... as Java's
// string2messageProperties does: entries with an empty name or value, or
// without a separator, are skipped; a later duplicate wins.
func parseProperties(b []byte) map[string]string {
	if len(b) == 0 {
		return nil
	}
	m := make(map[string]string, min(bytes.Count(b, []byte{propertySeparator})+1, len(b)/3+1))
	for len(b) > 0 {
		entry := b
		if i := bytes.IndexByte(b, propertySeparator); i >= 0 {
			entry, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		k, v, ok := bytes.Cut(entry, []byte{nameValueSeparator})
		if ok && len(k) > 0 && len(v) > 0 {
			m[propertyName(k)] = string(v)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// propertyName returns the name as a string, sharing one constant for the
// names nearly every message carries instead of allocating each time.
func propertyName(k []byte) string {
	switch string(k) { // compiled without allocating
	case PropertyKeys:
		return PropertyKeys
	case PropertyTags:
		return PropertyTags
	case PropertyUniqueKey:
		return PropertyUniqueKey
	case "WAIT":
		return "WAIT"
	case "CLUSTER":
		return "CLUSTER"
	case "MIN_OFFSET":
		return "MIN_OFFSET"
	case "MAX_OFFSET":
		return "MAX_OFFSET"
	case "TRACE_ON":
		return "TRACE_ON"
	case "MSG_REGION":
		return "MSG_REGION"
	case "REAL_TOPIC":
		return "REAL_TOPIC"
	case "REAL_QID":
		return "REAL_QID"
	case "RECONSUME_TIME":
		return "RECONSUME_TIME"
	case "MAX_RECONSUME_TIMES":
		return "MAX_RECONSUME_TIMES"
	case "ORIGIN_MESSAGE_ID":
		return "ORIGIN_MESSAGE_ID"
	case "RETRY_TOPIC":
		return "RETRY_TOPIC"
	case "DELAY":
		return "DELAY"
	case "PGROUP":
		return "PGROUP"
	case "TRAN_MSG":
		return "TRAN_MSG"
	case "__SHARDINGKEY":
		return "__SHARDINGKEY"
	case "CONSUME_START_TIME":
		return "CONSUME_START_TIME"
	}
	return string(k)
}

var errBodyTooLarge = fmt.Errorf("the body inflates beyond %d MiB, the limit for one message", MaxDecompressedBodySize>>20)

// decompress inflates one body with the named codec, within the per-body
// and per-call limits.
func (d *decoder) decompress(codec string, stored []byte) ([]byte, error) {
	limit := min(MaxDecompressedBodySize, d.budget)
	if limit <= 0 {
		return nil, errors.New("the response's decompression budget is spent")
	}
	var out []byte
	var err error
	switch codec {
	case CompressionZlib:
		out, err = inflateZlib(stored, limit)
	case CompressionLZ4:
		out, err = inflateLZ4(stored, limit)
	case CompressionZstd:
		out, err = inflateZstd(stored, limit)
	default:
		return nil, fmt.Errorf("%s is not a codec this console knows", codec)
	}
	if err != nil {
		return nil, err
	}
	d.budget -= len(out)
	return out, nil
}

// readAllLimited reads r to the end, failing once more than limit bytes come.
func readAllLimited(r io.Reader, limit int, sizeHint int) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(sizeHint, limit)))
	n, err := buf.ReadFrom(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if n > int64(limit) {
		return nil, errBodyTooLarge
	}
	return buf.Bytes(), nil
}

func inflateZlib(stored []byte, limit int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(stored))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return readAllLimited(zr, limit, 4*len(stored))
}

// lz4Readers recycles LZ4 frame readers, whose block buffers are large.
var lz4Readers = sync.Pool{New: func() any { return lz4.NewReader(nil) }}

// inflateLZ4 reads the LZ4 frame format, which the Java client writes with
// lz4-java's LZ4FrameOutputStream.
func inflateLZ4(stored []byte, limit int) ([]byte, error) {
	zr := lz4Readers.Get().(*lz4.Reader)
	defer lz4Readers.Put(zr)
	zr.Reset(bytes.NewReader(stored))
	return readAllLimited(zr, limit, 4*len(stored))
}

// zstdDecoder is shared: DecodeAll is safe for concurrent use, and making a
// decoder is costly.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(MaxDecompressedBodySize))
})

func inflateZstd(stored []byte, limit int) ([]byte, error) {
	zd, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	// The decoder itself stops at MaxDecompressedBodySize; the tighter
	// per-call budget is checked afterwards.
	out, err := zd.DecodeAll(stored, nil)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || len(out) > limit {
		return nil, errBodyTooLarge
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
