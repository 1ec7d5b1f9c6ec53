// Package openapi holds the contract of the console's JSON API: an OpenAPI 3.1 document
// written by hand (openapi.yaml), embedded in the binary and served as JSON at
// /api/v1/openapi.json. The HTTP tests check every API answer they receive against it
// (package openapitest), so a field added to an answer without the document fails a test.
package openapi

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/goccy/go-yaml"
)

//go:embed openapi.yaml
var source []byte

var load = sync.OnceValues(func() ([]byte, error) {
	raw, err := yaml.YAMLToJSON(source)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return out.Bytes(), nil
})

// JSON is the document as served: the YAML as written, its keys in the same order.
func JSON() ([]byte, error) { return load() }

// Document is the document parsed and checked against the OpenAPI specification. Every
// call parses it anew, so callers may change what they get.
func Document() (*openapi3.T, error) {
	raw, err := JSON()
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.yaml is not a valid OpenAPI document: %w", err)
	}
	return doc, nil
}
