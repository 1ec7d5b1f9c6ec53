package dev

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// GroupConfigsByMQAdmin runs `mqadmin exportMetadata -b addr -g` and returns every
// subscription group the broker at addr holds, field by field, by group name:
// RocketMQ's own tool, independent of the console. It is a pure read, unlike
// `mqadmin getConsumerConfig`, which on 5.x brokers creates the group it asks about.
func (c *Cluster) GroupConfigsByMQAdmin(ctx context.Context, addr string) (map[string]map[string]any, error) {
	dir, err := os.MkdirTemp("", "rmqdev-export-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if out, err := c.MQAdmin(ctx, "exportMetadata", "-b", addr, "-g", "-f", dir); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "subscriptionGroup.json"))
	if err != nil {
		return nil, fmt.Errorf("mqadmin exportMetadata -b %s: %w", addr, err)
	}
	var t struct {
		Groups map[string]map[string]any `json:"subscriptionGroupTable"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("mqadmin exportMetadata -b %s: %w", addr, err)
	}
	if t.Groups == nil {
		t.Groups = map[string]map[string]any{}
	}
	return t.Groups, nil
}

// configLine is one "key = value" line of `mqadmin getBrokerConfig`.
var configLine = regexp.MustCompile(`(?m)^(\w[\w.]*)\s+=\s?(.*)$`)

// BrokerConfigByMQAdmin runs `mqadmin getBrokerConfig -b addr` and returns the broker
// process's configuration.
func (c *Cluster) BrokerConfigByMQAdmin(ctx context.Context, addr string) (map[string]string, error) {
	out, err := c.MQAdmin(ctx, "getBrokerConfig", "-b", addr)
	if err != nil {
		return nil, err
	}
	cfg := map[string]string{}
	for _, m := range configLine.FindAllStringSubmatch(out, -1) {
		cfg[m[1]] = strings.TrimSpace(m[2])
	}
	if len(cfg) == 0 {
		return nil, fmt.Errorf("mqadmin getBrokerConfig -b %s printed no key:\n%s", addr, out)
	}
	return cfg, nil
}

// UpdateBrokerConfigByMQAdmin runs `mqadmin updateBrokerConfig -b addr -k key -v value`:
// a change made behind the console's back.
func (c *Cluster) UpdateBrokerConfigByMQAdmin(ctx context.Context, addr, key, value string) error {
	_, err := c.MQAdmin(ctx, "updateBrokerConfig", "-b", addr, "-k", key, "-v", value)
	return err
}

// SendAs sends one message to topic with `mqadmin sendMessage`, signed as account a: a
// real Java producer with a's rights. It returns mqadmin's output and an error when the
// message was not stored (SEND_OK).
func (c *Cluster) SendAs(ctx context.Context, a Account, topic, body string) (string, error) {
	out, err := c.MQAdminAs(ctx, a, "sendMessage", "-t", topic, "-p", body)
	if err != nil {
		return out, err
	}
	if !strings.Contains(out, "SEND_OK") {
		return out, fmt.Errorf("mqadmin sendMessage as %s: no SEND_OK:\n%s", a.AccessKey, out)
	}
	return out, nil
}
