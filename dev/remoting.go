package dev

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"time"
)

// This file holds the two requests dev/ needs at start-up: GET_ROUTEINFO_BY_TOPIC
// to the NameServer (is every broker registered?) and UPDATE_BROKER_CONFIG to
// a broker (register now). It is deliberately tiny and self-contained; the
// console's real client lives in rmqconsole/rocketmq.

const (
	codeGetRouteInfoByTopic  = 105
	codeTopicNotExist        = 17
	codeUpdateBrokerConfig   = 25
	codeGetBrokerRuntimeInfo = 28
	// 409 is V4_9_8: from V4_9_4 on the NameServer answers routes as standard
	// JSON (quoted brokerId keys), and it is below 5.3.1's GO_AWAY threshold.
	requestVersion = 409
)

// route is the part of TopicRouteData dev/ reads.
type route struct {
	BrokerDatas []struct {
		BrokerName  string            `json:"brokerName"`
		Cluster     string            `json:"cluster"`
		BrokerAddrs map[string]string `json:"brokerAddrs"`
	} `json:"brokerDatas"`
	QueueDatas []struct {
		BrokerName     string `json:"brokerName"`
		ReadQueueNums  int    `json:"readQueueNums"`
		WriteQueueNums int    `json:"writeQueueNums"`
		Perm           int    `json:"perm"`
	} `json:"queueDatas"`
}

// masters maps broker name to master (brokerId 0) address.
func (r *route) masters() map[string]string {
	m := map[string]string{}
	for _, b := range r.BrokerDatas {
		if a, ok := b.BrokerAddrs["0"]; ok {
			m[b.BrokerName] = a
		}
	}
	return m
}

// slaves maps broker name to its first slave's (brokerId 1) address.
func (r *route) slaves() map[string]string {
	m := map[string]string{}
	for _, b := range r.BrokerDatas {
		if a, ok := b.BrokerAddrs["1"]; ok {
			m[b.BrokerName] = a
		}
	}
	return m
}

// errNoRoute means the NameServer answered TOPIC_NOT_EXIST.
type errNoRoute struct{ topic string }

func (e errNoRoute) Error() string { return "no route for topic " + e.topic }

// queryRoute asks the NameServer at addr for topic's route.
func queryRoute(ctx context.Context, addr, topic string) (*route, error) {
	code, remark, body, err := call(ctx, addr, codeGetRouteInfoByTopic,
		map[string]string{"topic": topic, "acceptStandardJsonOnly": "true"}, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("query route of %s at %s: %w", topic, addr, err)
	case code == codeTopicNotExist:
		return nil, errNoRoute{topic}
	case code != 0:
		return nil, fmt.Errorf("query route of %s at %s: code %d: %s", topic, addr, code, remark)
	}
	var r route
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("query route of %s at %s: body: %w", topic, addr, err)
	}
	return &r, nil
}

// nudgeRegistration makes the broker at addr register with its NameServer
// now. A 5.x broker's registration at start-up goes only to NameServers its
// background scan has already connected to; that scan starts at the same
// moment, so the first registration usually reaches nobody and the next comes
// 10 s later. Setting brokerPermission (to 6, read+write, its default) makes
// the broker re-register at once (AdminBrokerProcessor.updateBrokerConfig).
// The broker persists the setting into its -c file, which Start rewrites anyway;
// sign signs the request when the cluster has ACL on.
func nudgeRegistration(ctx context.Context, addr string, sign func(map[string]string, []byte) map[string]string) error {
	body := []byte("brokerPermission=6\n")
	code, remark, _, err := call(ctx, addr, codeUpdateBrokerConfig, sign(nil, body), body)
	if err != nil {
		return fmt.Errorf("nudge registration of %s: %w", addr, err)
	}
	if code != 0 {
		return fmt.Errorf("nudge registration of %s: code %d: %s", addr, code, remark)
	}
	return nil
}

// call sends one JSON-header request and returns the response's code, remark
// and body. One connection per call: dev/ makes a handful of calls at start-up.
func call(ctx context.Context, addr string, code int, ext map[string]string, body []byte) (int, string, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, "", nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}

	req := map[string]any{"code": code, "language": "GO", "version": requestVersion, "opaque": 1, "flag": 0}
	if ext != nil {
		req["extFields"] = ext
	}
	header, _ := json.Marshal(req)
	// Frame: int32 length (not counting itself), int32 type<<24|headerLen, header, body.
	frame := make([]byte, 8, 8+len(header)+len(body))
	binary.BigEndian.PutUint32(frame[0:4], uint32(4+len(header)+len(body)))
	binary.BigEndian.PutUint32(frame[4:8], uint32(len(header))) // type 0 = JSON
	frame = append(append(frame, header...), body...)
	if _, err := conn.Write(frame); err != nil {
		return 0, "", nil, fmt.Errorf("write: %w", err)
	}

	var lens [8]byte
	if _, err := io.ReadFull(conn, lens[:]); err != nil {
		return 0, "", nil, fmt.Errorf("read: %w", err)
	}
	total := binary.BigEndian.Uint32(lens[0:4])
	typed := binary.BigEndian.Uint32(lens[4:8])
	headerLen := typed & 0xFFFFFF
	// Servers always answer with JSON headers (rocketmq-protocol.md §1.5).
	if typed>>24 != 0 || total > 16<<20 || total < 4 || headerLen > total-4 {
		return 0, "", nil, fmt.Errorf("unexpected frame (length %d, header %#x)", total, typed)
	}
	rest := make([]byte, total-4)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return 0, "", nil, fmt.Errorf("read: %w", err)
	}
	var resp struct {
		Code   int    `json:"code"`
		Remark string `json:"remark"`
	}
	if err := json.Unmarshal(rest[:headerLen], &resp); err != nil {
		return 0, "", nil, fmt.Errorf("response header: %w", err)
	}
	return resp.Code, resp.Remark, rest[headerLen:], nil
}
