package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
)

// maxAPIBody bounds a JSON request body; every API request is a few hundred bytes.
const maxAPIBody = 64 << 10

// decodeAPIBody reads the JSON body of an API write into v, the one way every API write
// reads its body. It is strict, so that what the console acts on is exactly what was
// sent: the body must be declared application/json (415 otherwise: a form or text body
// is not guessed at), and must be one JSON value of v's shape (400 otherwise): no key
// given twice in an object at any depth (encoding/json would keep the last one, and
// matches field names in any case, so "topic" and "Topic" count as the same key), no
// field v does not take (a misspelt field is an error rather than silently ignored), no
// data after the value. Numbers are kept as written (json.Number).
//
// The error is a *BodyError; callers answer it with bodyError.
func decodeAPIBody(c *gin.Context, v any) error {
	if err := jsonMediaType(c.GetHeader("Content-Type")); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, maxAPIBody))
	if err != nil {
		return badBody(i18n.M("api.body.unreadable", "Error", err.Error()))
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return badBody(i18n.M("api.body.empty"))
	}
	if err := duplicateKey(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badBody(decodeProblem(err))
	}
	if end := dec.InputOffset(); !errors.Is(tokenAfter(dec), io.EOF) {
		return badBody(i18n.M("api.body.trailing", "Offset", end))
	}
	return nil
}

// tokenAfter is the error of reading one more token: io.EOF when the body has ended.
func tokenAfter(dec *json.Decoder) error {
	_, err := dec.Token()
	return err
}

// BodyError is an API body the console refuses: Status is 415 (not declared JSON) or
// 400 (not the JSON the call takes); Say is the problem.
type BodyError struct {
	Status int
	Say    i18n.Message
}

func (e *BodyError) Error() string { return e.Say.String() }

func badBody(m i18n.Message) *BodyError { return &BodyError{Status: http.StatusBadRequest, Say: m} }

// bodyError is err of decodeAPIBody as the answer to the call: a body not declared JSON
// is said as it is (415); a body that is not the JSON the call takes is a 400 with the
// call's API code, said inside the call's own sentence (the catalogue's id, with the
// problem as {{.Error}}), which shows the shape the call takes.
func bodyError(err error, code, id string, kv ...any) *UserError {
	var be *BodyError
	if !errors.As(err, &be) {
		be = badBody(i18n.M("api.body.unreadable", "Error", err.Error()))
	}
	if be.Status == http.StatusUnsupportedMediaType {
		return userError(be.Status, "unsupported_media_type", be.Say)
	}
	return userError(be.Status, code, i18n.M(id, append(kv, "Error", be.Say)...))
}

// jsonMediaType refuses a Content-Type other than application/json (any charset
// parameter must be UTF-8, the only encoding JSON has).
func jsonMediaType(ct string) *BodyError {
	unsupported := &BodyError{Status: http.StatusUnsupportedMediaType}
	if ct == "" {
		unsupported.Say = i18n.M("api.body.no_media_type")
		return unsupported
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		unsupported.Say = i18n.M("api.body.media_type", "Type", strconv.Quote(ct))
		return unsupported
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		unsupported.Say = i18n.M("api.body.media_type", "Type", strconv.Quote(ct))
		return unsupported
	}
	return nil
}

// duplicateKey walks body's tokens and finds a key given twice in one object, in any
// case, at any depth. A body that is not JSON is left to the decoder to describe.
func duplicateKey(body []byte) *BodyError {
	dec := json.NewDecoder(bytes.NewReader(body))
	// An open object: its keys by their folded case, and whether a key comes next.
	type object struct {
		keys    map[string]string
		wantKey bool
	}
	var open []*object // nil for an open array
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // io.EOF, or a syntax error the decoder reports
		}
		if k, ok := tok.(string); ok && len(open) > 0 && open[len(open)-1] != nil && open[len(open)-1].wantKey {
			o := open[len(open)-1]
			if first, seen := o.keys[strings.ToLower(k)]; seen {
				return badBody(i18n.M("api.body.duplicate_key", "Key", strconv.Quote(k), "First", strconv.Quote(first)))
			}
			o.keys[strings.ToLower(k)], o.wantKey = k, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			open = append(open, &object{keys: map[string]string{}, wantKey: true})
			continue
		case json.Delim('['):
			open = append(open, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			open = open[:len(open)-1]
		}
		// A value has ended: in an object, a key comes next.
		if len(open) > 0 && open[len(open)-1] != nil {
			open[len(open)-1].wantKey = true
		}
	}
}

// decodeProblem says what encoding/json found wrong, in the catalogues' words where it
// is one of the common problems.
func decodeProblem(err error) i18n.Message {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return i18n.M("api.body.syntax", "Offset", se.Offset, "Error", se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "(the body)"
		}
		return i18n.M("api.body.type", "Field", field, "Got", te.Value, "Want", te.Type.String())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return i18n.M("api.body.truncated")
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return i18n.M("api.body.unknown_field", "Field", f)
	}
	return i18n.M("api.body.unreadable", "Error", err.Error())
}
