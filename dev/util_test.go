package dev

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A file rewritten while another process reads it (two test packages' mqadmin runs
// share the tools' ROCKETMQ_HOME) is read whole, old or new, never truncated: 4.9.7's
// mqadmin once failed on an empty logback_tools.xml.
func TestReplaceFileIsNeverSeenPartWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logback_tools.xml")
	want := bytes.Repeat([]byte("x"), 1<<16)
	if err := replaceFile(path, want); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 300 {
			if err := replaceFile(path, want); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			if left, _ := filepath.Glob(path + ".*"); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			return
		default:
		}
		got, err := os.ReadFile(path)
		if err != nil || len(got) != len(want) {
			t.Fatalf("read %d of %d bytes (%v)", len(got), len(want), err)
		}
	}
}
