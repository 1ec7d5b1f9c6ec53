package groups

import (
	"context"
	"strconv"
	"testing"
	"time"

	"rmqconsole/store"
)

type fakeLagStore struct{ added [][]store.LagSample }

func (f *fakeLagStore) AddLagSamples(_ context.Context, s []store.LagSample) error {
	f.added = append(f.added, s)
	return nil
}

func (f *fakeLagStore) CompactLagHistory(context.Context, time.Time, time.Duration, time.Duration, time.Duration) (store.LagCompaction, error) {
	return store.LagCompaction{}, nil
}

func ptr(v int64) *int64 { return &v }

// Each collection stores every application group's lag; the rates are the offsets
// advanced per second since the previous collection, a queue whose offset went back
// counting 0, and the first collection has none.
func TestLagRecorderStoresLagAndRates(t *testing.T) {
	st := &fakeLagStore{}
	r := NewLagRecorder(st, 0, nil)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	list := func(at time.Time, broker0, consumer0, broker1, consumer1 int64) *List {
		return &List{CheckedAt: at, Groups: []Summary{
			{Group: "G", TotalLag: ptr(broker0 - consumer0 + broker1 - consumer1), Queues: []QueueLag{
				{Topic: "T", BrokerName: "b", QueueID: 0, BrokerOffset: ptr(broker0), ConsumerOffset: ptr(consumer0)},
				{Topic: "T", BrokerName: "b", QueueID: 1, BrokerOffset: ptr(broker1), ConsumerOffset: ptr(consumer1)},
			}},
			{Group: "CID_RMQ_SYS_X", System: true},
		}}
	}
	r.Record(t.Context(), list(at, 100, 50, 10, 10))
	// 10 s later: 300 more produced, 100 consumed on queue 0; queue 1 reset back by 5.
	r.Record(t.Context(), list(at.Add(10*time.Second), 400, 150, 10, 5))
	if len(st.added) != 2 || len(st.added[0]) != 1 {
		t.Fatalf("stored %v: want one sample of the one application group per collection", st.added)
	}
	first, second := st.added[0][0], st.added[1][0]
	if first.Group != "G" || *first.Lag != 50 || first.ConsumeTPS != nil || first.ProduceTPS != nil {
		t.Errorf("first sample %+v: want lag 50 and no rates yet", first)
	}
	if !second.At.Equal(at.Add(10*time.Second)) || *second.Lag != 255 {
		t.Errorf("second sample %+v: want lag 255 at +10s", second)
	}
	if second.ProduceTPS == nil || *second.ProduceTPS != 30 || second.ConsumeTPS == nil || *second.ConsumeTPS != 10 {
		t.Errorf("second rates produce %s consume %s: want 30/s and 10/s", ratePtr(second.ProduceTPS), ratePtr(second.ConsumeTPS))
	}
}

func ratePtr(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64) + "/s"
}
