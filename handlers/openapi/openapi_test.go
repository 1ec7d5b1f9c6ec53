package openapi

import (
	"slices"
	"testing"

	"rmqconsole/alerts"
)

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

// The metrics a rule may name are those alerts knows: the document cannot be made from
// the list, so it is held to it.
func TestAlertRuleMetricsAreAlertsMetrics(t *testing.T) {
	doc, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range doc.Components.Schemas["AlertRuleInput"].Value.Properties["metric"].Value.Enum {
		enum = append(enum, v.(string))
	}
	if !slices.Equal(enum, alerts.Metrics) {
		t.Errorf("AlertRuleInput.metric lists %v; alerts.Metrics is %v", enum, alerts.Metrics)
	}
}
