package handlers

import (
	"bytes"
	"context"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/live"
	"rmqconsole/views"
)

// Websocket timing, as in gorilla's chat example: a ping every pingPeriod, and a viewer
// whose pong does not come within pongWait is gone.
const (
	wsWriteWait  = 10 * time.Second
	wsPongWait   = 60 * time.Second
	wsPingPeriod = wsPongWait * 9 / 10
)

// Close codes the htmx websocket extension reconnects after.
const (
	wsCloseServiceRestart = 1012 // the console shuts down
	wsCloseTryAgainLater  = 1013 // the viewer fell behind and was dropped
)

// wsUpgrader keeps gorilla's default origin check: only pages of this console (same
// origin) may open the socket.
var wsUpgrader = websocket.Upgrader{ReadBufferSize: 512, WriteBufferSize: 16 * 1024}

// GroupLive is /ws/groups/{group}: the live group view's frames, pushed as they come.
type GroupLive struct {
	*Env
	// Live is nil when no NameServer is configured.
	Live LiveGroups
}

// Serve upgrades the request and streams the group's frames until the browser leaves,
// falls behind, or the console shuts down.
func (h *GroupLive) Serve(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	if h.Live == nil {
		h.Fail(c, errGroupsNoCluster(c))
		return
	}
	lang := i18n.From(c.Request.Context()).Lang()
	streamLive(c, func(group string) (*live.Viewer, error) { return h.Live.WatchIn(group, lang) }, group)
}

// streamLive upgrades the request and streams key's frames from watch until the browser
// leaves, falls behind, or the console shuts down. Every live view streams through it.
func streamLive(c *gin.Context, watch func(key string) (*live.Viewer, error), key string) {
	conn, err := wsUpgrader.Upgrade(c.Writer, c.Request, nil)
	if err != nil {
		return // the upgrader has answered (403 for another origin, 400 for a plain GET)
	}
	defer conn.Close()
	v, err := watch(key)
	if err != nil {
		_ = conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(wsCloseServiceRestart, "shutting down"), time.Now().Add(wsWriteWait))
		return
	}
	defer v.Close()
	readDone := make(chan struct{})
	go wsReadPump(conn, readDone)
	wsWritePump(conn, v.C, v.Dropped, readDone)
}

// wsReadPump reads (and discards) what the browser sends, so pongs and the close frame
// are processed; it ends when the connection does.
func wsReadPump(conn *websocket.Conn, done chan<- struct{}) {
	defer close(done)
	conn.SetReadLimit(4096)
	_ = conn.SetReadDeadline(time.Now().Add(wsPongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(wsPongWait)) })
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

// wsWritePump sends frames and pings until frames closes (dropped says whether the
// viewer fell behind) or the browser leaves. It is the only writer of the connection.
func wsWritePump(conn *websocket.Conn, frames <-chan live.Frame, dropped func() bool, readDone <-chan struct{}) {
	ping := time.NewTicker(wsPingPeriod)
	defer ping.Stop()
	for {
		select {
		case frame, ok := <-frames:
			_ = conn.SetWriteDeadline(time.Now().Add(wsWriteWait))
			if !ok {
				code, reason := wsCloseServiceRestart, "shutting down"
				if dropped() {
					code, reason = wsCloseTryAgainLater, "fell behind; reconnect"
				}
				_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason))
				return
			}
			for _, msg := range frame {
				if err := conn.WriteMessage(websocket.TextMessage, msg); err != nil {
					return
				}
			}
		case <-ping.C:
			_ = conn.SetWriteDeadline(time.Now().Add(wsWriteWait))
			if err := conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		case <-readDone:
			return
		}
	}
}

// GroupFrames renders live frames for package groups' hub: once per update and
// language among the viewers, whatever the number of viewers.
type GroupFrames struct {
	// Base rebases the frames' links onto the cluster the hub watches.
	Base ClusterBase
}

// Render implements groups.Renderer: one message with everything but the queue rows,
// and the rows, when any changed, in a second message, in the language of ctx.
func (g GroupFrames) Render(ctx context.Context, u *groups.Update) (groups.Frame, error) {
	vm := frameVM(i18n.From(ctx), u)
	var head bytes.Buffer
	if err := views.GroupLiveFrame(vm).Render(ctx, &head); err != nil {
		return nil, err
	}
	f := groups.Frame{g.Base.HTML(head.Bytes())}
	if vm.QueuesAll || len(vm.Queues) > 0 {
		var rows bytes.Buffer
		if err := views.GroupLiveRows(vm).Render(ctx, &rows); err != nil {
			return nil, err
		}
		f = append(f, g.Base.HTML(rows.Bytes()))
	}
	return f, nil
}

var _ groups.Renderer = GroupFrames{}
