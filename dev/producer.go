package dev

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// ProduceOptions shape Produce; the zero value sends one message without key or tag.
type ProduceOptions struct {
	// N is how many messages (default 1); with a Key and N > 1, message i gets Key-i.
	N   int
	Key string
	Tag string
	// Group is the producer group ("" for one of the process's own).
	Group string
	// Trace has the producer record message traces (the client's trace option), to
	// TraceTopic ("" for RMQ_SYS_TRACE_TOPIC).
	Trace      bool
	TraceTopic string
}

// Sent is one message a Produce call sent.
type Sent struct {
	MsgID       string // the unique key (UNIQ_KEY), what clients call msgId
	OffsetMsgID string
	Key         string
}

// Produce sends messages to topic with a real rocketmq-client-go producer in its own
// process (dev/demo's produce mode), so its trace dispatcher's goroutines stay out of
// race-checked test binaries. It returns once every message was sent (and, with Trace,
// the producer had a moment to send their traces).
func Produce(t testing.TB, nameServer, topic string, o ProduceOptions) []Sent {
	t.Helper()
	bin, err := demoBinary()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"produce", "-topic", topic, "-n", fmt.Sprint(max(o.N, 1))}
	if o.Key != "" {
		args = append(args, "-key", o.Key)
	}
	if o.Tag != "" {
		args = append(args, "-tag", o.Tag)
	}
	if o.Group != "" {
		args = append(args, "-group", o.Group)
	}
	args = append(args, traceArgs(o.Trace, o.TraceTopic)...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "RMQC_NAMESRV="+nameServer)
	if a, ok := AccountFor(nameServer); ok {
		cmd.Env = append(cmd.Env, "RMQC_ACCESS_KEY="+a.AccessKey, "RMQC_SECRET_KEY="+a.SecretKey)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("produce to %s: %v: %s", topic, err, stderr.String())
	}
	var sent []Sent
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(strings.TrimPrefix(line, "sent "))
		if !strings.HasPrefix(line, "sent ") || len(f) < 2 {
			continue
		}
		s := Sent{MsgID: f[0], OffsetMsgID: f[1]}
		if len(f) > 2 {
			s.Key = f[2]
		}
		sent = append(sent, s)
	}
	if len(sent) != max(o.N, 1) {
		t.Fatalf("produce to %s: %d messages sent, want %d: %s", topic, len(sent), max(o.N, 1), out)
	}
	return sent
}
