package dev

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// RouteQueues is one broker of a topic's route as `mqadmin topicRoute` prints it.
type RouteQueues struct {
	Read, Write, Perm int
}

// routeQueueData matches one queueData object of topicRoute's output, whatever the order
// of its keys (fastjson, one line or pretty-printed).
var routeQueueData = regexp.MustCompile(`\{[^{}]*"brokerName"\s*:\s*"[^"]+"[^{}]*"readQueueNums"[^{}]*\}`)

func jsonIntField(obj, name string) int {
	m := regexp.MustCompile(`"` + name + `"\s*:\s*(-?\d+)`).FindStringSubmatch(obj)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// ErrNoRoute is what TopicRouteByMQAdmin answers when mqadmin says the NameServers have no
// route for the topic.
var ErrNoRoute = errors.New("mqadmin topicRoute: no route for the topic")

// TopicRouteByMQAdmin runs `mqadmin topicRoute -t topic` and returns each broker's queue
// counts and permission, by broker name: RocketMQ's own tool, independent of the console.
func (c *Cluster) TopicRouteByMQAdmin(ctx context.Context, topic string) (map[string]RouteQueues, error) {
	out, err := c.MQAdmin(ctx, "topicRoute", "-t", topic)
	if err != nil {
		if strings.Contains(out, "No topic route info") || strings.Contains(out, "TOPIC_NOT_EXIST") || strings.Contains(out, "topic route info") {
			return nil, ErrNoRoute
		}
		return nil, err
	}
	got := map[string]RouteQueues{}
	for _, obj := range routeQueueData.FindAllString(out, -1) {
		name := regexp.MustCompile(`"brokerName"\s*:\s*"([^"]+)"`).FindStringSubmatch(obj)[1]
		got[name] = RouteQueues{Read: jsonIntField(obj, "readQueueNums"), Write: jsonIntField(obj, "writeQueueNums"), Perm: jsonIntField(obj, "perm")}
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("mqadmin topicRoute -t %s: no queue data in:\n%s", topic, out)
	}
	return got, nil
}

// TopicStatusByMQAdmin runs `mqadmin topicStatus -t topic` and counts the queues each
// broker reports offsets for, by broker name.
func (c *Cluster) TopicStatusByMQAdmin(ctx context.Context, topic string) (map[string]int, error) {
	out, err := c.MQAdmin(ctx, "topicStatus", "-t", topic)
	if err != nil {
		return nil, err
	}
	got := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		got[f[0]]++
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("mqadmin topicStatus -t %s: no queue in:\n%s", topic, out)
	}
	return got, nil
}
