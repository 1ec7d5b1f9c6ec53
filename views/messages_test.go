package views

import (
	"bytes"
	"context"
	"html"
	"strings"
	"testing"
)

// The hand-written table rows escape every value exactly as templ (html.EscapeString)
// does: message keys, tags and bodies are untrusted.
func TestMessageRowsEscapeLikeTempl(t *testing.T) {
	payload := `<script>window.__pwned=1</script>"'&<img src=x onerror=alert(1)>`
	row := MessageRow{StoreTime: payload, UniqKey: payload, OffsetMsgID: payload, Keys: payload, Tags: payload,
		Broker: payload, QueueID: payload, QueueOffset: payload, Size: payload, Preview: payload, DetailURL: payload, BodyURL: payload, UniqKeyURL: payload}
	var buf bytes.Buffer
	if err := messageRows([]MessageRow{row}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>") || strings.Contains(out, "<img") || strings.Contains(out, `"'`) {
		t.Fatalf("raw markup in the rows:\n%s", out)
	}
	if got, want := strings.Count(out, html.EscapeString(payload)), 16; got != want {
		t.Errorf("escaped payload appears %d times, want %d (every value once; the preview, the detail link and the offsetMsgId twice):\n%s", got, want, out)
	}
}
