package handlers

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/views"
)

// BenchmarkMessagesPageRender measures the server's share of showing a 2000-message result:
// building the view model and rendering the whole first page (layout, form, its rows) into the
// response, as Search does after the query. The budget is 15 ms.
func BenchmarkMessagesPageRender(b *testing.B) {
	f := clustertest.New()
	f.AddBroker("broker-a", "10.0.0.1:10911")
	body := strings.Repeat("x", 1000)
	res := &lookup.Result{Limit: lookup.RangeLimit, Truncated: true, Total: 100_000, InRange: 100_000}
	for i := range lookup.RangeLimit {
		m := clustertest.NewMessage(fmt.Sprintf(`{"order":%d,"pad":"%s"}`, i, body), "TagA", []string{fmt.Sprintf("order-%d", i), "customer-42"},
			fmt.Sprintf("7F000001%024X", i), msgT0.Add(time.Duration(i)*time.Millisecond))
		res.Messages = append(res.Messages, lookup.Message{BrokerName: "broker-a", Message: f.Put("T", "broker-a", i%8, m)})
	}
	q := lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0.Add(time.Hour)}
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}}
	gin.SetMode(gin.ReleaseMode)
	form := msgSearchForm{tab: views.TabRange, form: views.MessagesForm{Topic: "T", Begin: "2026-11-29 10:00:00", End: "2026-11-29 11:00:00"}}
	var size int
	for b.Loop() {
		rec := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(rec)
		c.Request = httptest.NewRequest(http.MethodGet, "/messages", nil)
		vm := views.MessagesVM{Configured: true, Tab: views.TabRange, Form: form.form, Result: msgRangeResultVM(i18n.Match(), q, res),
			QuickRanges: msgQuickRanges(i18n.Match(), form, msgT0)}
		vm.Result.Rows, vm.Result.More = msgPage(i18n.Match(), form, q, res, len(res.Messages))
		h.render(c, http.StatusOK, h.page(c, "Messages", "messages"), views.MessagesPage(vm))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
	b.ReportMetric(float64(size)/1024, "KiB/page")
}
