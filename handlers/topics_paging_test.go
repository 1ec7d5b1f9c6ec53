package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"rmqconsole/topics"
)

func bigTopicList(n int) *topics.List {
	l := &topics.List{CheckedAt: time.Now()}
	for i := range n {
		t := topics.Summary{Topic: fmt.Sprintf("topic-%05d", i), Type: topics.Types[i%3], ReadQueues: 1 + i%16, WriteQueues: 1 + i%16,
			Perm: 6, Brokers: []string{"broker-a"}, Messages: int64(i*7919) % 100_003, StatsFrom: 1}
		if i%11 != 0 {
			t.PutTPS = f64(float64(i%37) / 4)
		}
		l.Topics = append(l.Topics, t)
	}
	return l
}

func TestTopicsAPIPagesEveryTopicOnceInEachOrder(t *testing.T) {
	f := &fakeTopics{list: bigTopicList(3000)}
	r := topicsRouter(f)
	get := func(path string) (rows []string, total int, next string, size int) {
		t.Helper()
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		var p struct {
			Topics []struct {
				Topic string `json:"topic"`
			} `json:"topics"`
			Total int    `json:"total"`
			Next  string `json:"next"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		for _, x := range p.Topics {
			rows = append(rows, x.Topic)
		}
		return rows, p.Total, p.Next, rec.Body.Len()
	}
	first, total, next, size := get("/api/v1/topics")
	if len(first) != 50 || total != 3000 || next == "" || size > 50_000 {
		t.Fatalf("first page: %d rows of %d, next %q, %d bytes; want 50 of 3000 and a next cursor", len(first), total, next, size)
	}
	for _, order := range []string{"", "&sort=messages&desc=1", "&sort=tps", "&sort=queues&desc=1", "&sort=type", "&type=fifo&q=1"} {
		base := "/api/v1/topics?limit=300" + order
		v, _ := url.ParseQuery(order)
		q := topics.ListQuery{Sort: v.Get("sort"), Desc: v.Get("desc") != "", Type: v.Get("type"), Filter: v.Get("q")}
		want := topics.Select(f.list, q)
		var all []string
		path := base
		for range 100 {
			rows, tot, next, _ := get(path)
			if tot != len(want) {
				t.Fatalf("%s: total %d, want %d", path, tot, len(want))
			}
			all = append(all, rows...)
			if next == "" {
				break
			}
			path = base + "&cursor=" + url.QueryEscape(next)
		}
		if len(all) != len(want) {
			t.Fatalf("%s: %d rows over the pages, want %d", base, len(all), len(want))
		}
		for i := range want {
			if all[i] != want[i].Topic {
				t.Fatalf("%s: row %d is %s, the whole list's order has %s", base, i, all[i], want[i].Topic)
			}
		}
	}
	// The most messages of all are on page one, whatever the topic's name.
	var most int64
	for _, x := range f.list.Topics {
		most = max(most, x.Messages)
	}
	if top, _, _, _ := get("/api/v1/topics?sort=messages&desc=1"); f.list.Topics[topicIndex(top[0])].Messages != most {
		t.Fatalf("first by messages: %s; want the topic with %d messages", top[0], most)
	}
	_, _, lagNext, _ := get("/api/v1/topics?sort=messages")
	for _, q := range []string{"limit=0", "limit=x", "cursor=zz", "sort=tps&cursor=" + url.QueryEscape(lagNext)} {
		for _, path := range []string{"/api/v1/topics?" + q, "/topics?" + q} {
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			want := http.StatusBadRequest
			if !strings.HasPrefix(path, "/api") {
				want = http.StatusUnprocessableEntity
			}
			if rec.Code != want || !strings.Contains(rec.Body.String(), "page") {
				t.Errorf("%s: %d; want %d with a sentence about the page", path, rec.Code, want)
			}
		}
	}
	page := httptest.NewRecorder()
	r.ServeHTTP(page, httptest.NewRequest(http.MethodGet, "/topics?sort=messages&desc=1", nil))
	if b := page.Body.String(); !strings.Contains(b, `data-testid="topics-next"`) || !strings.Contains(b, "50 of 3,000") {
		t.Errorf("/topics: no Next page link or no “50 of 3,000”")
	}
}

func topicIndex(name string) int {
	var i int
	fmt.Sscanf(name, "topic-%05d", &i)
	return i
}
