//go:build rmqc_testhooks

package server

import (
	"context"
	"log/slog"
	"os"
	"time"

	"rmqconsole/clock"
	"rmqconsole/lookup"
	"rmqconsole/resets"
	"rmqconsole/store"
)

// Test hooks exist only in binaries built with -tags rmqc_testhooks (the browser tests
// build theirs so); the console as shipped cannot be made to hang by its environment.

// pauseAfterAuditEnv: with RMQC_TEST_PAUSE_AFTER_AUDIT=1 every reset stops for good right
// after its pending audit entry is written, before any broker is asked, so a test can
// kill the process at exactly that point and check that the next start marks the entry
// interrupted.
const pauseAfterAuditEnv = "RMQC_TEST_PAUSE_AFTER_AUDIT"

func addTestHooks(cfg *resets.Config, log *slog.Logger) {
	if os.Getenv(pauseAfterAuditEnv) != "1" {
		return
	}
	log.Warn(pauseAfterAuditEnv + " is set: every reset stops after writing its audit entry, until the process is killed (test use only)")
	cfg.AfterPending = func(_ context.Context, e *store.AuditEntry) {
		log.Warn("reset paused after its pending audit entry", "audit_id", e.ID, "env", pauseAfterAuditEnv)
		select {}
	}
}

// scanPullWaitEnv: with RMQC_TEST_SCAN_PULL_WAIT=1s every pull of a deep scan waits that
// long first (or until the scan is stopped), so a scan of a few hundred messages runs
// long enough for a browser test to press Stop in the middle of it.
const scanPullWaitEnv = "RMQC_TEST_SCAN_PULL_WAIT"

func addLookupTestHooks(opts *lookup.Options, log *slog.Logger) {
	s := os.Getenv(scanPullWaitEnv)
	if s == "" {
		return
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		log.Warn(scanPullWaitEnv+" is not a duration; ignored", "value", s)
		return
	}
	log.Warn(scanPullWaitEnv+" is set: every pull of a deep scan waits first (test use only)", "wait", d)
	opts.BeforeScanPull = func(ctx context.Context) { clock.Sleep(ctx, d) }
}
