package openapi

import "testing"

// TestDocumentIsValidOpenAPI parses the embedded document and checks it against the
// OpenAPI specification: a typo in a $ref or a misplaced keyword fails here first.
func TestDocumentIsValidOpenAPI(t *testing.T) {
	doc, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("the document says OpenAPI %s; the console promises 3.1", doc.OpenAPI)
	}
	n := 0
	for _, item := range doc.Paths.Map() {
		n += len(item.Operations())
	}
	t.Logf("%d operations on %d paths, %d schemas", n, doc.Paths.Len(), len(doc.Components.Schemas))
}
