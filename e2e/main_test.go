package e2e

import (
	"os"
	"testing"

	"rmqconsole/dev"
)

// One local RocketMQ serves every browser test of this binary (or the one named by
// RMQC_TEST_NAMESRV, as under make test).
func TestMain(m *testing.M) {
	os.Exit(dev.RunTests(m))
}
