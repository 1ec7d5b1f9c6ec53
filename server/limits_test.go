package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
)

// serveApp serves a on a loopback port until the test ends and returns its address.
func serveApp(t *testing.T, a *App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}

// dialRaw opens a TCP connection the test drives by hand, with a deadline that
// fails the test (rather than hanging it) when the server never acts.
func dialRaw(t *testing.T, addr string, deadline time.Duration) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(deadline))
	return c
}

// The bounds are 200-300 ms; a server without them keeps the connection for
// the client's whole 5 s.
const clientPatience = 5 * time.Second

// A keep-alive connection left idle is closed by the server.
func TestIdleKeepAliveConnectionClosed(t *testing.T) {
	a := newAuthApp(t, "--http-idle-timeout", "200ms")
	c := dialRaw(t, serveApp(t, a), clientPatience)
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", res, err)
	}
	io.Copy(io.Discard, res.Body)
	// Now idle: the next read ends with the server closing, not with our deadline.
	_, err = r.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("idle keep-alive connection still open after %s", clientPatience)
	}
}

// A request body that stops arriving is given up on at the read timeout; a
// handler that read its body then works for longer keeps its context.
func TestSlowRequestBodyCut(t *testing.T) {
	a := newAuthApp(t, "--http-read-timeout", "300ms")
	slowDone := make(chan error, 1)
	a.def.engine.POST("/test/slow-handler", func(c *gin.Context) {
		_, _ = io.ReadAll(c.Request.Body)
		select {
		case <-time.After(600 * time.Millisecond): // past the read timeout
			slowDone <- c.Request.Context().Err()
		case <-c.Request.Context().Done():
			slowDone <- c.Request.Context().Err()
		}
		c.String(http.StatusOK, "done")
	})
	addr := serveApp(t, a)

	c := dialRaw(t, addr, clientPatience)
	io.WriteString(c, "POST /test/slow-handler HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly ten b")
	// Answered (the body could not be read) or hung up on: either way not kept waiting.
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("a body that stopped arriving was still being waited for after %s", clientPatience)
	}
	if err == nil {
		res.Body.Close()
	}

	res, err = http.Post("http://"+addr+"/test/slow-handler", "text/plain", strings.NewReader("whole body"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if err := <-slowDone; err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("a handler working past the read timeout after reading its body: %d, context %v", res.StatusCode, err)
	}
}

// An answer nobody reads is dropped at the write timeout, freeing what it
// held; a streamed answer read as it comes outlives that timeout, since each
// chunk gets its own.
func TestUnreadAnswerDroppedStreamKept(t *testing.T) {
	a := newAuthApp(t, "--http-write-timeout", "300ms")
	wrote := make(chan error, 1)
	a.def.engine.GET("/test/big", func(c *gin.Context) {
		_, err := c.Writer.Write(make([]byte, 64<<20)) // a page is written at once
		wrote <- err
	})
	a.def.engine.GET("/test/stream", func(c *gin.Context) {
		chunk := make([]byte, 16<<10)
		for range 20 { // 20 × 50 ms: three times the write timeout in all
			if _, err := c.Writer.Write(chunk); err != nil {
				return
			}
			c.Writer.Flush()
			time.Sleep(50 * time.Millisecond)
		}
	})
	addr := serveApp(t, a)

	c := dialRaw(t, addr, clientPatience+time.Second)
	io.WriteString(c, "GET /test/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") // and never read
	select {
	case err := <-wrote:
		if err == nil {
			t.Error("64 MiB written to a client that reads nothing")
		}
	case <-time.After(clientPatience):
		t.Fatalf("a write to a client that reads nothing still blocked after %s", clientPatience)
	}

	res, err := http.Get("http://" + addr + "/test/stream")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil || n != 20*16<<10 {
		t.Errorf("streamed answer: %d bytes, %v; want all %d", n, err, 20*16<<10)
	}
}
