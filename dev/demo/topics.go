package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// createTopics makes each demo topic with 8 queues on every master. The Go producer does
// not auto-create a topic the NameServer does not know, so the demo creates them first.
func createTopics(ctx context.Context, ns []string, names []string) error {
	// The cluster may still be starting: wait for its brokers a while.
	var masters []string
	var err error
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if masters, err = masterAddrs(ctx, ns); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver(ns)))
	if err != nil {
		return fmt.Errorf("new admin: %w", err)
	}
	defer adm.Close()
	for _, name := range names {
		for _, addr := range masters {
			if err := adm.CreateTopic(ctx, admin.WithTopicCreate(name), admin.WithBrokerAddrCreate(addr),
				admin.WithReadQueueNums(8), admin.WithWriteQueueNums(8)); err != nil {
				return fmt.Errorf("create topic %s on %s: %w", name, addr, err)
			}
		}
	}
	// The brokers register new topics with the NameServer on their next heartbeat.
	deadline := time.Now().Add(60 * time.Second)
	for _, name := range names {
		for {
			if _, err := adm.FetchPublishMessageQueues(ctx, name); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("topic %s created but the NameServer has no route for it after 60 s", name)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}

// masterAddr finds each broker's master address in GET_BROKER_CLUSTER_INFO, whose
// body is fastjson with bare numeric keys ({0:"host:port"}).
var masterAddr = regexp.MustCompile(`"brokerAddrs":\{[^}]*?\b0:"([^"]+)"`)

// masterAddrs asks the NameServers (the first that answers) for every master.
func masterAddrs(ctx context.Context, ns []string) ([]string, error) {
	var lastErr error
	for _, addr := range ns {
		body, err := clusterInfo(ctx, addr)
		if err != nil {
			lastErr = err
			continue
		}
		var out []string
		for _, m := range masterAddr.FindAllSubmatch(body, -1) {
			out = append(out, string(m[1]))
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("NameServer %s knows no broker yet", addr)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no NameServer answered: %w", lastErr)
}

// clusterInfo sends GET_BROKER_CLUSTER_INFO (106) with a JSON remoting header and
// returns the body.
func clusterInfo(ctx context.Context, addr string) ([]byte, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	header, _ := json.Marshal(map[string]any{"code": 106, "language": "GO", "version": 317, "opaque": 1, "flag": 0, "extFields": map[string]string{}})
	frame := make([]byte, 8, 8+len(header))
	binary.BigEndian.PutUint32(frame[0:4], uint32(4+len(header)))
	binary.BigEndian.PutUint32(frame[4:8], uint32(len(header))) // serialize type 0: JSON
	if _, err := conn.Write(append(frame, header...)); err != nil {
		return nil, err
	}
	var lens [8]byte
	if _, err := io.ReadFull(conn, lens[:]); err != nil {
		return nil, err
	}
	total := binary.BigEndian.Uint32(lens[0:4])
	hlen := binary.BigEndian.Uint32(lens[4:8]) & 0xFFFFFF
	if total > 16<<20 || hlen+4 > total {
		return nil, fmt.Errorf("NameServer %s sent a malformed frame", addr)
	}
	rest := make([]byte, total-4)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return nil, err
	}
	var h struct {
		Code   int    `json:"code"`
		Remark string `json:"remark"`
	}
	if err := json.Unmarshal(rest[:hlen], &h); err != nil {
		return nil, fmt.Errorf("NameServer %s: header: %w", addr, err)
	}
	if h.Code != 0 {
		return nil, fmt.Errorf("NameServer %s answered code %d: %s", addr, h.Code, h.Remark)
	}
	return rest[hlen:], nil
}
