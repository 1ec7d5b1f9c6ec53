package configfile

import "testing"

type masking struct {
	Masking *struct {
		ReadBodies []string `toml:"read_bodies" yaml:"read_bodies"`
	} `toml:"masking" yaml:"masking"`
	Rights any `toml:"rights" yaml:"rights"`
}

// A reader refuses an unknown setting of its own section and leaves the other sections
// to their readers; a YAML key it does not have, bad syntax and an unknown extension
// are refused with what went wrong.
func TestDecodeRefusesOnlyWhatTheReaderOwns(t *testing.T) {
	for _, c := range []struct {
		name, file, body string
		want             Problem
		setting          string
	}{
		{"own section", "c.toml", "[masking]\nread_bodies = [\"admin\"]\n[[clusters]]\nname = \"a\"\n", 0, ""},
		{"unknown in own section", "c.toml", "[masking]\nreed_bodies = [\"admin\"]\n", Unknown, "masking.reed_bodies"},
		{"toml syntax", "c.toml", "[masking\n", Syntax, ""},
		{"yaml unknown", "c.yaml", "masking:\n  reed_bodies: [admin]\n", Syntax, ""},
		{"yaml own", "c.yml", "masking:\n  read_bodies: [admin]\nrights: []\n", 0, ""},
		{"format", "c.json", "{}", Format, ""},
	} {
		var v masking
		err := Decode([]byte(c.body), c.file, &v, Section("masking"))
		var got Problem
		var setting string
		if err != nil {
			got, setting = err.(*Error).Problem, err.(*Error).Setting
		}
		if got != c.want || setting != c.setting {
			t.Errorf("%s: problem %d setting %q (%v); want %d %q", c.name, got, setting, err, c.want, c.setting)
		}
	}
}
