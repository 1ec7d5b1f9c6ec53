package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

// The one error table: only an error that came from a RocketMQ server is a broker
// failure (502, 504 for a timeout) and its sentence names the server; anything else not
// meant for people is the console's own failure.
func TestErrorTable(t *testing.T) {
	timeout := &rocketmq.TimeoutError{Addr: "10.0.0.2:10911", Code: rocketmq.RequestCode(24)}
	refused := &rocketmq.ConnError{Addr: "10.0.0.2:10911", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   string
		says   string
	}{
		{"store", fmt.Errorf("list audit entries: %w", errors.New("no such table: audit_entries")), 500, "internal", "RocketMQ was not involved"},
		{"timeout", fmt.Errorf("read offsetMsgId X: %w", timeout), 504, "broker_timeout", "10.0.0.2:10911"},
		{"connection", fmt.Errorf("topic route: %w", refused), 502, "broker_error", "10.0.0.2:10911"},
		{"broker answer", &rocketmq.BrokerError{Addr: "10.0.0.2:10911", Code: 1, Remark: "boom"}, 502, "broker_error", "boom"},
		{"one broker failed", fmt.Errorf("no broker listed its consumer groups: %w",
			cluster.BrokerFailure{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "consumer groups", Err: refused}), 502, "broker_error", "broker-b"},
		{"one broker timed out", fmt.Errorf("preview: %w", errors.Join(
			cluster.BrokerFailure{Broker: "broker-b", Op: "consume stats", Err: timeout})), 504, "broker_timeout", "broker-b"},
		{"no brokers", fmt.Errorf("read consumer group g: %w", cluster.ErrNoBrokers), 502, "no_brokers", "namesrvAddr"},
		{"client gone", fmt.Errorf("list: %w", context.Canceled), 499, "cancelled", "cancelled"},
		{"for people", fault.InvalidField("q", "error.no_page", "Path", "/p").Because("bad"), 400, "bad", "/p"},
		{"fault, wrapped", fmt.Errorf("load: %w", fault.New(fault.NotFound, "error.no_page", "Path", "/q").Because("group_not_found")), 404, "group_not_found", "/q"},
		{"fault list", fault.List{fault.InvalidField("a", "error.no_page", "Path", "/a"), fault.InvalidField("b", "error.no_page", "Path", "/b")}, 400, "invalid", "/b"},
		{"store down", fault.Wrap(errors.New("dial tcp: refused"), fault.Unavailable, "error.no_page", "Path", "/s"), 503, "unavailable", "/s"},
		{"not allowed", fault.New(fault.Refused, "error.no_page", "Path", "/r"), 403, "refused", "/r"},
		{"at a limit", fault.New(fault.Busy, "error.no_page", "Path", "/l"), 503, "busy", "/l"},
		{"conflict", fault.New(fault.Conflict, "error.no_page", "Path", "/c"), 409, "conflict", "/c"},
	} {
		status, code := errorStatus(tc.err)
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodGet, "/x", nil)
		if msg := errorMessage(c, tc.err, code); status != tc.status || code != tc.code || !strings.Contains(msg, tc.says) ||
			(code == "internal" && strings.Contains(strings.ToLower(msg), "broker")) {
			t.Errorf("%s: %d %s %q, want %d %s saying %q", tc.name, status, code, msg, tc.status, tc.code, tc.says)
		}
	}
}
