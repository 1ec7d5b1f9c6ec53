package handlers

import (
	"bytes"
	"context"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
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
	streamLive(c, h.Hub.Watch, name)
}

// BrokerFrames is the live hub's poll of one broker: its processes' runtime info, added
// to the broker's series and rendered once for every viewer.
func BrokerFrames(rt BrokerRuntimes, series *brokers.Series) live.PollFunc {
	return func(ctx context.Context, name string) live.Frame {
		rs, fails, err := rt.Runtimes(ctx, name)
		failure := ""
		if err != nil {
			failure = "Could not read broker " + name + ": " + err.Error()
		} else if len(fails) > 0 {
			failure = failureSentences(fails)[0]
		}
		var data string
		if s, ok := brokers.SampleOf(rs, time.Now()); ok {
			data = series.Add(name, s)
		} else {
			data = series.Add(name, brokers.Sample{At: time.Now(), PutTPS: -1, GetTPS: -1})
		}
		var buf bytes.Buffer
		if err := views.BrokerLiveFrame(data, failure).Render(ctx, &buf); err != nil {
			return nil
		}
		return live.Frame{buf.Bytes()}
	}
}
