package deploy

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ManifestsDir holds the plain manifests and the values each is rendered with.
const ManifestsDir = "manifests"

const valuesSuffix = ".values.yaml"

// PlainManifests renders the chart under root (this module's directory) once per values
// file in manifests/ (NAME.values.yaml) and returns each result by the file it belongs
// in (manifests/NAME.yaml).
func PlainManifests(root string) (map[string]string, error) {
	ch, err := LoadChart(filepath.Join(root, ChartDir))
	if err != nil {
		return nil, err
	}
	valueFiles, err := filepath.Glob(filepath.Join(root, ManifestsDir, "*"+valuesSuffix))
	if err != nil {
		return nil, err
	}
	sort.Strings(valueFiles)
	out := make(map[string]string, len(valueFiles))
	for _, vf := range valueFiles {
		vals, err := ReadValuesFile(vf)
		if err != nil {
			return nil, err
		}
		r, err := Render(ch, vals, Release{Name: "rmqconsole", Namespace: "default"})
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(vf), valuesSuffix) + ".yaml"
		out[filepath.Join(root, ManifestsDir, name)] = "# Rendered from the Helm chart in deploy/helm/rmqconsole with " +
			filepath.Base(vf) + " beside this file\n# by `make manifests`: change those and render again rather than edit this file.\n" +
			r.YAML()
	}
	return out, nil
}

// WriteManifests renders the plain manifests under root and writes them, returning the
// files written.
func WriteManifests(root string) ([]string, error) {
	m, err := PlainManifests(root)
	if err != nil {
		return nil, err
	}
	var written []string
	for _, f := range sortedKeys(m) {
		if err := os.WriteFile(f, []byte(m[f]), 0o644); err != nil {
			return written, err
		}
		written = append(written, f)
	}
	return written, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
