package rocketmq

import (
	"os"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/rlog"

	"rmqconsole/dev"
)

// TestMain shares one local RocketMQ among the package's integration tests
// (started on first use, or RMQC_TEST_NAMESRV's) and stops it at the end.
func TestMain(m *testing.M) {
	rlog.SetLogLevel("error") // the Go client logs every rebalance at info
	os.Exit(dev.RunTests(m))
}
