package rocketmq

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"
)

// MaxFrameSize is the largest frame (not counting its 4-byte length prefix)
// this client reads or writes: the brokers' default frameMaxLength, 16 MiB.
// A longer length field is rejected before anything is allocated.
const MaxFrameSize = 16 << 20

// Header serializations, the top byte of the headerLenAndType field.
const (
	serializeJSON     byte = 0
	serializeRocketMQ byte = 1
)

// Flag bits of a remoting header.
const (
	flagResponse int32 = 1 << 0
	flagOneway   int32 = 1 << 1
)

// What we send as our own language and version. Version 409 (V4_9_8) is what
// 4.9.8's mqadmin sends: new enough for standard-JSON route data (>= 401), and
// below 5.3.2's GO_AWAY threshold (> 475).
const (
	ourLanguage = "GO"
	ourVersion  = 409
)

// languageNames maps LanguageCode ordinals to names (binary headers carry
// the ordinal, JSON headers the name).
var languageNames = []string{"JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS"}

func languageCode(name string) byte {
	for i, n := range languageNames {
		if n == name {
			return byte(i)
		}
	}
	return 7 // OTHER
}

func languageName(code byte) string {
	if int(code) < len(languageNames) {
		return languageNames[code]
	}
	return "OTHER"
}

// command is one remoting frame: a request or a response.
type command struct {
	Code      int // RequestCode in requests, ResponseCode in responses
	Language  string
	Version   int
	Opaque    int32
	Flag      int32
	Remark    string
	ExtFields map[string]string
	Body      []byte

	serializeType byte // how the header arrived (decoding only)
}

func (c *command) isResponse() bool { return c.Flag&flagResponse != 0 }
func (c *command) isOneway() bool   { return c.Flag&flagOneway != 0 }

// jsonHeader is the JSON header as written. Keys are in alphabetical order
// and remark is left out when empty, as a Java server writes it.
type jsonHeader struct {
	Code                    int               `json:"code"`
	ExtFields               map[string]string `json:"extFields,omitempty"`
	Flag                    int32             `json:"flag"`
	Language                string            `json:"language"`
	Opaque                  int32             `json:"opaque"`
	Remark                  string            `json:"remark,omitempty"`
	SerializeTypeCurrentRPC string            `json:"serializeTypeCurrentRPC"`
	Version                 int               `json:"version"`
}

// encodeHeaderJSON writes the header the way Java's fastjson does.
func encodeHeaderJSON(c *command) ([]byte, error) {
	lang := c.Language
	if lang == "" {
		lang = ourLanguage
	}
	return json.Marshal(jsonHeader{
		Code:                    c.Code,
		ExtFields:               c.ExtFields,
		Flag:                    c.Flag,
		Language:                lang,
		Opaque:                  c.Opaque,
		Remark:                  c.Remark,
		SerializeTypeCurrentRPC: "JSON",
		Version:                 c.Version,
	})
}

// encodeHeaderRocketMQ writes the ROCKETMQ binary header. Only tests and the
// fake servers use it: we always send JSON, which every server accepts.
func encodeHeaderRocketMQ(c *command) []byte {
	var b bytes.Buffer
	var tmp [8]byte
	binary.BigEndian.PutUint16(tmp[:2], uint16(c.Code))
	b.Write(tmp[:2])
	lang := c.Language
	if lang == "" {
		lang = ourLanguage
	}
	b.WriteByte(languageCode(lang))
	binary.BigEndian.PutUint16(tmp[:2], uint16(c.Version))
	b.Write(tmp[:2])
	binary.BigEndian.PutUint32(tmp[:4], uint32(c.Opaque))
	b.Write(tmp[:4])
	binary.BigEndian.PutUint32(tmp[:4], uint32(c.Flag))
	b.Write(tmp[:4])
	binary.BigEndian.PutUint32(tmp[:4], uint32(len(c.Remark)))
	b.Write(tmp[:4])
	b.WriteString(c.Remark)
	var ext bytes.Buffer
	keys := make([]string, 0, len(c.ExtFields))
	for k := range c.ExtFields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := c.ExtFields[k]
		binary.BigEndian.PutUint16(tmp[:2], uint16(len(k)))
		ext.Write(tmp[:2])
		ext.WriteString(k)
		binary.BigEndian.PutUint32(tmp[:4], uint32(len(v)))
		ext.Write(tmp[:4])
		ext.WriteString(v)
	}
	binary.BigEndian.PutUint32(tmp[:4], uint32(ext.Len()))
	b.Write(tmp[:4])
	b.Write(ext.Bytes())
	return b.Bytes()
}

// encodeFrame returns the whole frame, length prefix included.
func encodeFrame(c *command, serializeType byte) ([]byte, error) {
	var header []byte
	switch serializeType {
	case serializeJSON:
		h, err := encodeHeaderJSON(c)
		if err != nil {
			return nil, err
		}
		header = h
	case serializeRocketMQ:
		header = encodeHeaderRocketMQ(c)
	default:
		return nil, fmt.Errorf("%w: unknown serialize type %d", ErrBadFrame, serializeType)
	}
	if len(header) > 0xFFFFFF {
		return nil, fmt.Errorf("%w: header of %d bytes", ErrFrameTooLarge, len(header))
	}
	length := 4 + len(header) + len(c.Body)
	if length > MaxFrameSize {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, length, MaxFrameSize)
	}
	frame := make([]byte, 4+length)
	binary.BigEndian.PutUint32(frame[0:4], uint32(length))
	binary.BigEndian.PutUint32(frame[4:8], uint32(serializeType)<<24|uint32(len(header)))
	copy(frame[8:], header)
	copy(frame[8+len(header):], c.Body)
	return frame, nil
}

// decodeFrame decodes one whole frame, length prefix included. The input
// must be exactly one frame.
func decodeFrame(frame []byte) (*command, error) {
	if len(frame) < 4 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the length field", ErrBadFrame, len(frame))
	}
	length := binary.BigEndian.Uint32(frame[:4])
	if length > MaxFrameSize {
		return nil, fmt.Errorf("%w: length field %d (limit %d)", ErrFrameTooLarge, length, MaxFrameSize)
	}
	if int(length) != len(frame)-4 {
		return nil, fmt.Errorf("%w: length field %d but %d bytes follow", ErrBadFrame, length, len(frame)-4)
	}
	return decodeFrameContent(frame[4:])
}

// readFrame reads one frame from r. It never allocates more than
// MaxFrameSize, whatever the length field says.
func readFrame(r io.Reader) (*command, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, err
	}
	length := binary.BigEndian.Uint32(lenBuf[:])
	if length > MaxFrameSize {
		return nil, fmt.Errorf("%w: length field %d (limit %d)", ErrFrameTooLarge, length, MaxFrameSize)
	}
	if length < 4 {
		return nil, fmt.Errorf("%w: length field %d, shorter than the header-length field", ErrBadFrame, length)
	}
	content := make([]byte, length)
	if _, err := io.ReadFull(r, content); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return decodeFrameContent(content)
}

// decodeFrameContent decodes what follows the length prefix.
func decodeFrameContent(content []byte) (*command, error) {
	if len(content) < 4 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the header-length field", ErrBadFrame, len(content))
	}
	lenAndType := binary.BigEndian.Uint32(content[:4])
	serializeType := byte(lenAndType >> 24)
	headerLen := int(lenAndType & 0xFFFFFF)
	if headerLen > len(content)-4 {
		return nil, fmt.Errorf("%w: header length %d but only %d bytes follow", ErrBadFrame, headerLen, len(content)-4)
	}
	c, err := decodeHeader(content[4:4+headerLen], serializeType)
	if err != nil {
		return nil, err
	}
	if body := content[4+headerLen:]; len(body) > 0 {
		c.Body = body
	}
	return c, nil
}

// decodeHeader decodes a header of either serialization.
func decodeHeader(header []byte, serializeType byte) (*command, error) {
	switch serializeType {
	case serializeJSON:
		return decodeHeaderJSON(header)
	case serializeRocketMQ:
		return decodeHeaderRocketMQ(header)
	default:
		return nil, fmt.Errorf("%w: unknown serialize type %d", ErrBadFrame, serializeType)
	}
}

// looseHeader accepts what Java and Go peers write: language as a name or an
// ordinal, extFields values as strings or other scalars.
type looseHeader struct {
	Code      *json.Number               `json:"code"`
	Language  json.RawMessage            `json:"language"`
	Version   json.Number                `json:"version"`
	Opaque    json.Number                `json:"opaque"`
	Flag      json.Number                `json:"flag"`
	Remark    *string                    `json:"remark"`
	ExtFields map[string]json.RawMessage `json:"extFields"`
}

func decodeHeaderJSON(header []byte) (*command, error) {
	var h looseHeader
	d := json.NewDecoder(bytes.NewReader(header))
	d.UseNumber()
	if err := d.Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: JSON header: %v", ErrBadFrame, err)
	}
	if h.Code == nil {
		return nil, fmt.Errorf("%w: JSON header without code", ErrBadFrame)
	}
	c := &command{serializeType: serializeJSON}
	var err error
	if c.Code, err = jsonInt(*h.Code, "code"); err != nil {
		return nil, err
	}
	if c.Version, err = jsonInt(h.Version, "version"); err != nil {
		return nil, err
	}
	opaque, err := jsonInt(h.Opaque, "opaque")
	if err != nil {
		return nil, err
	}
	flag, err := jsonInt(h.Flag, "flag")
	if err != nil {
		return nil, err
	}
	c.Opaque, c.Flag = int32(opaque), int32(flag)
	if h.Remark != nil {
		c.Remark = *h.Remark
	}
	if len(h.Language) > 0 {
		var name string
		var ord int
		switch {
		case json.Unmarshal(h.Language, &name) == nil:
			c.Language = name
		case json.Unmarshal(h.Language, &ord) == nil && ord >= 0 && ord < 256:
			c.Language = languageName(byte(ord))
		}
	}
	if len(h.ExtFields) > 0 {
		c.ExtFields = make(map[string]string, len(h.ExtFields))
		for k, raw := range h.ExtFields {
			if string(raw) == "null" {
				continue
			}
			var s string
			if err := json.Unmarshal(raw, &s); err == nil {
				c.ExtFields[k] = s
				continue
			}
			c.ExtFields[k] = string(raw) // a number or boolean, kept as its text
		}
	}
	return c, nil
}

func jsonInt(n json.Number, field string) (int, error) {
	if n == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(string(n), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: header %s %q is not a 32-bit integer", ErrBadFrame, field, string(n))
	}
	return int(v), nil
}

// decodeHeaderRocketMQ decodes the binary header; every length is checked
// against what is left, so no input makes it read out of range.
func decodeHeaderRocketMQ(h []byte) (*command, error) {
	const fixed = 2 + 1 + 2 + 4 + 4 + 4
	if len(h) < fixed+4 {
		return nil, fmt.Errorf("%w: binary header of %d bytes", ErrBadFrame, len(h))
	}
	c := &command{serializeType: serializeRocketMQ}
	c.Code = int(int16(binary.BigEndian.Uint16(h[0:2])))
	c.Language = languageName(h[2])
	c.Version = int(int16(binary.BigEndian.Uint16(h[3:5])))
	c.Opaque = int32(binary.BigEndian.Uint32(h[5:9]))
	c.Flag = int32(binary.BigEndian.Uint32(h[9:13]))
	p := 13
	remarkLen := int(int32(binary.BigEndian.Uint32(h[p : p+4])))
	p += 4
	if remarkLen < 0 || remarkLen > len(h)-p {
		return nil, fmt.Errorf("%w: remark length %d", ErrBadFrame, remarkLen)
	}
	c.Remark = string(h[p : p+remarkLen])
	p += remarkLen
	if len(h)-p < 4 {
		return nil, fmt.Errorf("%w: binary header ends before extFields length", ErrBadFrame)
	}
	extLen := int(int32(binary.BigEndian.Uint32(h[p : p+4])))
	p += 4
	if extLen < 0 || extLen > len(h)-p {
		return nil, fmt.Errorf("%w: extFields length %d", ErrBadFrame, extLen)
	}
	ext := h[p : p+extLen]
	for len(ext) > 0 {
		if len(ext) < 2 {
			return nil, fmt.Errorf("%w: extFields key length cut short", ErrBadFrame)
		}
		kl := int(int16(binary.BigEndian.Uint16(ext[:2])))
		ext = ext[2:]
		if kl < 0 || kl > len(ext) {
			return nil, fmt.Errorf("%w: extFields key length %d", ErrBadFrame, kl)
		}
		k := string(ext[:kl])
		ext = ext[kl:]
		if len(ext) < 4 {
			return nil, fmt.Errorf("%w: extFields value length cut short", ErrBadFrame)
		}
		vl := int(int32(binary.BigEndian.Uint32(ext[:4])))
		ext = ext[4:]
		if vl < 0 || vl > len(ext) {
			return nil, fmt.Errorf("%w: extFields value length %d", ErrBadFrame, vl)
		}
		if c.ExtFields == nil {
			c.ExtFields = make(map[string]string)
		}
		c.ExtFields[k] = string(ext[:vl])
		ext = ext[vl:]
	}
	if !utf8.ValidString(c.Remark) {
		c.Remark = string([]rune(c.Remark)) // replace bad bytes; remarks are for people
	}
	return c, nil
}
