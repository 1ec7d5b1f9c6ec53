package dev

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Seed is what a master holds before its first start: consumer groups' subscription
// settings and topics, written into its config files (subscriptionGroup.json and
// topics.json under the store's config directory), where the broker loads them at
// start. A broker rewrites its whole group table for every group created over the
// wire, so creating 10 000 groups one request at a time takes it minutes; this takes
// a file write.
type Seed struct {
	// Groups get the broker's default settings (consume enabled, 16 retries).
	Groups []string
	// Topics get TopicQueues read and write queues each (1 when 0), readable and
	// writable.
	Topics      []string
	TopicQueues int
}

// SeedNames are n names "<prefix>00001"…, zero-padded to the width of n, so that
// they sort as they number.
func SeedNames(prefix string, n int) []string {
	width := len(fmt.Sprint(n))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%0*d", prefix, width, i+1)
	}
	return out
}

// write puts the seed's files into a broker's config directory, unless the broker
// already has them: a store that ran keeps what it holds.
func (s *Seed) write(configDir string) error {
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return err
	}
	groups := map[string]any{}
	for _, g := range s.Groups {
		groups[g] = map[string]any{"groupName": g}
	}
	queues := max(s.TopicQueues, 1)
	topics := map[string]any{}
	for _, t := range s.Topics {
		topics[t] = map[string]any{"topicName": t, "readQueueNums": queues, "writeQueueNums": queues, "perm": 6}
	}
	for name, body := range map[string]any{
		"subscriptionGroup.json": map[string]any{"subscriptionGroupTable": groups},
		"topics.json":            map[string]any{"topicConfigTable": topics},
	} {
		path := filepath.Join(configDir, name)
		if _, err := os.Stat(path); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return fmt.Errorf("seed %s: %w", path, err)
		}
	}
	return nil
}
