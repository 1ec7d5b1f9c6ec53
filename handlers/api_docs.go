package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"rmqconsole/handlers/openapi"
	"rmqconsole/i18n"
	"rmqconsole/views"
)

// APIDocs is the API document: GET /api/v1/openapi.json for programs, GET /api for
// people.
type APIDocs struct {
	*Env
}

// Document answers GET /api/v1/openapi.json.
func (h *APIDocs) Document(c *gin.Context) {
	raw, err := openapi.JSON()
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", raw)
}

// Show renders GET /api.
func (h *APIDocs) Show(c *gin.Context) {
	vm, err := apiDocsVM()
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.render(c, http.StatusOK, h.page(c, i18n.From(c.Request.Context()).T("apidocs.title"), "api"), views.APIDocsPage(vm))
}

// apiDocsVM reads the document once: it is embedded, so it never changes while the
// console runs.
var apiDocsVM = sync.OnceValues(func() (views.APIDocsVM, error) {
	doc, err := openapi.Document()
	if err != nil {
		return views.APIDocsVM{}, err
	}
	return apiDocsFrom(doc), nil
})

// apiDocsFrom builds the page from the document: operations in the order of the
// document's tags and paths, schemas by name.
func apiDocsFrom(doc *openapi3.T) views.APIDocsVM {
	vm := views.APIDocsVM{Title: doc.Info.Title, Version: doc.Info.Version, Intro: apiProse(doc.Info.Description),
		DocURL: "/api/v1/openapi.json"}
	for _, s := range doc.Servers {
		vm.Servers = append(vm.Servers, views.APIServer{URL: s.URL, Description: s.Description})
	}
	areas := map[string]*views.APIArea{}
	var order []string
	for _, t := range doc.Tags {
		areas[t.Name] = &views.APIArea{Name: t.Name, Description: t.Description}
		order = append(order, t.Name)
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range apiMethods {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			tag := "other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			a := areas[tag]
			if a == nil {
				a = &views.APIArea{Name: tag}
				areas[tag] = a
				order = append(order, tag)
			}
			a.Operations = append(a.Operations, apiOperation(method, path, item, op))
			vm.Operations++
		}
	}
	for _, name := range order {
		a := areas[name]
		slices.SortStableFunc(a.Operations, func(x, y views.APIOperation) int { return strings.Compare(x.Path, y.Path) })
		if len(a.Operations) > 0 {
			vm.Areas = append(vm.Areas, *a)
		}
	}
	names := make([]string, 0, len(doc.Components.Schemas))
	for name := range doc.Components.Schemas {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s := doc.Components.Schemas[name].Value
		vs := views.APISchema{Name: name, Description: s.Description, Type: apiType(doc.Components.Schemas[name], true),
			Closed: apiClosed(s)}
		apiFields(&vs.Fields, s, "")
		vm.Schemas = append(vm.Schemas, vs)
	}
	return vm
}

// apiMethods are the methods the page lists, in the order it lists them on a path.
var apiMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

func apiOperation(method, path string, item *openapi3.PathItem, op *openapi3.Operation) views.APIOperation {
	out := views.APIOperation{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary, Description: apiProse(op.Description)}
	if out.ID == "" {
		out.ID = strings.ToLower(method) + strings.NewReplacer("/", "-", "{", "", "}", "").Replace(path)
	}
	for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range ps {
			if p.Value == nil {
				continue
			}
			out.Parameters = append(out.Parameters, views.APIParameter{Name: p.Value.Name, In: p.Value.In,
				Type: apiShape(p.Value.Schema), Required: p.Value.Required, Description: p.Value.Description})
		}
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		if mt := rb.Value.Content.Get("application/json"); mt != nil {
			t := apiShape(mt.Schema)
			out.Body, out.BodyRequired = &t, rb.Value.Required
		}
	}
	statuses := make([]string, 0, op.Responses.Len())
	for status := range op.Responses.Map() {
		statuses = append(statuses, status)
	}
	// Numbers in order, "default" (every other status) last.
	slices.SortFunc(statuses, func(a, b string) int {
		if (a == "default") != (b == "default") {
			if a == "default" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	for _, status := range statuses {
		r := op.Responses.Value(status)
		if r == nil || r.Value == nil {
			continue
		}
		vr := views.APIResponse{Status: status}
		if r.Value.Description != nil {
			vr.Description = *r.Value.Description
		}
		types := make([]string, 0, len(r.Value.Content))
		for mt := range r.Value.Content {
			types = append(types, mt)
		}
		slices.Sort(types)
		for _, mt := range types {
			vr.Types = append(vr.Types, views.APIContent{MediaType: mt, Type: apiShape(r.Value.Content[mt].Schema)})
		}
		out.Responses = append(out.Responses, vr)
	}
	return out
}

// apiShape is apiType for what an operation takes or answers: an object written inline
// (a wrapper such as {"rules": [...]}) is spelt out with its fields.
func apiShape(ref *openapi3.SchemaRef) views.APIType {
	if ref == nil || ref.Ref != "" || ref.Value == nil || !ref.Value.Type.Is(openapi3.TypeObject) || len(ref.Value.Properties) == 0 {
		return apiType(ref, false)
	}
	s := ref.Value
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	t := views.APIType{Parts: []views.APITypePart{{Text: "{"}}}
	for i, name := range names {
		sep := " "
		if i > 0 {
			sep = ", "
		}
		t.Parts = append(t.Parts, views.APITypePart{Text: sep + name + ": "})
		t.Parts = append(t.Parts, apiType(s.Properties[name], false).Parts...)
	}
	t.Parts = append(t.Parts, views.APITypePart{Text: " }"})
	return t
}

// apiType says a schema in a few words, naming the document's schemas it refers to.
// named is true for a schema of the components itself, which is not its own reference.
func apiType(ref *openapi3.SchemaRef, named bool) views.APIType {
	var t views.APIType
	word := func(s string) { t.Parts = append(t.Parts, views.APITypePart{Text: s}) }
	var say func(r *openapi3.SchemaRef, top bool)
	say = func(r *openapi3.SchemaRef, top bool) {
		if r == nil {
			word("any")
			return
		}
		if name, ok := strings.CutPrefix(r.Ref, "#/components/schemas/"); ok && !(top && named) {
			t.Parts = append(t.Parts, views.APITypePart{Ref: name})
			return
		}
		s := r.Value
		if s == nil {
			word("any")
			return
		}
		for i, alt := range append(slices.Clone(s.OneOf), s.AnyOf...) {
			if i > 0 {
				word(" | ")
			}
			say(alt, false)
		}
		if len(s.OneOf)+len(s.AnyOf) > 0 {
			return
		}
		for i, part := range s.AllOf {
			if i > 0 {
				word(" & ")
			}
			say(part, false)
		}
		if len(s.AllOf) > 0 {
			word(" + fields")
			return
		}
		types := []string{"any"}
		if s.Type != nil && len(*s.Type) > 0 {
			types = slices.Clone(s.Type.Slice())
		}
		for i, typ := range types {
			if i > 0 {
				word(" | ")
			}
			switch typ {
			case openapi3.TypeArray:
				word("array of ")
				say(s.Items, false)
			case openapi3.TypeObject:
				if ap := s.AdditionalProperties.Schema; ap != nil {
					word("map of ")
					say(ap, false)
				} else {
					word("object")
				}
			default:
				w := typ
				if s.Format != "" {
					w += " (" + s.Format + ")"
				}
				if len(s.Enum) > 0 {
					vals := make([]string, len(s.Enum))
					for j, v := range s.Enum {
						vals[j] = apiValue(v)
					}
					w += ": " + strings.Join(vals, ", ")
				}
				if s.Min != nil || s.Max != nil {
					w += " " + apiRange(s.Min, s.Max)
				}
				word(w)
			}
		}
	}
	say(ref, true)
	return t
}

func apiValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

func apiRange(lo, hi *float64) string {
	f := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	}
	return "[" + f(lo) + "…" + f(hi) + "]"
}

// apiClosed reports whether the schema refuses fields it does not list.
func apiClosed(s *openapi3.Schema) bool {
	if ap := s.AdditionalProperties.Has; ap != nil && !*ap {
		return true
	}
	return s.UnevaluatedProperties.Has != nil && !*s.UnevaluatedProperties.Has
}

// apiFields lists the fields of an object schema, the fields of the inline objects
// inside it (or inside its arrays) after theirs, named by their path.
func apiFields(out *[]views.APIField, s *openapi3.Schema, prefix string) {
	if s == nil {
		return
	}
	for _, part := range s.AllOf {
		if part.Value != nil && part.Ref == "" {
			apiFields(out, part.Value, prefix)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	// Required fields first, each group by name: what is always there comes first.
	slices.SortFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		p := s.Properties[name]
		f := views.APIField{Name: prefix + name, Type: apiType(p, false), Required: slices.Contains(s.Required, name)}
		if p.Value != nil {
			f.Description = p.Value.Description
		}
		*out = append(*out, f)
		if p.Ref != "" || p.Value == nil {
			continue
		}
		// Inline objects, and arrays of them, list their own fields below.
		switch inner := p.Value; {
		case inner.Type.Includes(openapi3.TypeObject) && len(inner.Properties) > 0:
			apiFields(out, inner, prefix+name+".")
		case inner.Type.Includes(openapi3.TypeArray) && inner.Items != nil && inner.Items.Ref == "" && inner.Items.Value != nil &&
			len(inner.Items.Value.Properties) > 0:
			apiFields(out, inner.Items.Value, prefix+name+"[].")
		}
	}
}

// apiProse splits the document's Markdown-like description into paragraphs and lists,
// with `code` and **strong** runs: enough for the document's own prose, written here.
func apiProse(text string) []views.APIBlock {
	var out []views.APIBlock
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(strings.TrimSpace(para), "\n")
		if strings.HasPrefix(lines[0], "- ") {
			var b views.APIBlock
			for _, l := range lines {
				if item, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok {
					b.Items = append(b.Items, apiSpans(item))
				} else if n := len(b.Items); n > 0 {
					b.Items[n-1] = append(b.Items[n-1], apiSpans(" "+strings.TrimSpace(l))...)
				}
			}
			out = append(out, b)
			continue
		}
		out = append(out, views.APIBlock{Spans: apiSpans(strings.Join(lines, " "))})
	}
	return out
}

// apiSpans splits a line into plain, `code` and **strong** runs.
func apiSpans(s string) []views.APISpan {
	var out []views.APISpan
	for s != "" {
		i := strings.IndexAny(s, "`*")
		if i < 0 || (s[i] == '*' && !strings.HasPrefix(s[i:], "**")) {
			if i < 0 {
				out = append(out, views.APISpan{Text: s})
				return out
			}
			out = append(out, views.APISpan{Text: s[:i+1]})
			s = s[i+1:]
			continue
		}
		if i > 0 {
			out = append(out, views.APISpan{Text: s[:i]})
		}
		mark := "`"
		if s[i] == '*' {
			mark = "**"
		}
		rest := s[i+len(mark):]
		j := strings.Index(rest, mark)
		if j < 0 {
			out = append(out, views.APISpan{Text: s[i:]})
			return out
		}
		out = append(out, views.APISpan{Text: rest[:j], Code: mark == "`", Strong: mark == "**"})
		s = rest[j+len(mark):]
	}
	return out
}
