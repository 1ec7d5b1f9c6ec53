package clustertest

import (
	"encoding/binary"
	"hash/crc32"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"rmqconsole/rocketmq"
)

// fastjson writes a body the way a broker's fastjson does: fields in alphabetical order,
// a MessageQueue as an object in key position, Integer map keys bare, doubles with a
// decimal point. The console's decoder reads such bodies through rocketmq.NormalizeJSON;
// the answers here must need it exactly where a real broker's do.
type fastjson struct{ b []byte }

// sep writes the comma before a key or an array element, unless it is the first.
func (w *fastjson) sep() {
	if n := len(w.b); n > 0 && w.b[n-1] != '{' && w.b[n-1] != '[' {
		w.b = append(w.b, ',')
	}
}

func (w *fastjson) open() *fastjson  { w.sep(); w.b = append(w.b, '{'); return w }
func (w *fastjson) close() *fastjson { w.b = append(w.b, '}'); return w }

// obj and arr start a value (after a key); end and endArr close it.
func (w *fastjson) obj() *fastjson    { w.b = append(w.b, '{'); return w }
func (w *fastjson) end() *fastjson    { w.b = append(w.b, '}'); return w }
func (w *fastjson) arr() *fastjson    { w.b = append(w.b, '['); return w }
func (w *fastjson) endArr() *fastjson { w.b = append(w.b, ']'); return w }

// key writes `"name":`.
func (w *fastjson) key(name string) *fastjson {
	w.sep()
	w.b = strconv.AppendQuote(w.b, name)
	w.b = append(w.b, ':')
	return w
}

// intKey writes an Integer map key as fastjson does: bare.
func (w *fastjson) intKey(k int64) *fastjson {
	w.sep()
	w.b = strconv.AppendInt(w.b, k, 10)
	w.b = append(w.b, ':')
	return w
}

// queueKey writes a MessageQueue map key: the object itself, then ':'.
func (w *fastjson) queueKey(mq rocketmq.MessageQueue) *fastjson {
	w.sep()
	w.queue(mq)
	w.b = append(w.b, ':')
	return w
}

// queue writes a MessageQueue value as Java's fastjson orders it.
func (w *fastjson) queue(mq rocketmq.MessageQueue) *fastjson {
	w.b = append(w.b, `{"brokerName":`...)
	w.b = strconv.AppendQuote(w.b, mq.BrokerName)
	w.b = append(w.b, `,"queueId":`...)
	w.b = strconv.AppendInt(w.b, int64(mq.QueueID), 10)
	w.b = append(w.b, `,"topic":`...)
	w.b = strconv.AppendQuote(w.b, mq.Topic)
	w.b = append(w.b, '}')
	return w
}

// elem starts an array element.
func (w *fastjson) elem() *fastjson { w.sep(); return w }

func (w *fastjson) str(s string) *fastjson { w.b = strconv.AppendQuote(w.b, s); return w }
func (w *fastjson) int(v int64) *fastjson  { w.b = strconv.AppendInt(w.b, v, 10); return w }
func (w *fastjson) bool(v bool) *fastjson  { w.b = strconv.AppendBool(w.b, v); return w }

// double writes a Java double: 0.0, 1.5, 0.3333333333333333.
func (w *fastjson) double(v float64) *fastjson {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	w.b = append(w.b, s...)
	return w
}

// strs writes a string array.
func (w *fastjson) strs(ss []string) *fastjson {
	w.arr()
	for _, s := range ss {
		w.elem().str(s)
	}
	return w.endArr()
}

// dataVersion writes a 5.x DataVersion.
func (w *fastjson) dataVersion(ms int64) *fastjson {
	return w.obj().key("counter").int(1).key("stateVersion").int(0).key("timestamp").int(ms).end()
}

// javaTime formats epoch ms as UtilAll.timeMillisToHumanString2 does for the *Str
// fields of QUERY_CONSUME_TIME_SPAN: "2026-11-29#15:35:10:113", local time.
func javaTime(ms int64) string {
	t := time.UnixMilli(ms)
	return t.Format("2006-01-02#15:04:05:") + strconv.Itoa(t.Nanosecond()/1e6)
}

// appendMessageRecord appends m as a 5.x broker stores it in its commit log (IPv4 hosts,
// an uncompressed body; MagicCodeV2 only for a topic name too long for one length byte):
// what PULL_MESSAGE and VIEW_MESSAGE_BY_ID answer.
func appendMessageRecord(b []byte, m *rocketmq.Message) []byte {
	props, _ := rocketmq.EncodeProperties(m.Properties) // the fakes' own properties are valid
	magic, topicLen := rocketmq.MagicCodeV1, 1
	if len(m.Topic) > 127 {
		magic, topicLen = rocketmq.MagicCodeV2, 2
	}
	size := 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 4 + len(m.Body) + topicLen + len(m.Topic) + 2 + len(props)
	be := binary.BigEndian
	b = be.AppendUint32(b, uint32(size))
	b = be.AppendUint32(b, uint32(magic))
	b = be.AppendUint32(b, crc32.ChecksumIEEE(m.Body))
	b = be.AppendUint32(b, uint32(m.QueueID))
	b = be.AppendUint32(b, uint32(m.Flag))
	b = be.AppendUint64(b, uint64(m.QueueOffset))
	b = be.AppendUint64(b, uint64(m.CommitLogOffset))
	b = be.AppendUint32(b, 0) // sysFlag: IPv4 hosts, not compressed, not transactional
	b = be.AppendUint64(b, uint64(m.BornTimestamp))
	b = appendHost(b, m.BornHost)
	b = be.AppendUint64(b, uint64(m.StoreTimestamp))
	b = appendHost(b, m.StoreHost)
	b = be.AppendUint32(b, uint32(m.ReconsumeTimes))
	b = be.AppendUint64(b, uint64(m.PreparedTransactionOffset))
	b = be.AppendUint32(b, uint32(len(m.Body)))
	b = append(b, m.Body...)
	if topicLen == 1 {
		b = append(b, byte(len(m.Topic)))
	} else {
		b = be.AppendUint16(b, uint16(len(m.Topic)))
	}
	b = append(b, m.Topic...)
	b = be.AppendUint16(b, uint16(len(props)))
	return append(b, props...)
}

func appendHost(b []byte, ap netip.AddrPort) []byte {
	ip := ap.Addr().As4()
	b = append(b, ip[:]...)
	return binary.BigEndian.AppendUint32(b, uint32(ap.Port()))
}
