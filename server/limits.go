package server

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// How the HTTP server bounds what a client can hold: idle keep-alive connections are
// closed, a request body must arrive within a deadline, every write of an answer must
// complete within a deadline (so an answer nobody reads is dropped, not held), and only
// a few heavy queries run at once.
//
// There is deliberately no http.Server ReadTimeout or WriteTimeout. ReadTimeout also
// cancels the request's context once it passes, even after the body was read (the
// server's background read of the connection times out; golang/go#70834), so it would
// cut a long reset or group list that is still working; and WriteTimeout counts from
// the request, so it would cut streamed exports whatever their progress. Instead the
// body's deadline is lifted once it has been read, and the write deadline is renewed
// at every write: an ordinary page (rendered into a buffer, written once) is bounded
// by one, a streamed export by one per chunk. The websocket sets its own deadlines.

// parseHTTPLimits reads the HTTP bounds.
func parseHTTPLimits(c *Config, v settingValues) error {
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"http-idle-timeout", &c.HTTPIdleTimeout}, {"http-read-timeout", &c.HTTPReadTimeout}, {"http-write-timeout", &c.HTTPWriteTimeout}} {
		var err error
		if *d.to, err = v.duration(d.name, 100*time.Millisecond, false, "cli.config.reason.http_timeout"); err != nil {
			return err
		}
	}
	n, err := strconv.Atoi(v.get("max-heavy-queries"))
	if err != nil || n < 1 {
		return v.bad("max-heavy-queries", "cli.config.reason.heavy_queries")
	}
	c.MaxHeavyQueries = n
	return nil
}

// ioDeadlines gives a request's body the read timeout (lifted once it is read, see
// above) and renews the write deadline before every write of its answer.
func ioDeadlines(read, write time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		rc := http.NewResponseController(c.Writer)
		if c.Request.Body != nil && c.Request.Body != http.NoBody {
			// Errors mean a writer without deadlines (tests' recorders): nothing to bound.
			if rc.SetReadDeadline(time.Now().Add(read)) == nil {
				c.Request.Body = &deadlineBody{ReadCloser: c.Request.Body, rc: rc}
			}
		}
		c.Writer = &deadlineWriter{ResponseWriter: c.Writer, rc: rc, d: write}
		c.Next()
	}
}

// deadlineBody lifts the read deadline when the body has been read to its end, so the
// server's watch on the idle connection (which cancels the request) does not inherit it.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// deadlineWriter renews the connection's write deadline before each write and flush.
type deadlineWriter struct {
	gin.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *deadlineWriter) renew() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.d)) }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.renew()
	return w.ResponseWriter.Write(p)
}

func (w *deadlineWriter) WriteString(s string) (int, error) {
	w.renew()
	return w.ResponseWriter.WriteString(s)
}

func (w *deadlineWriter) Flush() {
	w.renew()
	w.ResponseWriter.Flush()
}

// Unwrap lets http.ResponseController reach the connection through this writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
