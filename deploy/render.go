// Package deploy renders the Helm chart in helm/rmqconsole with the Helm library, for the
// plain manifests under manifests/ and for the tests that check every object it makes.
// It is a module of its own so that Helm and the Kubernetes API types stay out of the
// console's dependencies.
package deploy

import (
	"fmt"
	"path"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
)

// ChartDir is the chart, relative to this module's directory.
const ChartDir = "helm/rmqconsole"

// Release names the release a render is for, as `helm template NAME --namespace NS` would.
type Release struct{ Name, Namespace string }

// Rendered is one render of the chart: its objects in the order Helm installs them, and
// the notes shown after an install.
type Rendered struct {
	Manifests []releaseutil.Manifest
	Notes     string
}

// YAML is the rendered objects as one multi-document stream, each headed by the template
// it came from, as `helm template` prints them.
func (r *Rendered) YAML() string {
	var b strings.Builder
	for _, m := range r.Manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, strings.TrimSpace(m.Content))
	}
	return b.String()
}

// LoadChart reads the chart from dir.
func LoadChart(dir string) (*chart.Chart, error) {
	return loader.Load(dir)
}

// ReadValuesFile reads a values file (the chart's defaults apply under it).
func ReadValuesFile(file string) (map[string]any, error) {
	v, err := common.ReadValuesFile(file)
	if err != nil {
		return nil, err
	}
	return v.AsMap(), nil
}

// Render renders ch with vals over its defaults as a client-side install would: the
// values are checked against the chart's schema first, and a template's fail stops it.
func Render(ch *chart.Chart, vals map[string]any, rel Release) (*Rendered, error) {
	caps := common.DefaultCapabilities.Copy()
	opts := common.ReleaseOptions{Name: rel.Name, Namespace: rel.Namespace, Revision: 1, IsInstall: true}
	top, err := util.ToRenderValuesWithSchemaValidation(ch, vals, opts, caps, false)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return nil, err
	}
	out := &Rendered{}
	for name, content := range files {
		if path.Base(name) == "NOTES.txt" {
			out.Notes = content
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	if len(hooks) > 0 {
		return nil, fmt.Errorf("the chart has hooks (%s), which plain manifests cannot run", hooks[0].Path)
	}
	out.Manifests = manifests
	return out, nil
}
