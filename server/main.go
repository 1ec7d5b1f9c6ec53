// Package server wires configuration, storage, services and the HTTP routes together.
package server

// Main runs the console with the given arguments and returns the process exit code.
func Main(args []string) int {
	return 0
}
