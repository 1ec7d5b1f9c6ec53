package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/rlog"

	"rmqconsole/dev"
	"rmqconsole/handlers/openapi/openapitest"
)

// One local RocketMQ serves every browser test of this binary (or the one named by
// RMQC_TEST_NAMESRV, as under make test). Every API call the tests make from Go (not
// through the browser) is checked against the API document; a mismatch fails the run.
func TestMain(m *testing.M) {
	rlog.SetLogLevel("error") // the tests' own producers and consumers
	contract, err := openapitest.New()
	if err != nil {
		panic(err)
	}
	http.DefaultTransport = contract.Transport(http.DefaultTransport)
	code := dev.RunTests(m)
	if binPath != "" { // Binary's build, in its own temporary dir
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(contract.Report(os.Stdout, code))
}
