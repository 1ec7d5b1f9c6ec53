package brokers

import (
	"encoding/json"
	"testing"
	"time"
)

// The chart's series says where nothing was measured: a tick no process answered, and a
// stretch nobody watched the broker, each as null, so the line breaks there instead of
// running straight across.
func TestSeriesBreaksWhereNothingWasMeasured(t *testing.T) {
	se := NewSeries(10, 2*time.Second)
	at := time.Date(2026, 12, 6, 4, 27, 0, 0, time.UTC)
	var got string
	for _, s := range []Sample{
		{At: at, PutTPS: 1, GetTPS: 2},
		{At: at.Add(2 * time.Second), PutTPS: 3, GetTPS: 4},
		{At: at.Add(4100 * time.Millisecond), PutTPS: -1, GetTPS: -1}, // no process answered
		{At: at.Add(6 * time.Second), PutTPS: 5, GetTPS: 6},
		{At: at.Add(90 * time.Second), PutTPS: 7, GetTPS: 8}, // nobody watched for 84 s
	} {
		got = se.Add("broker-a", s)
	}
	var out struct {
		T   []float64  `json:"t"`
		Put []*float64 `json:"put"`
		Get []*float64 `json:"get"`
	}
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatal(err)
	}
	base := float64(at.Unix())
	wantT := []float64{0, 2, 4.1, 6, 8, 90}
	wantPut := []float64{1, 3, -1, 5, -1, 7} // -1: null
	if len(out.T) != len(wantT) || len(out.Put) != len(wantT) || len(out.Get) != len(wantT) {
		t.Fatalf("series %s, want %d points (a null after the 84 s without samples)", got, len(wantT))
	}
	for i := range wantT {
		if d := out.T[i] - base - wantT[i]; d > 0.001 || d < -0.001 {
			t.Errorf("point %d at +%gs, want +%gs: %s", i, out.T[i]-base, wantT[i], got)
		}
		if (wantPut[i] < 0) != (out.Put[i] == nil) || (out.Put[i] != nil && *out.Put[i] != wantPut[i]) {
			t.Errorf("point %d put %v, want %v (-1: null): %s", i, out.Put[i], wantPut[i], got)
		}
		if (out.Get[i] == nil) != (out.Put[i] == nil) {
			t.Errorf("point %d: put and get disagree on whether it was measured: %s", i, got)
		}
	}
}
