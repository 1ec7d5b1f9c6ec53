// Package migrations holds the console's SQLite schema as versioned goose migrations,
// embedded in the binary and applied at start-up by package store.
package migrations

import "embed"

// FS holds every migration, named NNNNN_description.sql.
//
//go:embed *.sql
var FS embed.FS
