package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
	"rmqconsole/rocketmq"
)

// deadLettersPage is a page of GET /api/v1/dead-letters as a script reads it.
type deadLettersPage struct {
	DeadLetters []struct {
		Group    string `json:"group"`
		Topic    string `json:"topic"`
		Stored   *int64 `json:"stored"`
		Newest   *int64 `json:"newest"`
		Failures []any  `json:"failures"`
	} `json:"deadLetters"`
	Total    int     `json:"total"`
	Next     *string `json:"next"`
	Failures []any   `json:"failures"`
}

// On the real broker: a group whose consumer failed both its messages until the broker
// moved them to %DLQ%<group> is in GET /api/v1/dead-letters with its group, its 2 stored
// and the store time of the newest; paging one topic at a time meets every topic once
// and it among them; a bad cursor or limit is a 400 before any broker is asked.
func TestDeadLettersAPIOnTheBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ")
	}
	cl := dev.RequireCluster(t)
	topic, group := dev.UniqueName("api-dlqt"), dev.UniqueName("api-dlqg")
	dlq := rocketmq.DLQTopic(group)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	if err := cl.CreateTopic(ctx, topic, 2); err != nil {
		t.Fatal(err)
	}
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	sent := time.Now()
	for i := range 2 {
		if r, err := p.SendSync(ctx, primitive.NewMessage(topic, fmt.Appendf(nil, `{"n":%d}`, i))); err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send: %v %v", r, err)
		}
	}
	// The retry topic, made now rather than by the first failure: the client looks up
	// its route only every 30 s.
	if err := cl.CreateTopic(ctx, rocketmq.RetryTopic(group), 1); err != nil {
		t.Fatal(err)
	}
	failing := dev.StartConsumerProcessWith(t, cl.NameServer, group, dev.ConsumerOptions{Fail: true, MaxReconsumeTimes: 1, RetryDelayLevel: 1}, topic)
	a := newMessagesApp(t, cl.NameServer)

	// every reads each page from path on (limit per page), following next.
	every := func(path string) ([]string, deadLettersPage, error) {
		var topics []string
		var mine deadLettersPage
		for pages := 0; path != ""; pages++ {
			var pg deadLettersPage
			if err := getJSON(t, a, path, &pg); err != nil {
				return nil, mine, err
			}
			for _, d := range pg.DeadLetters {
				topics = append(topics, d.Topic)
				if d.Topic == dlq {
					mine.DeadLetters = append(mine.DeadLetters, d)
				}
			}
			if pages == 0 {
				mine.Total, mine.Failures = pg.Total, pg.Failures
			}
			path = ""
			if pg.Next != nil {
				path = "/api/v1/dead-letters?limit=1&cursor=" + url.QueryEscape(*pg.Next)
			}
		}
		return topics, mine, nil
	}
	var mine deadLettersPage
	dev.Eventually(t, 120*time.Second, "both messages in the dead-letter topic, as the API says", func() error {
		var err error
		_, mine, err = every("/api/v1/dead-letters?refresh=1&limit=500")
		if err != nil {
			return err
		}
		if len(mine.DeadLetters) != 1 || mine.DeadLetters[0].Stored == nil || *mine.DeadLetters[0].Stored != 2 {
			return fmt.Errorf("%s: %+v; the consumer received %v", dlq, mine.DeadLetters, failing.Received())
		}
		return nil
	})
	failing.Stop()
	d := mine.DeadLetters[0]
	if d.Group != group || d.Newest == nil || time.UnixMilli(*d.Newest).Before(sent.Add(-time.Minute)) || time.Until(time.UnixMilli(*d.Newest)) > time.Minute ||
		len(d.Failures) != 0 || len(mine.Failures) != 0 {
		t.Errorf("%s: %+v (newest %v); want group %s, the newest stored a moment ago, no failures", dlq, d, d.Newest, group)
	}

	// One topic a page: every topic once, this one among them, from the kept copy.
	topics, first, err := every("/api/v1/dead-letters?limit=1")
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(topics)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(topics) || !slices.Contains(topics, dlq) || len(topics) != first.Total {
		t.Errorf("a topic a page: %d topics (%d of them distinct), total %d; want each of the total once, %s among them",
			len(topics), len(slices.Compact(sorted)), first.Total, dlq)
	}

	before := msgBrokerCalls(a)
	for _, q := range []string{"limit=0", "limit=501", "cursor=%21%21", "cursor=eyJnIjoieCJ9"} {
		if rec := grpServe(t, a, "/api/v1/dead-letters?refresh=1&"+q); rec.Code != http.StatusBadRequest {
			t.Errorf("?%s: %d %s; want 400", q, rec.Code, rec.Body)
		}
	}
	if n := msgBrokerCalls(a) - before; n != 0 {
		t.Errorf("bad input sent %d requests to brokers; want none", n)
	}
}
