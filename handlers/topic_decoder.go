package handlers

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/cluster"
	"rmqconsole/decoder"
	"rmqconsole/decoding"
	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/masking"
	"rmqconsole/store"
	"rmqconsole/views"
)

// DecodingService is what the Decoding page needs from package decoding.
type DecodingService interface {
	For(topic string) decoding.Topic
	List() []decoding.Listed
	Preview(ctx context.Context, in decoding.Input) (*decoding.Preview, error)
	Save(ctx context.Context, who decoding.Who, in decoding.Input) (*store.TopicDecoder, error)
	Remove(ctx context.Context, who decoding.Who, topic string) error
}

// TopicDecoder is /topics/{topic}/decoder: how the topic's bodies are read, and the
// admin's form that sets the console's decoder of it (preview, save, remove).
type TopicDecoder struct {
	*Env
	Decoding DecodingService
	// Masking and ClusterName mask the previewed body as the message pages would.
	Masking     *masking.Policy
	ClusterName string
}

func topicDecoderURL(topic string) string { return views.TopicURL(topic) + "/decoder" }

// Show renders the page; ?done=saved|removed says what the last change did.
func (h *TopicDecoder) Show(c *gin.Context) {
	topic, ok := h.topic(c)
	if !ok {
		return
	}
	vm := h.pageVM(c, topic)
	vm.Form = h.formFrom(i18n.From(c.Request.Context()), h.Decoding.For(topic), topic)
	l := i18n.From(c.Request.Context())
	switch c.Query("done") {
	case "saved":
		vm.Done = l.T("decoders.done.saved", "Topic", topic)
	case "removed":
		vm.Done = l.T("decoders.done.removed", "Topic", topic)
	}
	h.renderDecoder(c, http.StatusOK, vm)
}

// Post is the form: action=preview reads the topic's newest message with the decoder,
// action=save stores it. Bad input re-renders the form with 422 and stores nothing.
func (h *TopicDecoder) Post(c *gin.Context) {
	topic, ok := h.topic(c)
	if !ok {
		return
	}
	l := i18n.From(c.Request.Context())
	in, form := h.readForm(c, topic)
	vm := h.pageVM(c, topic)
	vm.Form = form
	if c.PostForm("action") == "save" {
		_, err := h.Decoding.Save(c.Request.Context(), decoding.Who{Actor: Actor(c), Addr: c.ClientIP()}, in)
		if err == nil {
			c.Redirect(http.StatusSeeOther, h.Base.URL(topicDecoderURL(topic)+"?done=saved"))
			return
		}
		if !fault.Is(err, fault.Invalid) {
			h.Fail(c, err)
			return
		}
		h.refuseForm(c, vm, err)
		return
	}
	p, err := h.Decoding.Preview(c.Request.Context(), in)
	if err != nil {
		if !fault.Is(err, fault.Invalid) {
			h.Fail(c, err)
			return
		}
		h.refuseForm(c, vm, err)
		return
	}
	vm.Preview = previewVM(l, p)
	if p.Message != nil {
		// The preview is the body decoded: it is masked as JSON, as its fields read.
		if text, masked := h.Masking.For(CallerRole(c), h.ClusterName).Body(p.Message.Topic, []byte(p.Decoded.Text)); masked {
			vm.Preview.Text, _ = msgCutText(text, previewShown)
			vm.Preview.Masked = l.T("masking.note", "Role", CallerRole(c).String())
		}
	}
	h.renderDecoder(c, http.StatusOK, vm)
}

// topic is the path's topic; a name RocketMQ refuses is answered here (422), as the page
// has no field to show it on.
func (h *TopicDecoder) topic(c *gin.Context) (string, bool) {
	topic := c.Param("topic")
	if !cluster.ValidName(topic) {
		h.failInput(c, fault.New(fault.Invalid, "decoders.error.topic", "Topic", topic).Because("bad_topic"))
		return "", false
	}
	return topic, true
}

// refuseForm re-renders the form with a sentence on each field at fault; a file that
// cannot be used is not carried on, so the form does not claim to be using it.
func (h *TopicDecoder) refuseForm(c *gin.Context, vm views.TopicDecoderVM, err error) {
	vm.Form.FieldErrors = decoderFieldErrors(i18n.From(c.Request.Context()), err)
	if vm.Form.FieldErrors["source"] != "" {
		vm.Form.SourceName, vm.Form.SourceData, vm.Form.SourceNote = "", "", ""
	}
	h.renderDecoder(c, http.StatusUnprocessableEntity, vm)
}

// Remove deletes the console's decoder of the topic.
func (h *TopicDecoder) Remove(c *gin.Context) {
	topic, ok := h.topic(c)
	if !ok {
		return
	}
	if err := h.Decoding.Remove(c.Request.Context(), decoding.Who{Actor: Actor(c), Addr: c.ClientIP()}, topic); err != nil {
		h.Fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, h.Base.URL(topicDecoderURL(topic)+"?done=removed"))
}

// readForm is the form as sent: a newly chosen file replaces the one carried from a
// preview (sourceData, base64).
func (h *TopicDecoder) readForm(c *gin.Context, topic string) (decoding.Input, views.DecoderFormVM) {
	l := i18n.From(c.Request.Context())
	in := decoding.Input{Topic: topic, Type: c.PostForm("type"), Message: c.PostForm("message"), SourceName: c.PostForm("sourceName")}
	form := views.DecoderFormVM{Action: topicDecoderURL(topic), Type: in.Type, Message: in.Message}
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		if f, err := fh.Open(); err == nil {
			in.Source, _ = io.ReadAll(f)
			_ = f.Close()
			in.SourceName = fh.Filename
		}
	} else if b, err := base64.StdEncoding.DecodeString(c.PostForm("sourceData")); err == nil && len(b) > 0 {
		in.Source = b
	}
	if len(in.Source) > 0 && len(in.Source) <= decoding.MaxSource {
		form.SourceName, form.SourceData = in.SourceName, base64.StdEncoding.EncodeToString(in.Source)
		form.SourceNote = l.T("decoders.field.source.kept", "File", in.SourceName, "KiB", (len(in.Source)+1023)>>10)
	}
	return in, form
}

// formFrom starts the form from the console's decoder of the topic, else from the one
// in use.
func (h *TopicDecoder) formFrom(l *i18n.Localizer, t decoding.Topic, topic string) views.DecoderFormVM {
	form := views.DecoderFormVM{Action: topicDecoderURL(topic), Type: decoder.TypeProtobuf}
	switch {
	case t.Console != nil:
		d := t.Console
		form.Type, form.Message = d.Type, d.Message
		if len(d.Source) > 0 {
			form.SourceName, form.SourceData = d.SourceName, base64.StdEncoding.EncodeToString(d.Source)
			form.SourceNote = l.T("decoders.field.source.kept", "File", d.SourceName, "KiB", (len(d.Source)+1023)>>10)
		}
	case t.Found:
		form.Type, form.Message = t.Effective.Type, t.Effective.Message
	}
	return form
}

// pageVM is everything but the form: how the bodies are read now and the list.
func (h *TopicDecoder) pageVM(c *gin.Context, topic string) views.TopicDecoderVM {
	l := i18n.From(c.Request.Context())
	t := h.Decoding.For(topic)
	vm := views.TopicDecoderVM{Topic: topic, CanChange: CallerRole(c).Allows(auth.Admin), RemoveAction: topicDecoderURL(topic) + "/delete",
		CanRemove: t.Console != nil}
	if t.Found {
		vm.Now, vm.Origin = describeDecoder(l, t.Effective), t.Effective.Origin
		if t.Effective.Origin == decoder.OriginFile {
			vm.From = l.T("decoders.from.file", "Topic", t.Effective.Topic)
		} else if t.Console != nil {
			vm.From = l.T("decoders.from.console", "Actor", t.Console.UpdatedBy, "At", t.Console.UpdatedAt.UTC().Format(time.DateTime)+" UTC")
		}
	} else {
		vm.Now, vm.From = l.T("decoders.none"), l.T("decoders.none.how")
	}
	if t.Console != nil && t.File != nil {
		vm.Shadowed = l.T("decoders.shadowed", "How", describeDecoder(l, decoderEntry(t.Console)), "Topic", t.File.Topic)
	}
	if t.Broken != nil {
		vm.Broken = l.Say(decoding.Problem(t.Broken))
	}
	if t.ReadErr != nil {
		vm.ReadErr = l.T("decoders.read_failed", "Error", sayErr(l, t.ReadErr))
	}
	for _, e := range h.Decoding.List() {
		r := views.DecoderRowVM{Topic: e.Topic, Type: typeName(l, e.Type), Message: e.Message, Source: entrySource(e.Entry)}
		if !strings.ContainsAny(e.Topic, "*?[") {
			r.TopicURL = topicDecoderURL(e.Topic)
		}
		if e.Console != nil {
			r.From = l.T("decoders.from.console", "Actor", e.Console.UpdatedBy, "At", e.Console.UpdatedAt.UTC().Format(time.DateTime)+" UTC")
			if e.Shadowed {
				r.NotInUse = l.T("decoders.not_in_use")
			}
		} else {
			r.From = l.T("decoders.from.file.short")
		}
		vm.List = append(vm.List, r)
	}
	return vm
}

func decoderEntry(d *store.TopicDecoder) decoder.Entry {
	return decoder.Entry{Topic: d.Topic, Type: d.Type, Message: d.Message, DescriptorSet: d.SourceName}
}

// describeDecoder is a decoder in words: "Protobuf orders.v1.Order from orders.desc".
func describeDecoder(l *i18n.Localizer, e decoder.Entry) string {
	if e.Type == decoder.TypeProtobuf {
		return l.T("decode.how.protobuf", "Type", e.Message, "Source", entrySource(e))
	}
	return typeName(l, e.Type)
}

func typeName(l *i18n.Localizer, t string) string { return l.TOr("decoders.type."+t, t) }

// entrySource names the descriptor set or .proto files a Protobuf decoder reads.
func entrySource(e decoder.Entry) string {
	if e.DescriptorSet != "" {
		return e.DescriptorSet
	}
	return strings.Join(e.ProtoFiles, ", ")
}

// decoderFieldErrors is one sentence per field of the form.
func decoderFieldErrors(l *i18n.Localizer, err error) map[string]string {
	out := map[string]string{}
	for _, fe := range fault.All(err) {
		if _, ok := out[fe.Field]; !ok {
			out[fe.Field] = fe.Say(l)
		}
	}
	return out
}

// previewShown is how much of a previewed body the page shows.
const previewShown = 16 << 10

func previewVM(l *i18n.Localizer, p *decoding.Preview) *views.DecoderPreviewVM {
	vm := &views.DecoderPreviewVM{}
	for _, f := range p.Failures {
		vm.Failures = append(vm.Failures, l.Say(f.Message()))
	}
	if p.Err != nil {
		vm.Error = l.T("decoders.preview.failed", "Error", sayErr(l, p.Err))
	}
	if p.Message == nil {
		if p.Err == nil {
			vm.Empty = l.T("decoders.preview.empty", "Topic", p.Decoder.Topic)
		}
		return vm
	}
	m := *p.Message
	vm.MessageID, vm.MessageURL = m.OffsetMsgID(), msgDetailURLFor(m.OffsetMsgID(), m)
	vm.StoredAt = time.UnixMilli(m.StoreTimestamp).UTC().Format(time.DateTime) + " UTC"
	vm.How, vm.Kind = l.Say(p.Decoded.How), string(p.Decoded.Kind)
	if p.Decoded.Problem.ID != "" {
		vm.Problem = l.Say(p.Decoded.Problem)
	}
	var cut bool
	if vm.Text, cut = msgCutText([]byte(p.Decoded.Text), previewShown); cut {
		vm.CutNote = l.N("message.body.cut", len(m.Body))
	}
	return vm
}

func (h *TopicDecoder) renderDecoder(c *gin.Context, status int, vm views.TopicDecoderVM) {
	h.render(c, status, h.page(c, i18n.From(c.Request.Context()).T("decoders.page_title", "Topic", views.Cut(vm.Topic)), "topics"), views.TopicDecoderPage(vm))
}
