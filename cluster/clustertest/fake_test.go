package clustertest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/rocketmq"
)

// The fake answers like the real brokers: every field a captured reply of a real broker
// fills (rocketmq/testdata/captured, recorded by the rocketmq integration tests), the
// fake's answer to the same request fills too, on each captured RocketMQ line. A field
// the fake left empty would let a service test pass on data no broker sends.
func TestFakeFillsWhatRealBrokersFill(t *testing.T) {
	f := clustertest.New()
	f.AddBroker("broker-a", "127.0.0.1:20911")
	f.AddMessages("T", "broker-a", 4, 5, time.UnixMilli(1_795_966_510_000))
	f.AddGroup(&clustertest.Group{Name: "g", Topics: []string{"T"}, Clients: []clustertest.Client{{ID: "c1"}, {ID: "c2"}}})
	for q := range 4 {
		f.SetOffset("g", rocketmq.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: q}, 5)
	}
	ctx := context.Background()
	ci, _ := f.ClusterInfo(ctx)
	route, _ := f.TopicRoute(ctx, "T")
	cc, _ := f.ConsumerConnections(ctx, "127.0.0.1:20911", "g")
	cs, _ := f.ConsumeStats(ctx, "127.0.0.1:20911", "g", "T")
	var offset rocketmq.OffsetWrapper
	for _, o := range cs.Offsets {
		offset = o
	}

	dirs, _ := filepath.Glob("../../rocketmq/testdata/captured/*")
	if len(dirs) == 0 {
		t.Fatal("no captured replies")
	}
	for _, dir := range dirs {
		for _, c := range []struct {
			file string
			real any
			fake any
		}{
			{"cluster_info.json", &rocketmq.ClusterInfo{}, ci},
			{"route.json", &rocketmq.TopicRoute{}, route},
			{"consumer_connection.json", &rocketmq.ConsumerConnection{}, cc},
			{"consume_stats.json", &struct {
				OffsetTable map[string]rocketmq.OffsetWrapper `json:"offsetTable"`
			}{}, offset},
		} {
			body, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			norm, err := rocketmq.NormalizeJSON(body)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(norm, c.real); err != nil {
				t.Fatalf("%s/%s: %v", filepath.Base(dir), c.file, err)
			}
			real := reflect.ValueOf(c.real).Elem()
			if m := real.FieldByName("OffsetTable"); m.IsValid() {
				real = m.MapIndex(m.MapKeys()[0])
			}
			for _, field := range missing(real, reflect.ValueOf(c.fake), "") {
				t.Errorf("%s/%s: a real broker fills %s, the fake does not", filepath.Base(dir), c.file, field)
			}
		}
	}
}

// missing lists the fields set in real (recursing into structs, and into the first
// element of slices and maps) that are zero in fake.
func missing(real, fake reflect.Value, path string) []string {
	for real.Kind() == reflect.Pointer {
		real = real.Elem()
	}
	for fake.Kind() == reflect.Pointer {
		fake = fake.Elem()
	}
	if empty(real) {
		return nil
	}
	if !fake.IsValid() || empty(fake) {
		return []string{path}
	}
	var out []string
	switch real.Kind() {
	case reflect.Struct:
		for i := range real.NumField() {
			if real.Type().Field(i).IsExported() {
				out = append(out, missing(real.Field(i), fake.Field(i), path+"."+real.Type().Field(i).Name)...)
			}
		}
	case reflect.Slice:
		out = missing(real.Index(0), fake.Index(0), path+"[0]")
	case reflect.Map:
		out = missing(real.MapIndex(real.MapKeys()[0]), fake.MapIndex(fake.MapKeys()[0]), path+"[]")
	}
	return out
}

// empty is a zero value, or a slice or map without elements (brokers send [] and {}).
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}
