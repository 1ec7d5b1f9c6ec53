package server

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"rmqconsole/decoding"
	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/store"
)

// shopProto is a producer's schema, uploaded as a descriptor set.
const shopProto = `syntax = "proto3";
package shop.v1;
message Order {
  int64 id = 1;
  string customer = 2;
  repeated string skus = 3;
}
`

// shopOrder compiles shopProto and returns the descriptor set protoc would write and an
// Order body as a producer sends it.
func shopOrder(t *testing.T) (set, body []byte) {
	t.Helper()
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"shop.proto": shopProto})}}
	files, err := c.Compile(context.Background(), "shop.proto")
	if err != nil {
		t.Fatal(err)
	}
	set, err = proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(files[0])}})
	if err != nil {
		t.Fatal(err)
	}
	md := files[0].Messages().ByName("Order")
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("id"), protoreflect.ValueOfInt64(90210))
	m.Set(md.Fields().ByName("customer"), protoreflect.ValueOfString("Zoë Order-Reader"))
	m.Mutable(md.Fields().ByName("skus")).List().Append(protoreflect.ValueOfString("SKU-7"))
	if body, err = proto.Marshal(m); err != nil {
		t.Fatal(err)
	}
	return set, body
}

// decoderPost sends the Decoding form as a browser does (multipart, with the file).
func decoderPost(t *testing.T, a *App, cookie *http.Cookie, lang, target string, fields map[string]string, fileName string, file []byte) *httptest.ResponseRecorder {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if fileName != "" {
		fw, _ := w.CreateFormFile("file", fileName)
		_, _ = fw.Write(file)
	}
	_ = w.Close()
	req := newRequest(http.MethodPost, target, &b)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept-Language", lang)
	req.AddCookie(cookie)
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	return rec
}

func decoderGet(t *testing.T, a *App, cookie *http.Cookie, target string) (*httptest.ResponseRecorder, *goquery.Document) {
	t.Helper()
	req := newRequest(http.MethodGet, target, nil)
	req.AddCookie(cookie)
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return rec, doc
}

// A real producer sends a Protobuf body; an admin sets the topic's decoder through the
// form (a preview of the newest message first), and the message's body then shows its
// fields. A file that is no descriptor set is a sentence in both languages with nothing
// saved; an operator and a viewer are refused; removing the decoder is audited too.
func TestAdminSetsATopicsProtobufDecoderThroughTheForm(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName("decoded")
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	set, body := shopOrder(t)
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	r, err := p.SendSync(ctx, primitive.NewMessage(topic, body))
	if err != nil {
		t.Fatal(err)
	}
	a := newAuthApp(t, "--namesrv", cl.NameServer, "--metrics-interval", "0", "--topic-figures-interval", "0")
	addUsers(t, a, roleUsers)
	admin := sessionCookie(t, a, "ada")
	form := "/topics/" + url.PathEscape(topic) + "/decoder"
	rowURL := "/messages/" + r.OffsetMsgID + "/body?" + url.Values{"topic": {topic}, "part": {"row"}}.Encode()
	good := map[string]string{"type": "protobuf", "message": "shop.v1.Order", "action": "save"}
	saved := func() []store.TopicDecoder {
		ds, err := a.store.TopicDecoders(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}

	// Before: the body is bytes to the console.
	if _, doc := decoderGet(t, a, admin, rowURL); strings.Contains(doc.Find(`[data-testid="body-full-text"]`).Text(), "Zoë") ||
		strings.Contains(doc.Find(`[data-testid="body-how"]`).Text(), "Protobuf") {
		t.Fatalf("read as Protobuf before any decoder: %s", doc.Find(`[data-testid="body-how"]`).Text())
	}

	if rec, _ := decoderGet(t, a, admin, "/topics/"+url.PathEscape("no such|topic")+"/decoder"); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(rec.Body.String(), "is not a topic name RocketMQ accepts") {
		t.Errorf("a topic name RocketMQ refuses: %d %.300s", rec.Code, rec.Body.String())
	}

	for _, who := range []string{"otto", "vera"} {
		rec := decoderPost(t, a, sessionCookie(t, a, who), "en", form, good, "shop.desc", set)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "that needs admin") {
			t.Errorf("%s: %d, want 403 saying admin is needed: %.300s", who, rec.Code, rec.Body.String())
		}
	}

	for lang, says := range map[string]string{"en": "bad.desc is not a descriptor set", "zh-CN": "无法使用该解码器"} {
		rec := decoderPost(t, a, admin, lang, form, good, "bad.desc", []byte("this is not protobuf \xff\xff"))
		doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(`[data-testid="err-source"]`).Text(), says) ||
			doc.Find(`[data-testid="d-message"]`).AttrOr("value", "") != "shop.v1.Order" {
			t.Errorf("%s: bad descriptor %d, err-source %q, want 422 saying %q with the form kept", lang, rec.Code, doc.Find(`[data-testid="err-source"]`).Text(), says)
		}
	}
	// A file over the limit is told on the form too: the route takes a body that big.
	rec := decoderPost(t, a, admin, "en", form, good, "big.desc", make([]byte, decoding.MaxSource+1))
	if doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes())); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(doc.Find(`[data-testid="err-source"]`).Text(), "big.desc is 1025 KiB; a decoder's file may be at most 1024 KiB") {
		t.Errorf("a file too big: %d, err-source %q", rec.Code, doc.Find(`[data-testid="err-source"]`).Text())
	}
	if ds := saved(); len(ds) != 0 {
		t.Fatalf("saved after refusals: %+v", ds)
	}

	// The preview reads the newest message with the decoder, and saves nothing.
	preview := map[string]string{"type": "protobuf", "message": "shop.v1.Order", "action": "preview"}
	var doc *goquery.Document
	dev.Eventually(t, 30*time.Second, "the preview shows the newest message", func() error {
		rec := decoderPost(t, a, admin, "en", form, preview, "shop.desc", set)
		doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(rec.Body.Bytes()))
		if rec.Code != http.StatusOK || doc.Find(`[data-testid="decoder-preview-message"]`).Length() != 1 {
			return fmt.Errorf("status %d, preview %q", rec.Code, doc.Find(`[data-testid="decoder-preview"]`).Text())
		}
		return nil
	})
	if how, text := doc.Find(`[data-testid="decoder-preview-how"]`).Text(), doc.Find(`[data-testid="decoder-preview-text"]`).Text(); !strings.Contains(how, "Protobuf shop.v1.Order from shop.desc") ||
		!strings.Contains(text, `"customer": "Zoë Order-Reader"`) || !strings.Contains(text, `"SKU-7"`) {
		t.Fatalf("preview: %q\n%s", how, text)
	}
	if ds := saved(); len(ds) != 0 {
		t.Fatalf("a preview saved: %+v", ds)
	}

	// Save, with the file carried from the preview (no new upload).
	fields := map[string]string{"sourceName": doc.Find(`input[name="sourceName"]`).AttrOr("value", ""), "sourceData": doc.Find(`input[name="sourceData"]`).AttrOr("value", "")}
	for k, v := range good {
		fields[k] = v
	}
	rec = decoderPost(t, a, admin, "en", form, fields, "", nil)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("save: %d %.500s", rec.Code, rec.Body.String())
	}
	_, doc = decoderGet(t, a, admin, rowURL)
	if how, text := doc.Find(`[data-testid="body-how"]`).Text(), doc.Find(`[data-testid="body-full-text"]`).Text(); !strings.Contains(how, "Protobuf shop.v1.Order from shop.desc") ||
		!strings.Contains(text, `"id": "90210"`) || !strings.Contains(text, `"customer": "Zoë Order-Reader"`) {
		t.Fatalf("the message's body after save: %q\n%s", how, text)
	}
	// The message's own page shows it decoded too, with its bytes a link away.
	pageURL := "/messages/" + r.OffsetMsgID + "?" + url.Values{"topic": {topic}}.Encode()
	_, doc = decoderGet(t, a, admin, pageURL)
	if body := doc.Find(`[data-testid="body-content"]`); body.AttrOr("data-view", "") != "decoded" || !strings.Contains(body.Text(), `"id": "90210"`) ||
		!strings.Contains(doc.Find(`[data-testid="body-encoding"]`).Text(), "Protobuf shop.v1.Order") || doc.Find(`[data-testid="body-view-hex"]`).Length() != 1 {
		t.Errorf("the message's page after save: view %q, encoding %q\n%s", body.AttrOr("data-view", ""), doc.Find(`[data-testid="body-encoding"]`).Text(), body.Text())
	}
	_, doc = decoderGet(t, a, sessionCookie(t, a, "vera"), form)
	if doc.Find(`[data-testid="decoder-now-how"]`).AttrOr("data-origin", "") != "console" || doc.Find(`[data-testid="decoder-form"]`).Length() != 0 ||
		!strings.Contains(doc.Find(`[data-testid="decoder-from"]`).Text(), "by ada") {
		t.Errorf("a viewer's page: origin %q, from %q, form shown %v", doc.Find(`[data-testid="decoder-now-how"]`).AttrOr("data-origin", ""),
			doc.Find(`[data-testid="decoder-from"]`).Text(), doc.Find(`[data-testid="decoder-form"]`).Length() != 0)
	}

	// Removed: the body is bytes again; both changes are in the audit log.
	rec = decoderPost(t, a, admin, "en", form+"/delete", nil, "", nil)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("remove: %d %.300s", rec.Code, rec.Body.String())
	}
	if _, doc = decoderGet(t, a, admin, rowURL); strings.Contains(doc.Find(`[data-testid="body-how"]`).Text(), "Protobuf") {
		t.Errorf("still Protobuf after remove")
	}
	entries, _, err := a.store.Audit().List(ctx, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var modes []string
	for _, e := range entries {
		if len(e.Topics) == 1 && e.Topics[0] == topic {
			modes = append(modes, e.Mode+" by "+e.Actor)
		}
	}
	if strings.Join(modes, ", ") != "topic-decoder-remove by ada, topic-decoder-set by ada" {
		t.Errorf("audit entries of the topic: %v", modes)
	}
}
