//go:build !rmqc_testhooks

package server

import (
	"log/slog"

	"rmqconsole/lookup"
	"rmqconsole/resets"
)

// addTestHooks does nothing in the console as shipped (see testhooks.go).
func addTestHooks(*resets.Config, *slog.Logger) {}

// addLookupTestHooks does nothing in the console as shipped (see testhooks.go).
func addLookupTestHooks(*lookup.Options, *slog.Logger) {}
