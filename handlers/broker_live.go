package handlers

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/live"
	"rmqconsole/views"
)

// BrokerRuntimes is what the broker page's live chart polls.
type BrokerRuntimes interface {
	Runtimes(ctx context.Context, name string) ([]brokers.Runtime, []cluster.BrokerFailure, error)
}

// BrokerLive is /ws/brokers/{name}: the broker page's TPS chart, pushed as it is polled.
type BrokerLive struct {
	*Env
	Hub *live.Hub
	// Quota bounds the live views each user has open, shared with the group pages; nil
	// bounds nothing.
	Quota *live.Quota
}

// Serve upgrades the request and streams the broker's frames until the browser leaves,
// falls behind, or the console shuts down.
func (h *BrokerLive) Serve(c *gin.Context) {
	name := c.Param("name")
	if !cluster.ValidName(name) {
		h.Fail(c, badBrokerName(name))
		return
	}
	if h.Hub == nil {
		h.Fail(c, errBrokersNoCluster)
		return
	}
	streamLive(c, h.Quota, h.Hub.Watch, liveKey(name, tr(c)))
}

// BrokerFrames is the live hub's poll of one broker: its processes' runtime info, added
// to the broker's series and rendered once for every viewer.
func BrokerFrames(rt BrokerRuntimes, series *brokers.Series) live.PollFunc {
	return func(ctx context.Context, key string) live.Frame {
		name, l := fromLiveKey(key)
		ctx = i18n.With(ctx, l)
		rs, fails, err := rt.Runtimes(ctx, name)
		failure := ""
		if err != nil {
			failure = l.T("broker.live.failed", "Broker", name, "Error", sayErr(l, err))
		} else if len(fails) > 0 {
			failure = sayFailures(l, fails)[0]
		}
		var data string
		if s, ok := brokers.SampleOf(rs, time.Now()); ok {
			data = series.Add(key, s)
		} else {
			data = series.Add(key, brokers.Sample{At: time.Now(), PutTPS: -1, GetTPS: -1})
		}
		var buf bytes.Buffer
		if err := views.BrokerLiveFrame(data, failure).Render(ctx, &buf); err != nil {
			return nil
		}
		return live.Frame{buf.Bytes()}
	}
}

// A live view is watched per broker and language: its frames carry sentences (a broker
// that failed), so viewers of one language share one poll and one render, and each
// language keeps its own series.
func liveKey(name string, l *i18n.Localizer) string { return name + "\x00" + l.Lang() }

// fromLiveKey is the broker name and the language of a live key.
func fromLiveKey(key string) (string, *i18n.Localizer) {
	name, lang, _ := strings.Cut(key, "\x00")
	return name, i18n.Match(lang)
}
