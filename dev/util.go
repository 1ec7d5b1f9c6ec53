package dev

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// tailFile returns the last n lines of path, labelled, for error messages.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("--- %s: %v", path, err)
	}
	data = bytes.TrimRight(data, "\n")
	if len(data) == 0 {
		return fmt.Sprintf("--- %s: (empty)", path)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("--- last lines of %s:\n%s", path, strings.Join(lines, "\n"))
}

// replaceFile writes data to path through a temporary file renamed over it, so a
// process reading path meanwhile (mqadmin JVMs of test packages running side by side
// share the tools' ROCKETMQ_HOME) sees the old file or the new one, never a truncated one.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
