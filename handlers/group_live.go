package handlers

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"rmqconsole/cluster"
	"rmqconsole/fault"
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

// wsUpgrader lets only pages of this console (same origin) open a socket; sameOrigin is
// the rule, so a handler can check it before it starts work for a socket (the tail).
var wsUpgrader = websocket.Upgrader{ReadBufferSize: 512, WriteBufferSize: 16 * 1024, CheckOrigin: sameOrigin}

// sameOrigin: a request without an Origin header (not a browser), or from a page of
// this host, as gorilla's default check.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// Close codes of a live view the console refused: the htmx websocket extension does not
// reconnect after them, and the page says why (views.LiveRefused).
const (
	wsCloseNotFound = 4404 // nothing by that name to watch
	wsCloseTooMany  = 4429 // the viewer's, or the console's, bound of live views
)

// liveCloses is the close code of a live view refused with a fault error, by its code,
// as errorStatus is an answer's status. Other errors close as the console shutting down.
var liveCloses = map[fault.Code]int{fault.NotFound: wsCloseNotFound, fault.Busy: wsCloseTooMany}

// LiveGroups is the live view's hub, as the group page and its websocket use it.
type LiveGroups interface {
	Latest(group string) (*groups.Snapshot, bool)
	// Open streams the group's frames in lang, rendered once per language among its
	// viewers; a group not watched yet must be known to the cluster and fit the bound
	// of groups watched at once (fault.NotFound, fault.Busy, saying why).
	Open(ctx context.Context, group, lang string) (*groups.Viewer, error)
	Interval() time.Duration
}

// groupParam is the :group of every group route when RocketMQ would accept the name;
// otherwise it answers badGroupName and returns false, before any broker is asked.
func (e *Env) groupParam(c *gin.Context) (string, bool) {
	group := c.Param("group")
	if !cluster.ValidName(group) {
		e.Fail(c, badGroupName(group))
		return "", false
	}
	return group, true
}

// badGroupName is a group name RocketMQ would refuse.
func badGroupName(name string) error {
	return fault.InvalidField("group", "group.error.badName", "Group", views.Cut(name)).Because("bad_group")
}

// GroupLive is /ws/groups/{group}: the live group view's frames, pushed as they come.
type GroupLive struct {
	*Env
	// Live is nil when no NameServer is configured.
	Live LiveGroups
	// Quota bounds the live views each user has open, shared with the broker pages; nil
	// bounds nothing.
	Quota *live.Quota
	// Views share the viewers' rights with the frames' renderer (GroupFrames.Views).
	Views *LiveViews
}

// Serve upgrades the request and streams the group's frames until the browser leaves,
// falls behind, or the console shuts down. A group the cluster does not know, or one
// more than the console watches at once, is refused with a sentence and a close code.
func (h *GroupLive) Serve(c *gin.Context) {
	group, ok := h.groupParam(c)
	if !ok {
		return
	}
	if h.Live == nil {
		h.Fail(c, errNoCluster())
		return
	}
	ctx := c.Request.Context()
	streamLive(c, h.Quota, func(group string) (*live.Viewer, error) {
		return h.Live.Open(ctx, group, h.Views.viewFor(CallerRights(c), i18n.From(ctx).Lang()))
	}, group)
}

// liveOwner is whose live views a request counts towards: the signed-in user, or, on a
// console without users, the client's address.
func liveOwner(c *gin.Context) string {
	if u := SignedInUser(c); u != "" {
		return "user " + u
	}
	return "address " + c.ClientIP()
}

// streamLive upgrades the request and streams key's frames from watch until the browser
// leaves, falls behind, or the console shuts down. Every live view streams through it,
// within quota: a user with its bound of views open is refused another.
func streamLive(c *gin.Context, quota *live.Quota, watch func(key string) (*live.Viewer, error), key string) {
	conn, err := wsUpgrader.Upgrade(c.Writer, c.Request, nil)
	if err != nil {
		return // the upgrader has answered (403 for another origin, 400 for a plain GET)
	}
	defer conn.Close()
	l := i18n.From(c.Request.Context())
	release, ok := quota.Take(liveOwner(c))
	if !ok {
		refuseLive(conn, l, fault.New(fault.Busy, "live.refused.views", "Count", i18n.Count(quota.Max())).Because("too_many_live_views"))
		return
	}
	defer release()
	v, err := watch(key)
	switch fe := fault.As(err); {
	case fe != nil && liveCloses[fe.Code] != 0:
		refuseLive(conn, l, fe)
		return
	case err != nil:
		_ = conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(wsCloseServiceRestart, "shutting down"), time.Now().Add(wsWriteWait))
		return
	}
	defer v.Close()
	readDone := make(chan struct{})
	go wsReadPump(conn, readDone)
	wsWritePump(conn, v.C, v.Dropped, readDone)
}

// refuseLive sends the page the sentence of a refusal in l's language, in place of its
// live indicator, then closes with the refusal's code (liveCloses) and its reason in
// words ("group not found").
func refuseLive(conn *websocket.Conn, l *i18n.Localizer, r *fault.Error) {
	var buf bytes.Buffer
	if views.LiveRefused(r.Say(l)).Render(context.Background(), &buf) == nil {
		_ = conn.SetWriteDeadline(time.Now().Add(wsWriteWait))
		_ = conn.WriteMessage(websocket.TextMessage, buf.Bytes())
	}
	reason := strings.ReplaceAll(r.Reason, "_", " ")
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(liveCloses[r.Code], reason), time.Now().Add(wsWriteWait))
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
	// Views are the rights of the viewers, for frames rendered for a view.
	Views *LiveViews
}

// Render implements groups.Renderer: one message with everything but the queue rows,
// and the rows, when any changed, in a second message, in the language of ctx.
func (g GroupFrames) Render(ctx context.Context, u *groups.Update) (groups.Frame, error) {
	u = g.Views.update(ctx, u)
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
