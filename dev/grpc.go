package dev

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// gRPC clients for tests: Apache's Go gRPC SDK (rocketmq-clients) in dev/demo's
// grpc-* modes, each in its own process, talking to the cluster's Proxy. They are the
// real thing: their consumers register with the Proxy, not with the brokers, and
// consume with POP.

// GRPCConsumerOptions shape a gRPC consumer process; the zero value is a PushConsumer.
type GRPCConsumerOptions struct {
	// Simple runs a SimpleConsumer (the application receives and acknowledges itself)
	// instead of a PushConsumer.
	Simple bool
	// Receive stops a SimpleConsumer after this many messages (0: never); it stays
	// connected without receiving more, and WaitReceived returns once it got them.
	Receive int
	// LeaveUnacked leaves the last LeaveUnacked of the Receive messages
	// unacknowledged: the broker revives them into the group's POP retry topic once
	// Invisible has passed. The others are acknowledged.
	LeaveUnacked int
	// Invisible is how long a received message stays invisible before the broker
	// revives it (the Proxy's minimum is 10 s); 0 means the demo's 20 s.
	Invisible time.Duration
}

func (o GRPCConsumerOptions) args() []string {
	if !o.Simple {
		return []string{"grpc-push", "-print"}
	}
	a := []string{"grpc-simple"}
	if o.Receive > 0 {
		a = append(a, "-receive", fmt.Sprint(o.Receive))
	}
	if o.LeaveUnacked > 0 {
		a = append(a, "-ack", fmt.Sprint(max(o.Receive-o.LeaveUnacked, 0)))
	}
	if o.Invisible > 0 {
		a = append(a, "-invisible", o.Invisible.String())
	}
	return a
}

// StartGRPCConsumer starts a gRPC consumer of group on topic through c's Proxy
// (RequireProxy) and waits until it runs. Received lists "<messageId>" for a
// PushConsumer, "<messageId> acked|left" for a SimpleConsumer.
func StartGRPCConsumer(t testing.TB, c *Cluster, group, topic string, o GRPCConsumerOptions) *ConsumerProcess {
	t.Helper()
	if c.ProxyGRPC == "" {
		t.Fatal("StartGRPCConsumer: the cluster runs no Proxy (use RequireProxy)")
	}
	args := append(o.args(), "-endpoint", c.ProxyGRPC, "-group", group, "-topic", topic)
	return startDemoProcess(t, "gRPC consumer of "+group, nil, args...)
}

// WaitReceived waits until a SimpleConsumer started with Receive got them all.
func (c *ConsumerProcess) WaitReceived(timeout time.Duration) error {
	select {
	case <-c.done:
		return nil
	case <-c.exited:
		return fmt.Errorf("the consumer exited before receiving all it was told to (received %d)", len(c.Received()))
	case <-time.After(timeout):
		return fmt.Errorf("the consumer received %d messages in %s, not all it was told to", len(c.Received()), timeout)
	}
}

// GRPCSent is one message a gRPC producer sent: its message id (the client-made 5.x
// id the Proxy stores as UNIQ_KEY) and key.
type GRPCSent struct{ MessageID, Key string }

// GRPCSend sends n messages to topic with a gRPC producer through c's Proxy; with a
// key, message i gets key-i when n > 1.
func GRPCSend(ctx context.Context, c *Cluster, topic string, n int, key string) ([]GRPCSent, error) {
	if c.ProxyGRPC == "" {
		return nil, fmt.Errorf("gRPC send to %s: the cluster runs no Proxy (use RequireProxy)", topic)
	}
	bin, err := demoBinary()
	if err != nil {
		return nil, err
	}
	args := []string{"grpc-produce", "-endpoint", c.ProxyGRPC, "-topic", topic, "-n", fmt.Sprint(n)}
	if key != "" {
		args = append(args, "-key", key)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = os.Environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("gRPC send to %s: %w: %s", topic, err, stderr.String())
	}
	var sent []GRPCSent
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "sent" {
			s := GRPCSent{MessageID: f[1], Key: f[2]}
			if s.Key == "-" {
				s.Key = ""
			}
			sent = append(sent, s)
		}
	}
	if len(sent) != n {
		return nil, fmt.Errorf("gRPC send to %s: %d of %d messages sent:\n%s%s", topic, len(sent), n, out, stderr.String())
	}
	return sent, nil
}
