package dev

import (
	"bytes"
	"fmt"
	"os"
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
