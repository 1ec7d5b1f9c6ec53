package handlers

import (
	"os"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/handlers/openapi/openapitest"
)

// contract checks every API answer of these tests against the document
// (handlers/openapi/openapi.yaml); TestMain fails the run on any mismatch.
var contract = func() *openapitest.Checker {
	c, err := openapitest.New()
	if err != nil {
		panic(err)
	}
	return c
}()

func TestMain(m *testing.M) {
	code := m.Run()
	os.Exit(contract.Report(os.Stdout, code))
}

// newEngine is gin.New with the API contract check in front of every route: the tests'
// routers start here, so each JSON answer they get is checked against the document.
func newEngine() *gin.Engine {
	r := gin.New()
	r.Use(contract.Gin())
	return r
}
