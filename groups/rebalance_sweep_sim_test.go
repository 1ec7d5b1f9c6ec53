package groups

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/cluster/clustertest/sim"
	"rmqconsole/rocketmq"
	"rmqconsole/rocketmq/rocketmqtest"
)

// The rebalance sweep on simulated clusters of 100, 1 000 and 10 000 groups (a quarter
// online with 2 clients each, the simulator's default): the broker calls of each sweep
// stay within the budget, and the number of collections it takes to have read every
// online group once is its rotation, the longest a rebalance of a group whose client count
// did not change can go unseen. Run with
//
//	RMQC_SWEEP_SIM=1 go test ./groups/ -run TestSweepRotationOnSimulatedClusters -v
func TestSweepRotationOnSimulatedClusters(t *testing.T) {
	if os.Getenv("RMQC_SWEEP_SIM") == "" {
		t.Skip("set RMQC_SWEEP_SIM=1: reads simulated clusters of up to 10 000 groups")
	}
	for _, groups := range []int{100, 1000, 10000} {
		t.Run(fmt.Sprint(groups), func(t *testing.T) {
			srv := clustertest.NewRemoting(nil)
			t.Cleanup(srv.Close)
			ns, err := srv.Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr, err := srv.Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			c := sim.New(sim.Shape{Brokers: 1, Groups: groups, Topics: max(groups/10, 1)}, []string{addr})
			srv.Use(c)
			client := rocketmqtest.Client(t, rocketmq.Config{NameServer: ns, Timeout: 30 * time.Second})
			svc := NewService(client, Options{})
			sweep := NewRebalanceSweep(svc, NewRebalanceLog(nil, nil), 0, nil)
			ctx := context.Background()
			// Every OnlineEvery-th group has clients (sim.Shape's default of 4).
			online := groups / 4
			passes, maxCalls := 0, 0
			for ; passes < 200; passes++ {
				l, err := svc.List(ctx, true)
				if err != nil {
					t.Fatal(err)
				}
				before := brokerCalls(client)
				sweep.Sweep(ctx, l)
				calls := int(brokerCalls(client) - before)
				maxCalls = max(maxCalls, calls)
				if calls > sweep.Calls() {
					t.Errorf("pass %d: %d broker calls, over the budget of %d", passes, calls, sweep.Calls())
				}
				read := 0
				for _, g := range l.Groups {
					if o, ok := sweep.log.last(g.Group); ok && o.clients > 0 {
						read++
					}
				}
				if read >= online {
					passes++
					break
				}
			}
			t.Logf("%d groups, %d online: every online group read within %d collections, at most %d broker calls each (budget %d)",
				groups, online, passes, maxCalls, sweep.Calls())
		})
	}
}
