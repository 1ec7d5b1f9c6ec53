package brokers

import (
	"context"
	"testing"
	"time"
)

// What one read of a broker's page costs the cluster: the page (runtime info and
// configuration of each process) and the live chart's poll (runtime info of each
// process), in ms and broker calls, against one bare GET_BROKER_RUNTIME_INFO.
//
//	RMQC_TEST_NAMESRV=127.0.0.1:19876 go test -run '^$' -bench BrokerPage -benchtime 50x ./brokers/
func BenchmarkBrokerPage(b *testing.B) {
	cl, c, svc := newIT(b)
	ctx := context.Background()
	name, addr := cl.Brokers[0].Name, cl.Brokers[0].Addr
	if _, err := svc.Detail(ctx, name); err != nil { // the cluster info is cached from here on, as in the console
		b.Fatal(err)
	}
	const bareN = 50
	start := time.Now()
	for range bareN {
		if _, err := c.BrokerRuntimeInfo(ctx, addr); err != nil {
			b.Fatal(err)
		}
	}
	bare := time.Since(start) / bareN
	measure := func(b *testing.B, poll func() error) {
		calls0 := c.TotalCalls()
		start := time.Now()
		for b.Loop() {
			if err := poll(); err != nil {
				b.Fatal(err)
			}
		}
		per := time.Since(start) / time.Duration(b.N)
		b.ReportMetric(float64(per.Microseconds())/1000, "ms/poll")
		b.ReportMetric(float64(per)/float64(bare), "poll/bare-runtime-info")
		b.ReportMetric(float64(c.TotalCalls()-calls0)/float64(b.N), "broker-calls/poll")
	}
	b.Run("page", func(b *testing.B) {
		measure(b, func() error { _, err := svc.Detail(ctx, name); return err })
	})
	b.Run("live-tick", func(b *testing.B) {
		measure(b, func() error { _, _, err := svc.Runtimes(ctx, name); return err })
	})
}
