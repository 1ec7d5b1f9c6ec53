package handlers

import (
	"fmt"
	"slices"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/filter"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
	"rmqconsole/rocketmq"
)

// masker is how the caller reads bodies on this cluster (package masking decides);
// nil when nothing is masked.
func (h *Messages) masker(c *gin.Context) *masking.Masker {
	return h.Masking.For(CallerRole(c), h.ClusterName)
}

// rangeQuery is the form's range query for the caller: every range search (the page,
// its further rows, the deep scan, the exports, the API) is built here, so a search by
// a tag the caller sees masked is refused on every path. The brokers compare the tag
// with the stored one: which rows match would tell the tag.
func (h *Messages) rangeQuery(c *gin.Context, f *msgSearchForm, fillDefaults bool) (lookup.RangeQuery, error) {
	q, err := f.rangeQuery(h.now(), fillDefaults)
	if err == nil && q.Tag != "" && h.masker(c).HidesProperty(q.Topic, rocketmq.PropertyTags) {
		return q, fault.New(fault.Refused, "masking.search.tags", "Topic", q.Topic, "Role", CallerRole(c).String()).Because("masked")
	}
	return q, err
}

// keyQuery is the form's key query for the caller, refused when the caller sees the
// topic's keys masked: the index finds by the key itself, so what it finds would tell it.
func (h *Messages) keyQuery(c *gin.Context, f *msgSearchForm) (lookup.KeyQuery, error) {
	q, err := f.keyQuery()
	if err == nil && h.masker(c).HidesProperty(q.Topic, rocketmq.PropertyKeys) {
		return q, fault.New(fault.Refused, "masking.search.keys", "Topic", q.Topic, "Role", CallerRole(c).String()).Because("masked")
	}
	return q, err
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

// maskedGroups is gs, read for the stored message, as the reader of seen (the message
// as shown) may read it: a group that filters the message out names its tag, masked
// when the reader sees the tag masked. The states stay true: they were judged by the
// stored tag.
func maskedGroups(stored, seen lookup.Message, gs *lookup.GroupStates) *lookup.GroupStates {
	if gs == nil || seen.Tags() == stored.Tags() {
		return gs
	}
	out := *gs
	out.States = slices.Clone(gs.States)
	for i, st := range out.States {
		if st.State == lookup.Filtered {
			out.States[i].Reason = i18n.TextOf(i18n.M("lookup.group.filtered", "Subscription", fmt.Sprintf("%q", st.Subscription),
				"Tag", fmt.Sprintf("%q", seen.Tags())))
		}
	}
	return &out
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
