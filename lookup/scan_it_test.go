package lookup

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/filter"
	"rmqconsole/rocketmq"
)

// sendScanRange stores n messages on every write queue of topic in turn, with our own
// client (fast enough for thousands), property n=i, and hit=yes on the indexes in hits.
// It answers the range that holds them.
func sendScanRange(t *testing.T, e *itEnv, topic string, n int, hits map[int]bool) (time.Time, time.Time) {
	t.Helper()
	ctx := ctxT(t)
	var route interface {
		WriteQueues() []rocketmq.MessageQueue
	}
	var addr map[string]string
	dev.Eventually(t, 30*time.Second, "the topic's route", func() error {
		r, err := e.svc.cluster.Route(ctx, topic)
		if err != nil {
			return err
		}
		route, addr = r.Raw(), map[string]string{}
		for _, b := range r.Brokers {
			addr[b.Name] = b.Master
		}
		return nil
	})
	qs := route.WriteQueues()
	begin := time.Now().Add(-time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				q := qs[i%len(qs)]
				p := map[string]string{rocketmq.PropertyUniqueKey: rocketmq.NewUniqueKey(), "n": strconv.Itoa(i)}
				if hits[i] {
					p["hit"] = "yes"
				}
				if _, err := e.c.SendMessage(ctx, addr[q.BrokerName], q, "rmqc_scan_test", rocketmq.OutgoingMessage{Topic: topic, Body: []byte("scan body " + strconv.Itoa(i)), Properties: p}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// A sent message is in the commit log; a scan reads the consume queues, which the
	// broker writes a moment later (longer on a loaded machine): wait until they hold all n.
	dev.Eventually(t, 30*time.Second, "every message in the consume queues", func() error {
		var stored int64
		for _, q := range qs {
			max, err := e.c.MaxOffset(ctx, addr[q.BrokerName], q)
			if err != nil {
				return err
			}
			stored += max
		}
		if stored != int64(n) {
			return fmt.Errorf("%d of %d", stored, n)
		}
		return nil
	})
	return begin, time.Now().Add(time.Second)
}

// A deep scan reads the whole range: it finds the handful of matches among a few
// thousand messages, streams each as found, and counts what it read; with a small budget
// it stops there and says so; stopped by its caller, it ends at once.
func TestIntegrationDeepScan(t *testing.T) {
	e, topic, _ := startIT(t, "lk-scan", 4)
	const n = 3000
	hits := map[int]bool{17: true, 640: true, 1500: true, 2222: true, 2999: true}
	b, en := sendScanRange(t, e, topic, n, hits)
	f, err := filter.Compile(filter.Query{Where: "hit = 'yes'"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)

	var streamed []string
	var progress []ScanProgress
	res, err := e.svc.Scan(ctx, ScanQuery{RangeQuery: RangeQuery{Topic: topic, Begin: b, End: en, Filter: f}}, ScanSink{
		Matches: func(ms []Message, p ScanProgress) {
			for _, m := range ms {
				streamed = append(streamed, m.Properties["n"])
			}
		},
		Progress: func(p ScanProgress) { progress = append(progress, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("whole range: %+v ended %s in %s, streamed %v", res.ScanProgress, res.Ended, res.Took, streamed)
	if res.Ended != ScanDone || res.Scanned != n || res.InRange != n || res.Matched != 5 || len(res.Messages) != 5 || len(streamed) != 5 {
		t.Errorf("whole range: %+v ended %s, %d kept, %d streamed; want %d read of %d, 5 matched", res.ScanProgress, res.Ended, len(res.Messages), len(streamed), n, n)
	}
	for _, m := range res.Messages {
		if i, _ := strconv.Atoi(m.Properties["n"]); !hits[i] {
			t.Errorf("message %d matched, it has no hit", i)
		}
	}
	checkNewestFirst(t, res.Messages)
	if len(progress) == 0 || progress[len(progress)-1] != res.ScanProgress {
		t.Errorf("last progress %v, want %+v", progress, res.ScanProgress)
	}

	res, err = e.svc.Scan(ctx, ScanQuery{RangeQuery: RangeQuery{Topic: topic, Begin: b, End: en, Filter: f}, Budget: 400}, ScanSink{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("budget 400: %+v ended %s in %s", res.ScanProgress, res.Ended, res.Took)
	if res.Ended != ScanBudget || res.Scanned != 400 || res.InRange != n || res.Matched > 1 {
		t.Errorf("budget 400: %+v ended %s; want 400 read of %d, ended by the budget", res.ScanProgress, res.Ended, n)
	}

	stopCtx, stop := context.WithCancel(ctx)
	res, err = e.svc.Scan(stopCtx, ScanQuery{RangeQuery: RangeQuery{Topic: topic, Begin: b, End: en}}, ScanSink{
		Matches: func(ms []Message, p ScanProgress) { stop() },
	})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped: %+v ended %s", res.ScanProgress, res.Ended)
	if res.Ended != ScanStopped || res.Scanned >= n || len(res.Failures) > 0 {
		t.Errorf("stopped: %+v ended %s, failures %v; want it stopped early, no failure", res.ScanProgress, res.Ended, res.Failures)
	}

	if _, err := e.svc.Scan(ctx, ScanQuery{RangeQuery: RangeQuery{Topic: topic, Begin: b, End: en}, Budget: -1}, ScanSink{}); err == nil {
		t.Error("a negative budget was taken")
	}
}
