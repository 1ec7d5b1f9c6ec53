package handlers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"testing"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
)

// manyGroupsRouter is the message routes over a topic that n groups consume: every
// third online and behind the message, the rest offline with offsets past it.
func manyGroupsRouter(t *testing.T, n int) (http.Handler, string) {
	t.Helper()
	r, id, _ := manyGroupsCluster(t, n)
	return r, id
}

// manyGroupsCluster is manyGroupsRouter with its fake cluster.
func manyGroupsCluster(t *testing.T, n int) (http.Handler, string, *clustertest.Fake) {
	t.Helper()
	f := msgFake(2)
	past := map[rocketmq.MessageQueue]int64{}
	for _, b := range []string{"broker-a", "broker-b"} {
		for q := range 2 {
			past[rocketmq.MessageQueue{Topic: "T", BrokerName: b, QueueID: q}] = 1000
		}
	}
	for i := range n {
		g := &clustertest.Group{Name: fmt.Sprintf("app-%04d", i), Topics: []string{"T"}, Offsets: past}
		if i%3 == 0 {
			g.Clients, g.Offsets = []clustertest.Client{{ID: fmt.Sprintf("10.0.0.9@%d", i)}}, nil
		}
		f.AddGroup(g)
	}
	svc := lookup.New(f, lookup.Options{})
	res, err := svc.ByRange(t.Context(), lookup.RangeQuery{Topic: "T", Begin: msgT0, End: msgT0})
	if err != nil || len(res.Messages) != 1 {
		t.Fatal(err)
	}
	return msgRouter(svc), res.Messages[0].OffsetMsgID(), f
}

func TestMessageGroupsComeAPageAtATimeTroubleFirst(t *testing.T) {
	r, id := manyGroupsRouter(t, 300)
	type page struct {
		Groups []struct {
			Group string `json:"group"`
			State string `json:"state"`
		} `json:"groups"`
		Total int     `json:"total"`
		Next  *string `json:"next"`
	}
	get := func(path string) page {
		t.Helper()
		rec := msgGet(t, r, path)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		var p page
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := get("/api/v1/messages/" + id)
	if len(first.Groups) != 50 || first.Total != 300 || first.Next == nil {
		t.Fatalf("first page: %d groups of %d, next %v; want 50 of 300 and a cursor", len(first.Groups), first.Total, first.Next)
	}
	if first.Groups[0].State == string(lookup.Consumed) {
		t.Fatalf("first page starts with a group that consumed the message: %+v", first.Groups[0])
	}
	var seen []string
	var states []string
	base := "/api/v1/messages/" + id + "?limit=70"
	path := base
	for range 20 {
		p := get(path)
		for _, g := range p.Groups {
			seen = append(seen, g.Group)
			states = append(states, g.State)
		}
		if p.Next == nil {
			break
		}
		path = base + "&cursor=" + url.QueryEscape(*p.Next)
	}
	slices.Sort(seen)
	if len(seen) != 300 || len(slices.Compact(seen)) != 300 {
		t.Fatalf("the pages hold %d groups; want each of the 300 once", len(seen))
	}
	// Every group that has not consumed the message comes before any that has.
	if c := slices.Index(states, string(lookup.Consumed)); c < 0 || slices.ContainsFunc(states[c:], func(s string) bool { return s == string(lookup.NotConsumed) }) {
		t.Fatalf("a group that has not consumed the message comes after one that has")
	}
	for _, q := range []string{"limit=0", "cursor=%21%21"} {
		if rec := msgGet(t, r, "/api/v1/messages/"+id+"?"+q); rec.Code != http.StatusBadRequest {
			t.Errorf("?%s: %d; want 400", q, rec.Code)
		}
	}
}

// The pages after a message's first are cut from the states the first page read: no
// broker is asked again, and a group that appears meanwhile neither shifts the rows nor
// changes the total until the page is opened afresh.
func TestMessageGroupsLaterPagesAskNoBrokerAgain(t *testing.T) {
	r, id, f := manyGroupsCluster(t, 120)
	type page struct {
		Groups []struct {
			Group string `json:"group"`
		} `json:"groups"`
		Total int     `json:"total"`
		Next  *string `json:"next"`
	}
	get := func(path string) page {
		t.Helper()
		rec := msgGet(t, r, path)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		var p page
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := "/api/v1/messages/" + id + "?limit=40"
	p := get(base)
	seen := map[string]bool{}
	for _, g := range p.Groups {
		seen[g.Group] = true
	}
	f.AddGroup(&clustertest.Group{Name: "app-0000-new", Topics: []string{"T"}})
	asked := f.Calls()
	for p.Next != nil {
		p = get(base + "&cursor=" + url.QueryEscape(*p.Next))
		for _, g := range p.Groups {
			if seen[g.Group] {
				t.Fatalf("%s shown twice", g.Group)
			}
			seen[g.Group] = true
		}
		if p.Total != 120 {
			t.Fatalf("a later page counts %d groups; want the first page's 120", p.Total)
		}
	}
	if len(seen) != 120 {
		t.Fatalf("the pages hold %d groups; want 120", len(seen))
	}
	now := f.Calls()
	for _, op := range []string{"TopicConsumerGroups", "ConsumerOffsets", "ConsumerConnections"} {
		if now[op] != asked[op] {
			t.Errorf("later pages called %s %d times; want none", op, now[op]-asked[op])
		}
	}
	// Opened afresh, the page reads the groups again.
	if p := get(base); p.Total != 121 {
		t.Errorf("first page opened again counts %d groups; want 121", p.Total)
	}
}

// A bad page of a message's groups is refused before the message or its groups are
// read: 400 in the API, 422 on the page and its More row, and no broker is asked.
func TestMessageGroupsBadPageIsRefusedBeforeAnyBroker(t *testing.T) {
	r, id, f := manyGroupsCluster(t, 60)
	rec := msgGet(t, r, "/api/v1/messages/"+id)
	var first struct {
		Next string `json:"next"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &first); err != nil || first.Next == "" {
		t.Fatalf("first page: %v %s", err, rec.Body)
	}
	// The first page's cursor with a state rank no state has.
	raw, _ := base64.RawURLEncoding.DecodeString(first.Next)
	forged := base64.RawURLEncoding.EncodeToString(regexp.MustCompile(`"n":\d+`).ReplaceAll(raw, []byte(`"n":42`)))
	before := f.Calls()
	for _, q := range []string{"limit=0", "limit=x", "cursor=%21%21", "cursor=e30", "cursor=" + forged} {
		for path, want := range map[string]int{"/api/v1/messages/" + id: http.StatusBadRequest, "/messages/" + id: http.StatusUnprocessableEntity} {
			if rec := msgGet(t, r, path+"?"+q); rec.Code != want {
				t.Errorf("%s?%s: %d; want %d", path, q, rec.Code, want)
			}
		}
		if rec := msgGet(t, r, "/messages/"+id+"?rows=1&"+q, "HX-Request", "true"); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("More row ?%s: %d; want 422", q, rec.Code)
		}
	}
	if after := f.Calls(); !maps.Equal(before, after) {
		t.Errorf("bad pages asked the brokers: %v, before %v", after, before)
	}
}

func TestMessageGroupsMoreRowLoadsTheNextRowsInPlace(t *testing.T) {
	r, id := manyGroupsRouter(t, 130)
	checkMoreInPlace(t, r, "/messages/"+id, "message-groups", regexp.MustCompile(`<tr data-group="([^"]+)"><td class="mono"><a`), 50)
}
