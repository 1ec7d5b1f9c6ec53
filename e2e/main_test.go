package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/rlog"

	"rmqconsole/dev"
)

// One local RocketMQ serves every browser test of this binary (or the one named by
// RMQC_TEST_NAMESRV, as under make test).
func TestMain(m *testing.M) {
	rlog.SetLogLevel("error") // the tests' own producers and consumers
	code := dev.RunTests(m)
	if binPath != "" { // Binary's build, in its own temporary dir
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}
