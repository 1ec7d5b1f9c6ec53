// Package configfile decodes the console's config file, TOML (.toml) or YAML (.yaml,
// .yml), into the part of it one package reads: the clusters, decoders, masking and
// rights sections sit in one file, and each package checks its own.
package configfile

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml"
)

// Problem is what kept a file from decoding.
type Problem int8

const (
	// Syntax: the file is not valid TOML or YAML (Detail says where).
	Syntax Problem = iota + 1
	// Unknown: a setting the reader does not know (Setting names it).
	Unknown
	// Format: the file name ends in none of .toml, .yaml, .yml.
	Format
)

// Error says why a file did not decode; each package says it in its own sentence.
type Error struct {
	Problem Problem
	Setting string // Unknown: the setting, "masking.rules[0].bad"
	Detail  string // Syntax: the decoder's own words
}

func (e *Error) Error() string { return e.Detail }

// Decode decodes raw, the contents of file, into v. A YAML key v does not have is
// refused by the decoder; of a TOML file's keys v left undecoded, those owns reports
// are refused (the others are other packages' sections).
func Decode(raw []byte, file string, v any, owns func(key []string) bool) error {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".toml":
		md, err := toml.Decode(string(raw), v)
		if err != nil {
			return &Error{Problem: Syntax, Detail: err.Error()}
		}
		for _, k := range md.Undecoded() {
			if owns(k) {
				return &Error{Problem: Unknown, Setting: k.String()}
			}
		}
	case ".yaml", ".yml":
		if err := yaml.NewDecoder(bytes.NewReader(raw), yaml.DisallowUnknownField()).Decode(v); err != nil {
			return &Error{Problem: Syntax, Detail: yaml.FormatError(err, false, true)}
		}
	default:
		return &Error{Problem: Format, Detail: "the file name must end in .toml, .yaml or .yml"}
	}
	return nil
}

// Section reports whether key is a setting inside the section named name (not the
// section itself): what a package that reads only that section refuses.
func Section(name string) func(key []string) bool {
	return func(k []string) bool { return len(k) > 1 && k[0] == name }
}
