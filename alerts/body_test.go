package alerts

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"rmqconsole/store"
)

// With several clusters a notification says which one the group is on: the same group
// name may exist on each.
func TestBodyNamesTheCluster(t *testing.T) {
	v := int64(500)
	st := store.AlertState{Group: "orders-cg", Since: time.Now(), Value: &v}
	for _, format := range []string{FormatJSON, FormatSlack, FormatDingTalk} {
		r := store.AlertRule{Name: "lagging", GroupPattern: "orders-*", Metric: MetricLag, Threshold: 100, Format: format}
		b := string(Body(r, st, "firing", time.Now(), "10.0.0.1:9876", "prod"))
		if !strings.Contains(b, "[prod] ") {
			t.Errorf("%s body does not name cluster prod: %s", format, b)
		}
		if one := string(Body(r, st, "firing", time.Now(), "10.0.0.1:9876", "")); strings.Contains(one, "prod") {
			t.Errorf("%s body of a one-cluster console names a cluster: %s", format, one)
		}
	}
	var m map[string]any
	r := store.AlertRule{Name: "lagging", Metric: MetricLag, Format: FormatJSON}
	if err := json.Unmarshal(Body(r, st, "firing", time.Now(), "10.0.0.1:9876", "prod"), &m); err != nil || m["clusterName"] != "prod" || m["cluster"] != "10.0.0.1:9876" {
		t.Errorf("JSON body: %v %v", m, err)
	}
}
