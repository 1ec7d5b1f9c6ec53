package handlers

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/filter"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
)

// masker is how the caller reads bodies on this cluster (package masking decides);
// nil when nothing is masked.
func (h *Messages) masker(c *gin.Context) *masking.Masker {
	return h.Masking.For(CallerRole(c), h.ClusterName)
}

// maskMessage is m as mk's reader may see it.
func maskMessage(mk *masking.Masker, m lookup.Message) lookup.Message {
	if out, ok := mk.Message(m.Message); ok {
		m.Message, m.Masked = out, true
	}
	return m
}

// maskMessages masks ms in place.
func maskMessages(mk *masking.Masker, ms []lookup.Message) {
	for i := range ms {
		ms[i] = maskMessage(mk, ms[i])
	}
}

// maskedFilter is f judging messages as mk's reader sees them: a reader who filters on
// a masked value must not learn it by which rows match.
func maskedFilter(mk *masking.Masker, f *filter.Filter) *filter.Filter {
	if mk == nil {
		return f
	}
	return f.MaskedBy(mk.Reader(), mk.Masked)
}

// msgMaskedShort is a result row's note that m is masked; "" when it is not.
func msgMaskedShort(l *i18n.Localizer, m lookup.Message) string {
	if !m.Masked {
		return ""
	}
	return l.T("masking.note.short")
}

// maskedNote says that m is masked for the caller's role; "" when it is not.
func maskedNote(c *gin.Context, m lookup.Message) string {
	if !m.Masked {
		return ""
	}
	l := i18n.From(c.Request.Context())
	if masking.WholeBody(m.Body) {
		return l.T("masking.whole", "Role", CallerRole(c).String())
	}
	return l.T("masking.note", "Role", CallerRole(c).String())
}
