package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/views"
)

// auditCSVHeader names the export's columns: one row per queue of each entry (one row
// with empty queue columns for entries without queues), times in ISO 8601 UTC. cluster is
// the NameServers talked to, cluster_name the configured cluster ("" for entries written
// before clusters had names): last, so readers of the columns by position keep working.
var auditCSVHeader = []string{
	"id", "started_at", "finished_at", "duration_ms", "actor", "actor_addr", "cluster", "group", "topics", "mode",
	"params", "reason", "status", "error", "topic", "broker", "queue_id", "before", "target", "after", "queue_error",
	"queue_note", "method", "seq", "hash", "prev_hash", "cluster_name",
}

// Export is GET /audit/export?format=csv|json with the list's filters: every matching
// entry, newest first, streamed in pages so a long log never sits in memory at once.
func (h *Audit) Export(c *gin.Context) {
	q := h.parseAuditQuery(c)
	format := c.DefaultQuery("format", "csv")
	if format != "csv" && format != "json" {
		q.bad("format", "audit.export.bad_format")
	}
	if len(q.errs) > 0 {
		h.Fail(c, q.errs)
		return
	}
	ctx := c.Request.Context()
	f := q.filter
	f.Limit = 1000
	// Read the first page before answering, so a database error is a proper error page.
	page, more, err := h.Entries.List(ctx, f)
	if err != nil {
		h.Fail(c, err)
		return
	}
	r := CallerRights(c)
	name := "rmqconsole-audit-" + time.Now().UTC().Format("20060102T150405Z") + "." + format
	c.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	var cw *csvExport
	first := true
	if format == "csv" {
		c.Header("Content-Type", "text/csv; charset=utf-8")
		cw = newCSVExport(c.Writer)
		cw.Row(auditCSVHeader...)
	} else {
		c.Header("Content-Type", "application/json; charset=utf-8")
		_, _ = c.Writer.WriteString(`{"entries":[`)
	}
	c.Status(http.StatusOK)
	for {
		// f.BeforeID goes on from the last entry read, whether it was kept or not.
		read := page
		page = r.visibleAuditEntries(page, h.DefaultCluster)
		for i := range page {
			e := &page[i]
			if cw != nil {
				base := []string{
					strconv.FormatInt(e.ID, 10), views.ISO(e.StartedAt), isoOrEmpty(e.FinishedAt), strconv.FormatInt(e.Duration.Milliseconds(), 10),
					e.Actor, e.ActorAddr, e.Cluster, e.Group, strings.Join(e.Topics, " "), e.Mode, string(e.Params), e.Reason,
					string(e.Status), e.Error.String(),
				}
				tail := []string{strconv.FormatInt(e.Seq, 10), e.Hash, e.PrevHash, e.ClusterName}
				qs := e.Queues()
				if len(qs) == 0 {
					cw.Row(append(append(base, "", "", "", "", "", "", "", "", ""), tail...)...)
				}
				for _, q := range qs {
					after := ""
					if q.After != nil {
						after = strconv.FormatInt(*q.After, 10)
					}
					row := append(append([]string{}, base...), q.Topic, q.BrokerName, strconv.Itoa(q.QueueID),
						strconv.FormatInt(q.Before, 10), strconv.FormatInt(q.Target, 10), after, q.Error.String(), q.Note.String(), q.Method)
					cw.Row(append(row, tail...)...)
				}
				continue
			}
			if !first {
				_, _ = c.Writer.WriteString(",")
			}
			first = false
			b, _ := json.Marshal(auditEntryJSON(e))
			_, _ = c.Writer.Write(b)
		}
		if !more || len(read) == 0 || ctx.Err() != nil {
			break
		}
		f.BeforeID = read[len(read)-1].ID
		if page, more, err = h.Entries.List(ctx, f); err != nil {
			// Headers are sent: say so in the file itself rather than end it silently.
			h.Env.Log.Error("audit export stopped", "err", err)
			if cw != nil {
				cw.Row("export stopped: " + err.Error())
			} else {
				_, _ = c.Writer.WriteString(`],"error":` + strconv.Quote("export stopped: "+err.Error()) + `}`)
				return
			}
			break
		}
	}
	if cw != nil {
		cw.Flush()
		return
	}
	_, _ = c.Writer.WriteString("]}")
}

func isoOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return views.ISO(t)
}
