// Package clock holds the one way the console waits inside work that can be stopped.
package clock

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends, and reports whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
