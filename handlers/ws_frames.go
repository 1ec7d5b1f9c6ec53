package handlers

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"
)

// wsFrames writes a streamed page's frames to its socket, one at a time: rendered HTML
// rebased on the cluster's path (a named cluster's links stay on it), or bytes as they
// are. A write that fails stops the stream.
type wsFrames struct {
	conn *websocket.Conn
	base ClusterBase
	stop func()

	mu sync.Mutex
}

// sendHTML renders comp and sends it; false when the viewer is gone. The stream's end
// is rendered after its context is cancelled (a scan's Stop cancels it), and templ
// renders nothing in a cancelled context: rendering does no I/O, so it is not cut short.
func (w *wsFrames) sendHTML(ctx context.Context, comp templ.Component) bool {
	var buf bytes.Buffer
	if comp.Render(context.WithoutCancel(ctx), &buf) != nil {
		return false
	}
	return w.send(w.base.HTML(buf.Bytes()))
}

// send sends b as a text frame; false when the viewer is gone.
func (w *wsFrames) send(b []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.conn.SetWriteDeadline(time.Now().Add(wsWriteWait))
	if w.conn.WriteMessage(websocket.TextMessage, b) != nil {
		w.stop()
		return false
	}
	return true
}

// close ends the stream normally, with reason.
func (w *wsFrames) close(reason string) {
	_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, reason), time.Now().Add(wsWriteWait))
}
