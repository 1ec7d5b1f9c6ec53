package server

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The audit stream's settings: off by default, the topic on the default cluster unless
// named, and what cannot work refused at start-up with the setting named.
func TestAuditStreamSettings(t *testing.T) {
	parse := func(args ...string) (*Config, error) {
		return ParseConfig(append([]string{"--namesrv", "127.0.0.1:9876"}, args...), noEnv, io.Discard)
	}
	c, err := parse()
	if err != nil || c.AuditStream != nil {
		t.Fatalf("no stream by default: %+v, %v", c.AuditStream, err)
	}
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	c, err = parse("--audit-stream-topic", "RMQC_AUDIT", "--audit-stream-webhook", "https://siem.example.org/in",
		"--audit-stream-webhook-token-file", token, "--audit-stream-retry", "250ms")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.AuditStream; s.Topic != "RMQC_AUDIT" || s.Cluster != c.DefaultCluster().Name || s.Token != "s3cret" ||
		s.Retry != 250*time.Millisecond || s.Poll != time.Second {
		t.Fatalf("stream %+v", s)
	}
	for _, bad := range []struct {
		args    []string
		setting string
	}{
		{[]string{"--audit-stream-topic", "A", "--audit-stream-cluster", "nowhere"}, "audit-stream-cluster"},
		{[]string{"--audit-stream-cluster", "default"}, "audit-stream-cluster"},
		{[]string{"--audit-stream-webhook", "siem.example.org"}, "audit-stream-webhook"},
		{[]string{"--audit-stream-webhook-token-file", token}, "audit-stream-webhook-token-file"},
		{[]string{"--audit-stream-webhook", "http://x", "--audit-stream-retry", "0s"}, "audit-stream-retry"},
	} {
		_, err := parse(bad.args...)
		if err == nil || !strings.Contains(err.Error(), "--"+bad.setting+" ") {
			t.Errorf("%v: %v, want --%s refused", bad.args, err, bad.setting)
		}
	}
	if _, err := ParseConfig([]string{"--audit-stream-topic", "A"}, noEnv, io.Discard); err == nil || !strings.Contains(err.Error(), "--audit-stream-topic") {
		t.Errorf("a topic without a NameServer: %v", err)
	}
}
