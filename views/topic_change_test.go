package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A topic whose permission is none of the three a form offers (7: read, write and the
// inherit bit) shows its own, selected, so a save that changes only the queue counts
// sends back the permission it started from and the topic keeps it.
func TestTopicUpdateFormKeepsAPermissionItDoesNotOffer(t *testing.T) {
	for _, c := range []struct{ perm, selected string }{{"7", `<option value="7" selected>`}, {"4", `<option value="4" selected>`}} {
		vm := TopicFormVM{Update: true, Topic: "orders", Perm: c.perm, ReadQueueNums: "8", WriteQueueNums: "8",
			Orig: TopicFormOrig{Perm: c.perm, ReadQueueNums: "8", WriteQueueNums: "8"}}
		var buf bytes.Buffer
		if err := TopicSaveSection(vm).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		html := buf.String()
		if !strings.Contains(html, c.selected) || strings.Count(html, " selected>") != 1 {
			t.Errorf("perm %s: want %s as the one selected option in %s", c.perm, c.selected, permSelect(html))
		}
	}
}

func permSelect(html string) string {
	i := strings.Index(html, `name="perm"`)
	if i < 0 {
		return "(no perm select)"
	}
	j := strings.Index(html[i:], "</select>")
	if j < 0 {
		return html[i:]
	}
	return html[i : i+j]
}
