// Package migrations holds the console's schema as versioned goose migrations, one set
// per database: SQLite (the embedded default) and PostgreSQL (several consoles sharing
// one database). Both sets have the same versions and the same meaning, including the
// audit log's integrity rules, each spelled in its database's own SQL. They are embedded
// in the binary and applied at start-up by package store.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// SQLite and Postgres hold each database's migrations, named NNNNN_description.sql.
var (
	SQLite   = sub("sqlite")
	Postgres = sub("postgres")
)

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return f
}
