package handlers

import (
	"fmt"
	"slices"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/masking"
)

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
