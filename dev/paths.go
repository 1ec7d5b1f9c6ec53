package dev

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Tested RocketMQ versions. DefaultVersion is used unless RMQ_VERSION says
// otherwise. Version4 is the 4.x compatibility version: 4.9.7, because
// rocketmq-namesrv and rocketmq-broker 4.9.8 were never published to Maven
// Central (only client, common, tools and a few other 4.9.8 modules were).
const (
	DefaultVersion = "5.3.3"
	Version4       = "4.9.7"
)

// Fixed loopback addresses of the local cluster. They are fixed (not ephemeral)
// because a broker cannot take listenPort=0 (its HA port would become 1), and
// because `make test` shares one cluster across packages by address.
const (
	Host            = "127.0.0.1"
	NameServerPort  = 19876
	BrokerAPort     = 20911
	BrokerBPort     = 21911
	ClusterName     = "DefaultCluster"
	nameServerAddr  = "127.0.0.1:19876"
	startupDeadline = 90 // seconds, for Start as a whole
)

// VersionFromEnv returns RMQ_VERSION, or DefaultVersion when it is unset.
func VersionFromEnv() string {
	if v := os.Getenv("RMQ_VERSION"); v != "" {
		return v
	}
	return DefaultVersion
}

// is4x reports whether version belongs to the 4.x line, which configures
// logging from $ROCKETMQ_HOME/conf and has no bindAddress.
func is4x(version string) bool { return len(version) > 1 && version[0] == '4' }

// RepoRoot walks up from the working directory to the folder holding go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repo root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repo root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// CacheRoot is where versions and run dirs of rmqdev live: RMQ_CACHE, else
// <repo>/.cache/rocketmq (git-ignored through /.cache/).
func CacheRoot() (string, error) {
	if d := os.Getenv("RMQ_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "rocketmq"), nil
}
