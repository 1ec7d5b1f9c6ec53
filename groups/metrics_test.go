package groups

import (
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// /metrics can be bounded: per-queue series off leaves one set of series per group, and a
// group pattern leaves out the groups it does not match.
func TestLagCollectorBoundsItsSeries(t *testing.T) {
	lag := func(v int64) *int64 { return &v }
	var qs []QueueLag
	for i := range 8 {
		qs = append(qs, QueueLag{Topic: "T", BrokerName: "broker-a", QueueID: i, Lag: lag(1)})
	}
	l := &List{CheckedAt: time.Now(), Groups: []Summary{
		{Group: "orders-cg", TotalLag: lag(8), Queues: qs, MaxLagTimeMs: lag(4200)},
		{Group: "billing-cg", TotalLag: lag(8), Queues: qs},
		{Group: "TOOLS_CONSUMER", System: true},
	}}
	for _, tc := range []struct {
		name           string
		perQueue       bool
		groups         *regexp.Regexp
		queues, groupN int
	}{
		{"everything", true, nil, 16, 2},
		{"no queues", false, nil, 0, 2},
		{"one group", true, regexp.MustCompile("^(?:orders-.*)$"), 8, 1},
	} {
		c := NewLagCollector(nil, time.Minute)
		c.PerQueue, c.Groups = tc.perQueue, tc.groups
		c.last = l
		if n := testutil.CollectAndCount(c, "rmqconsole_consumer_queue_lag"); n != tc.queues {
			t.Errorf("%s: %d queue series, want %d", tc.name, n, tc.queues)
		}
		if n := testutil.CollectAndCount(c, "rmqconsole_consumer_group_lag"); n != tc.groupN {
			t.Errorf("%s: %d group series, want %d", tc.name, n, tc.groupN)
		}
		if n := testutil.CollectAndCount(c, "rmqconsole_consumer_group_lag_time_seconds"); n != 1 {
			t.Errorf("%s: %d time-behind series, want orders-cg's", tc.name, n)
		}
	}
}
