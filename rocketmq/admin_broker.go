package rocketmq

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// BrokerRuntimeInfo is a broker's runtime table (GET_BROKER_RUNTIME_INFO):
// version, throughput, disk use, thread-pool queues. Every value is a string
// as the broker formats it; the methods parse the common ones.
type BrokerRuntimeInfo struct {
	Table map[string]string `json:"table"`
	// answerOrdinal is the version field of the answer that carried the table: the
	// ordinal when the table has none (5.5 dropped brokerVersion from it).
	answerOrdinal int
}

// BrokerRuntimeInfo returns the runtime table of the broker at addr, and
// records its version for BrokerVersion.
func (c *Client) BrokerRuntimeInfo(ctx context.Context, addr string) (*BrokerRuntimeInfo, error) {
	resp, err := c.call(ctx, addr, CodeGetBrokerRuntimeInfo, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("runtime info of broker %s: %w", addr, err)
	}
	var info BrokerRuntimeInfo
	if err := decodeBody(resp.Body, &info); err != nil {
		return nil, fmt.Errorf("runtime info of broker %s: %w", addr, err)
	}
	info.answerOrdinal = resp.Version
	if v := info.Version(); v.Ordinal > 0 || v.Name != "" {
		c.setVersion(addr, v)
	}
	return &info, nil
}

// Version returns the broker's version from brokerVersionDesc ("V5_3_3")
// and brokerVersion (the ordinal), or, from 5.5 on, which no longer sends
// brokerVersion, the ordinal of the answer itself.
func (r *BrokerRuntimeInfo) Version() BrokerVersion {
	v := BrokerVersion{Name: r.Table["brokerVersionDesc"]}
	v.Ordinal, _ = strconv.Atoi(r.Table["brokerVersion"])
	if v.Ordinal == 0 {
		v.Ordinal = r.answerOrdinal
	}
	return v
}

// Float parses a numeric entry; for the tps entries, which hold three
// space-separated rates (over about 10 s, 1 min and 10 min), it returns the
// first.
func (r *BrokerRuntimeInfo) Float(key string) (float64, bool) {
	s, ok := r.Table[key]
	if !ok {
		return 0, false
	}
	if f := strings.Fields(s); len(f) > 0 {
		s = f[0]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// PutTps returns the broker's message put rate (messages/s, ~10 s window).
func (r *BrokerRuntimeInfo) PutTps() float64 { v, _ := r.Float("putTps"); return v }

// GetTransferredTps returns the rate of messages handed to consumers
// (messages/s, ~10 s window). 4.9.x spells the key getTransferedTps.
func (r *BrokerRuntimeInfo) GetTransferredTps() float64 {
	if v, ok := r.Float("getTransferredTps"); ok {
		return v
	}
	v, _ := r.Float("getTransferedTps")
	return v
}

// CommitLogDiskRatio returns how full the commit-log disk is, 0..1.
func (r *BrokerRuntimeInfo) CommitLogDiskRatio() (float64, bool) {
	return r.Float("commitLogDiskRatio")
}

// Connection is one client connected to a broker.
type Connection struct {
	ClientID   string `json:"clientId"`
	ClientAddr string `json:"clientAddr"`
	Language   string `json:"language"` // JAVA, GO, CPP, ...
	// Version is the client's MQVersion ordinal (a Go client reports 317).
	Version int `json:"version"`
}

// VersionName names the MQVersion ordinal the client's heartbeat carries ("4.5.2").
func (c Connection) VersionName() string { return clientVersionName(c.Language, c.Version) }

// clientVersionName names a client's MQVersion ordinal. Clients other than Java's send a
// protocol version, not their own release, which the name then says ("4.5.2 protocol":
// rocketmq-client-go sends 317).
func clientVersionName(language string, ordinal int) string {
	v := BrokerVersion{Ordinal: ordinal}
	if language != "JAVA" && v.Named() {
		return v.String() + " protocol"
	}
	return v.String()
}

// ProducerConnections lists the producers of a producer group that send
// heartbeats to the broker at addr. A group with none answers an error
// matching ErrProducerNotOnline.
func (c *Client) ProducerConnections(ctx context.Context, addr, producerGroup string) ([]Connection, error) {
	resp, err := c.call(ctx, addr, CodeGetProducerConnectionList, map[string]string{"producerGroup": producerGroup}, nil)
	if err != nil {
		markKind(err, CodeSystemError, ErrProducerNotOnline)
		return nil, fmt.Errorf("producer connections of %q on %s: %w", producerGroup, addr, err)
	}
	var pc struct {
		ConnectionSet []Connection `json:"connectionSet"`
	}
	if err := decodeBody(resp.Body, &pc); err != nil {
		return nil, fmt.Errorf("producer connections of %q on %s: %w", producerGroup, addr, err)
	}
	sortConnections(pc.ConnectionSet)
	return pc.ConnectionSet, nil
}

// BrokerConfig returns the broker's configuration (GET_BROKER_CONFIG) as
// key/value pairs, e.g. brokerName, useServerSideResetOffset (5.1+), which
// decides whether ResetOffset works with the group offline.
func (c *Client) BrokerConfig(ctx context.Context, addr string) (map[string]string, error) {
	resp, err := c.call(ctx, addr, CodeGetBrokerConfig, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("config of broker %s: %w", addr, err)
	}
	return parsePropertiesText(resp.Body), nil
}

// parsePropertiesText reads the "key=value" lines of java.util.Properties text
// as MixAll.properties2String writes it (no escapes, no continuations).
func parsePropertiesText(b []byte) map[string]string {
	out := make(map[string]string)
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

// ProducerInfo is one producer connected to a broker, as GET_ALL_PRODUCER_INFO lists it.
type ProducerInfo struct {
	ClientID string `json:"clientId"`
	// RemoteIP is the producer's address as the broker sees it (ip:port).
	RemoteIP string `json:"remoteIP"`
	Language string `json:"language"`
	// Version is the client's MQVersion ordinal.
	Version int `json:"version"`
	// LastUpdateTimestamp is when its last heartbeat came (epoch ms).
	LastUpdateTimestamp int64 `json:"lastUpdateTimestamp"`
}

// VersionName names the producer's MQVersion ordinal as Connection.VersionName does.
func (p ProducerInfo) VersionName() string { return clientVersionName(p.Language, p.Version) }

// ProducerInfos lists every producer connected to the broker at addr, by producer
// group (GET_ALL_PRODUCER_INFO). A producer's heartbeat names its group, not the topics
// it sends to, so no broker can say which groups produce to a topic. 4.9.7 and 5.x
// answer it; a broker without the request answers an error matching ErrNotSupported.
func (c *Client) ProducerInfos(ctx context.Context, addr string) (map[string][]ProducerInfo, error) {
	resp, err := c.call(ctx, addr, CodeGetAllProducerInfo, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("producers on %s: %w", addr, err)
	}
	var t struct {
		Data map[string][]ProducerInfo `json:"data"`
	}
	if err := decodeBody(resp.Body, &t); err != nil {
		return nil, fmt.Errorf("producers on %s: %w", addr, err)
	}
	for _, ps := range t.Data {
		for i := range ps {
			// The broker writes the channel's address as Netty prints it, "/ip:port".
			ps[i].RemoteIP = strings.TrimPrefix(ps[i].RemoteIP, "/")
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].ClientID < ps[j].ClientID })
	}
	return t.Data, nil
}
