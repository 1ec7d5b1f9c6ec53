package lookup

import (
	"os"
	"testing"

	"rmqconsole/dev"
)

// One local RocketMQ serves every integration test and benchmark of this package (or
// the one named by RMQC_TEST_NAMESRV).
func TestMain(m *testing.M) {
	os.Exit(dev.RunTests(m))
}
