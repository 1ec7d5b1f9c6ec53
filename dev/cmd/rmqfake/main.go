// Command rmqfake runs a simulated RocketMQ cluster of any size on loopback (package
// cluster/clustertest/sim): a NameServer and every broker speak RocketMQ remoting, each
// on a port of its own, answering from formulas rather than stored data, so 64 brokers
// with 100 000 groups and 50 000 topics fit in a few MiB. Point a console at it with
// RMQC_NAMESRV. Every request is counted by code, with the bytes answered.
//
//	rmqfake -brokers 16 -groups 50000 -topics 20000 -latency 1ms
//
// It prints, one per line, what a benchmark needs, then serves until SIGINT or SIGTERM:
//
//	RMQC_NAMESRV=127.0.0.1:PORT
//	RMQFAKE_STATS=http://127.0.0.1:PORT   GET /calls: requests and bytes by code, as JSON;
//	                                      POST /latency?d=5ms: the latency from now on
//	RMQFAKE_HOT_TOPIC=..., RMQFAKE_HOT_MESSAGE=... (an offsetMsgId), RMQFAKE_ONLINE_GROUP=...
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/cluster/clustertest/sim"
)

func main() {
	var shape sim.Shape
	flag.IntVar(&shape.Brokers, "brokers", 1, "brokers (masters)")
	flag.IntVar(&shape.Groups, "groups", 500, "consumer groups")
	flag.IntVar(&shape.Topics, "topics", 200, "topics")
	flag.IntVar(&shape.QueuesPerBroker, "queues", 4, "queues of each topic on each of its brokers")
	flag.IntVar(&shape.BrokersPerCluster, "brokers-per-cluster", 4, "brokers of one RocketMQ cluster; a topic lives on one cluster's brokers")
	flag.IntVar(&shape.HotGroups, "hot-groups", 0, "groups that also consume the hot topic (default groups/10)")
	flag.IntVar(&shape.OnlineEvery, "online-every", 4, "every Nth group has clients online")
	latency := flag.Duration("latency", time.Millisecond, "how long every answer waits")
	nameServer := flag.String("namesrv", "127.0.0.1:0", "the NameServer's listen address")
	stats := flag.String("stats", "127.0.0.1:0", "the listen address of the HTTP stats")
	flag.Parse()
	if err := run(shape, *latency, *nameServer, *stats); err != nil {
		fmt.Fprintln(os.Stderr, "rmqfake:", err)
		os.Exit(1)
	}
}

func run(shape sim.Shape, latency time.Duration, nameServer, stats string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := clustertest.NewRemoting(nil)
	defer srv.Close()
	srv.SetLatency(latency)
	ns, err := srv.Listen(nameServer)
	if err != nil {
		return fmt.Errorf("NameServer: %w", err)
	}
	addrs := make([]string, max(shape.Brokers, 1))
	for i := range addrs {
		if addrs[i], err = srv.Listen("127.0.0.1:0"); err != nil {
			return fmt.Errorf("broker %d: %w", i, err)
		}
	}
	c := sim.New(shape, addrs)
	srv.Use(c)

	ln, err := net.Listen("tcp", stats)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /calls", func(w http.ResponseWriter, _ *http.Request) {
		out := map[string]any{}
		for code, n := range srv.Calls() {
			out[code.String()] = n
		}
		unanswered := map[string]int{}
		for code, n := range srv.Unanswered() {
			unanswered[code.String()] = n
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"calls": out, "unanswered": unanswered})
	})
	mux.HandleFunc("POST /latency", func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("d"))
		if err != nil || d < 0 {
			http.Error(w, "d: a duration such as 5ms", http.StatusBadRequest)
			return
		}
		srv.SetLatency(d)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	fmt.Printf("RMQC_NAMESRV=%s\nRMQFAKE_STATS=http://%s\nRMQFAKE_HOT_TOPIC=%s\nRMQFAKE_HOT_MESSAGE=%s\nRMQFAKE_ONLINE_GROUP=%s\n",
		ns, ln.Addr(), c.HotTopic(), c.HotMessageID(), c.OnlineGroup())
	fmt.Fprintf(os.Stderr, "rmqfake: %s, latency %s, ready\n", c.Shape(), latency)
	<-ctx.Done()
	return nil
}
