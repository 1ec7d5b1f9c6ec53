package dev

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// Failure injection on a cluster started by Start, for tests of partial
// failure on a real cluster. Use them on a private cluster (Options.Ports:
// FreePorts()), never on the shared one other packages are using. They are
// not safe to call concurrently with each other or with Stop.

// Freeze stops process name ("namesrv", "broker-a", ...) with SIGSTOP: its
// sockets stay open and accept connections, but it answers nothing, like a
// broker stuck in a long GC pause or on a dead disk.
func (c *Cluster) Freeze(name string) error { return c.signal(name, syscall.SIGSTOP, "freeze") }

// Thaw resumes a frozen process with SIGCONT.
func (c *Cluster) Thaw(name string) error { return c.signal(name, syscall.SIGCONT, "thaw") }

// KillBroker ends broker name with SIGKILL, as a crashed machine would: the
// NameServer drops it from routes when its connection closes.
func (c *Cluster) KillBroker(name string) error {
	p, err := c.proc(name)
	if err != nil {
		return fmt.Errorf("kill %s: %w", name, err)
	}
	if err := p.stop(0); err != nil {
		return fmt.Errorf("kill %s: %w", name, err)
	}
	return nil
}

// RestartBroker starts broker name again on its store and ports (killing it
// first if it still runs) and returns once the NameServer routes to it.
func (c *Cluster) RestartBroker(ctx context.Context, name string) error {
	return c.RestartBrokers(ctx, name)
}

// RestartBrokers is RestartBroker for several brokers at once ("broker-b" and
// its slave "broker-b-s"): the cluster is whole again only once all run.
func (c *Cluster) RestartBrokers(ctx context.Context, names ...string) error {
	if c.boot.lib == "" {
		return fmt.Errorf("restart %v: only a cluster started by Start can restart its brokers", names)
	}
	ctx, cancel := context.WithTimeout(ctx, startupDeadline*time.Second)
	defer cancel()
	for _, name := range names {
		var spec *brokerSpec
		for i := range c.boot.specs {
			if c.boot.specs[i].proc() == name {
				spec = &c.boot.specs[i]
			}
		}
		if spec == nil {
			return fmt.Errorf("restart %s: no such broker", name)
		}
		if err := c.KillBroker(name); err != nil {
			return fmt.Errorf("restart %s: %w", name, err)
		}
		p, err := c.startBroker(*spec)
		if err != nil {
			return fmt.Errorf("restart %s: %w", name, err)
		}
		for i, old := range c.procs {
			if old.name == name {
				c.procs[i] = p
			}
		}
		if err := waitBrokerBoot(ctx, p, *spec); err != nil {
			return fmt.Errorf("restart %s: %w", name, err)
		}
	}
	if err := c.waitRegistered(ctx); err != nil {
		return fmt.Errorf("restart %v: %w", names, err)
	}
	return nil
}

func (c *Cluster) signal(name string, sig syscall.Signal, what string) error {
	p, err := c.proc(name)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, name, err)
	}
	if gone, status := p.exited(); gone {
		return fmt.Errorf("%s %s: not running (%s)", what, name, status)
	}
	signalGroup(p.pid, sig)
	return nil
}

func (c *Cluster) proc(name string) (*proc, error) {
	for _, p := range c.procs {
		if p.name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no process %q in this cluster (attached clusters have none)", name)
}
