//go:build rmqc_testhooks

package server

import (
	"context"
	"log/slog"
	"os"

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
