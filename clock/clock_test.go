package clock

import (
	"context"
	"testing"
	"time"
)

// Sleep waits its time on a live context and ends at once, saying so, when the
// context ends first.
func TestSleepEndsWithItsContext(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Fatal("a live context was reported ended")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Fatal("an ended context was reported live")
	}
}
