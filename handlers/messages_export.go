package handlers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/lookup"
	"rmqconsole/store"
	"rmqconsole/views"
)

// Export is GET /messages/export?<the search>&format=csv|json: the page's result as a
// file. Missing times get the page's defaults.
func (h *Messages) Export(c *gin.Context) {
	if h.Lookup == nil {
		h.Fail(c, errNoCluster())
		return
	}
	h.export(c, parseMsgSearchForm(c), c.DefaultQuery("format", "csv"))
}

func (h *Messages) export(c *gin.Context, f msgSearchForm, format string) {
	if format != "csv" && format != "json" {
		h.failInput(c, fault.InvalidField("format", "messages.export.format").Because("bad_format"))
		return
	}
	out, err := h.runSearch(c, &f, !isAPI(c))
	if err != nil {
		h.failInput(c, msgFirstProblem(err))
		return
	}
	defer out.leave()
	var msgs []lookup.Message
	var head MessagesSummaryJSON
	switch {
	case out.idRes != nil:
		msgs = append([]lookup.Message{out.idRes.Message}, out.idRes.Copies...)
		head = MessagesSummaryJSON{Limit: 1, Total: int64(len(msgs)), Failures: out.idRes.Failures, Errors: msgBrokerErrorsJSON(out.idRes.Failures), FromSlaves: out.idRes.FromSlaves}
	case out.keyRes != nil:
		msgs, head = out.keyRes.Messages, messagesSummaryJSON(out.keyRes, nil)
	default:
		msgs, head = out.rangeRes.Messages, messagesSummaryJSON(out.rangeRes, &out.rangeQ)
	}
	h.recordList(c, store.ExportMode, f.form.Topic, format, len(msgs))
	name := msgExportName(f, format)
	c.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	for _, e := range head.Errors {
		// A CSV has no place for them; the header tells a script the file is partial.
		c.Writer.Header().Add("X-Partial-Failure", e.Broker+": "+strings.ReplaceAll(e.Error, "\n", " "))
	}
	if format == "csv" {
		c.Header("Content-Type", "text/csv; charset=utf-8")
		c.Status(http.StatusOK)
		msgWriteCSV(c, msgs)
		return
	}
	c.Header("Content-Type", "application/json; charset=utf-8")
	c.Status(http.StatusOK)
	msgWriteJSON(c, head, msgs)
}

var msgFileUnsafe = regexp.MustCompile(`[^A-Za-z0-9_%|-]+`)

// msgExportName names the file after what was searched: messages-T-20261129T100000Z.csv.
func msgExportName(f msgSearchForm, format string) string {
	what := f.form.Topic
	if f.tab == views.TabID {
		what = f.form.ID
	}
	what = msgFileUnsafe.ReplaceAllString(what, "_")
	if what == "" {
		what = "result"
	}
	return "messages-" + what + "-" + time.Now().UTC().Format("20060102T150405Z") + "." + format
}

// msgCSVHeader are the CSV columns; times are RFC 3339 UTC with milliseconds.
var msgCSVHeader = []string{"storeTime", "msgId", "offsetMsgId", "topic", "tags", "keys", "brokerName", "queueId",
	"queueOffset", "commitLogOffset", "bornTime", "bornHost", "storeHost", "reconsumeTimes", "bodySize", "bodyEncoding",
	"body", "properties"}

func msgWriteCSV(c *gin.Context, msgs []lookup.Message) {
	w := newCSVExport(c.Writer)
	w.Row(msgCSVHeader...)
	for _, m := range msgs {
		j := messageJSON(m)
		props, _ := json.Marshal(j.Properties)
		w.Row(views.ISO(m.StoreTime()), j.MsgID, j.OffsetMsgID, j.Topic, j.Tags, strings.Join(j.Keys, " "),
			j.BrokerName, strconv.Itoa(j.QueueID), strconv.FormatInt(j.QueueOffset, 10), strconv.FormatInt(j.CommitLogOffset, 10),
			views.ISO(m.BornTime()), j.BornHost, j.StoreHost, strconv.Itoa(j.ReconsumeTimes), strconv.Itoa(j.BodySize),
			msgBodyEncoding(j), j.Body, string(props))
	}
	w.Flush()
}

func msgBodyEncoding(j MessageJSON) string {
	if j.BodyEncoding != "" {
		return j.BodyEncoding
	}
	return "utf-8"
}

// msgWriteJSON streams the list answer: the summary fields first, then the messages one
// by one.
func msgWriteJSON(c *gin.Context, summary MessagesSummaryJSON, msgs []lookup.Message) {
	bw := bufio.NewWriterSize(c.Writer, 64<<10)
	head, _ := json.Marshal(summary)
	bw.Write(head[:len(head)-1])
	bw.WriteString(`,"messages":[`)
	enc := json.NewEncoder(bw)
	for i, m := range msgs {
		if i > 0 {
			bw.WriteByte(',')
		}
		if err := enc.Encode(messageJSON(m)); err != nil {
			fmt.Fprintf(bw, "null")
		}
		if (i+1)%csvFlushEvery == 0 {
			bw.Flush()
			c.Writer.Flush()
		}
	}
	bw.WriteString("]}\n")
	bw.Flush()
}
