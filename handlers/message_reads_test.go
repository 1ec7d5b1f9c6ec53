package handlers

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/lookup"
	"rmqconsole/store"
)

// readLog is an audit log that keeps the reads it is given, or fails them all.
type readLog struct {
	mu    sync.Mutex
	reads []store.Read
	fail  error
}

func (l *readLog) RecordRead(_ context.Context, r store.Read) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return l.fail
	}
	l.reads = append(l.reads, r)
	return nil
}

func readsRouter(svc *lookup.Service, ra *ReadAudit) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	h := &Messages{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Lookup: svc, Reads: ra}
	r.GET("/messages", h.Search)
	r.GET("/messages/export", h.Export)
	r.GET("/messages/:id", h.Show)
	r.GET("/messages/:id/body", h.Body)
	r.GET("/api/v1/messages", h.API)
	r.GET("/api/v1/messages/:id", h.ShowAPI)
	return r
}

// Every answer that shows bodies is one read in the audit log: one per message shown
// alone, one per list or export with its row count; a database that fails does not fail
// the answer and is named on it.
func TestEveryBodyShownIsRecordedAsARead(t *testing.T) {
	f := msgFake(4)
	svc := lookup.New(f, lookup.Options{})
	res, err := svc.ByRange(context.Background(), lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0})
	if err != nil || len(res.Messages) != 1 {
		t.Fatal(err)
	}
	id := res.Messages[0].OffsetMsgID()
	log := &readLog{}
	r := readsRouter(svc, &ReadAudit{Log: log, NameServers: "ns:9876"})
	for _, c := range []struct {
		target, mode, format string
		rows                 int
	}{
		{"/messages/" + id + "?topic=T", store.ReadBodyMode, "page", 1},
		{"/messages/" + id + "/body?topic=T&part=row", store.ReadBodyMode, "row", 1},
		{"/messages/" + id + "/body?topic=T", store.ReadBodyMode, "file", 1},
		{"/api/v1/messages/" + id + "?topic=T", store.ReadBodyMode, "api", 1},
		{rangeURL("/api/v1/messages"), store.ReadListMode, "api", 4},
		{rangeURL("/messages"), store.ReadListMode, "page", 4},
		{rangeURL("/api/v1/messages", "scan", "deep"), store.ReadListMode, "api", 4},
		{rangeURL("/messages/export", "format", "json"), store.ExportMode, "json", 4},
		{rangeURL("/api/v1/messages", "format", "csv"), store.ExportMode, "csv", 4},
	} {
		log.reads = nil
		rec := msgGet(t, r, c.target)
		if rec.Code != http.StatusOK || len(log.reads) != 1 {
			t.Errorf("GET %s: %d, %d reads recorded, want 1", c.target, rec.Code, len(log.reads))
			continue
		}
		got := log.reads[0]
		if got.Mode != c.mode || got.Format != c.format || got.Rows != c.rows || got.Topic != "T" || got.Cluster != "ns:9876" ||
			got.Actor != "local" || got.ActorAddr == "" {
			t.Errorf("GET %s recorded %+v, want %s/%s with %d rows", c.target, got, c.mode, c.format, c.rows)
		}
		if c.mode == store.ReadBodyMode && got.OffsetMsgID != id {
			t.Errorf("GET %s recorded message %q, want %q", c.target, got.OffsetMsgID, id)
		}
		if c.mode != store.ReadBodyMode && got.Query["topic"] != "T" {
			t.Errorf("GET %s recorded the query %v", c.target, got.Query)
		}
	}
	// Bad input shows no body and records nothing.
	log.reads = nil
	if rec := msgGet(t, r, "/api/v1/messages?topic=T&begin=yesterday"); rec.Code != http.StatusBadRequest || len(log.reads) != 0 {
		t.Errorf("bad input: %d, %d reads", rec.Code, len(log.reads))
	}

	down := &readLog{fail: errors.New("the console's database is unavailable (disk I/O error)")}
	var counted int
	r = readsRouter(svc, &ReadAudit{Log: down, Unrecorded: func(error) { counted++ }})
	rec := msgGet(t, r, "/api/v1/messages/"+id+"?topic=T")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get(UnrecordedHeader), "disk I/O error") || counted != 1 {
		t.Fatalf("with the database down: %d, header %q, counted %d", rec.Code, rec.Header().Get(UnrecordedHeader), counted)
	}
}
