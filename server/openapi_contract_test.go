package server

import (
	"os"

	"rmqconsole/handlers/openapi/openapitest"
)

// withAPIContract runs the tests with every console they build checking each API answer
// against the document (handlers/openapi/openapi.yaml), and fails the run on any
// mismatch, after saying how many answers were checked.
func withAPIContract(run func() int) int {
	c, err := openapitest.New()
	if err != nil {
		panic(err)
	}
	wrapHandler = c.Wrap
	return c.Report(os.Stdout, run())
}
