package views

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	tp "github.com/a-h/templ/parser/v2"
)

// names are written alike in both languages (RocketMQ's Chinese documentation keeps
// them in Latin letters): text made only of them needs no catalogue entry.
var names = regexp.MustCompile(`\b(JSON|CSV|API|URL|HTTP|Slack|DingTalk|Webhook|Broker|NameServer|Proxy|gRPC|POP|TPS|ID|Key|Tag|mqadmin|rmqconsole|jstack|RocketMQ|UTC)\b`)

// visibleAttributes are the attributes a user reads or hears.
var visibleAttributes = []string{"title", "placeholder", "aria-label", "alt", "label", "data-confirm", "hx-confirm"}

// TestTemplatesSayNothingOutsideTheCatalogues walks every template and fails on text, a
// visible attribute or a string literal in an expression that a user would read in
// English whatever their language.
func TestTemplatesSayNothingOutsideTheCatalogues(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates found: %v", err)
	}
	for _, f := range files {
		tf, err := tp.Parse(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range untranslated(tf) {
			t.Errorf("%s: %q is not in the catalogues (use T or N)", f, s)
		}
	}
}

// words matches text with a word of two letters or more: what a user reads, unlike
// punctuation, numbers, arrows and separators.
var words = regexp.MustCompile(`\p{L}{2,}`)

func untranslated(tf *tp.TemplateFile) []string {
	var out []string
	var walk func([]tp.Node)
	walk = func(nodes []tp.Node) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *tp.Text:
				if says(n.Value) {
					out = append(out, strings.TrimSpace(n.Value))
				}
			case *tp.Element:
				if n.Name == "script" || n.Name == "style" {
					continue
				}
				for _, a := range n.Attributes {
					if ca, ok := a.(*tp.ConstantAttribute); ok && slices.Contains(visibleAttributes, ca.Key.String()) && says(ca.Value) && !isExample(ca) {
						out = append(out, ca.Key.String()+"="+ca.Value)
					}
					if ea, ok := a.(*tp.ExpressionAttribute); ok && slices.Contains(visibleAttributes, ea.Key.String()) {
						out = append(out, literals(ea.Expression.Value)...)
					}
				}
				walk(n.Children)
			case *tp.StringExpression:
				out = append(out, literals(n.Expression.Value)...)
			case *tp.IfExpression:
				walk(n.Then)
				for _, e := range n.ElseIfs {
					walk(e.Then)
				}
				walk(n.Else)
			case *tp.SwitchExpression:
				for _, c := range n.Cases {
					walk(c.Children)
				}
			case *tp.ForExpression:
				walk(n.Children)
			case *tp.TemplElementExpression:
				walk(n.Children)
			}
		}
	}
	for _, n := range tf.Nodes {
		if h, ok := n.(*tp.HTMLTemplate); ok {
			walk(h.Children)
		}
	}
	return out
}

var entities = regexp.MustCompile(`&[a-z]+;`)

// says reports whether text has words of a language, not only names, entities
// (&nbsp;, &middot;), numbers or punctuation.
func says(text string) bool {
	return words.MatchString(names.ReplaceAllString(entities.ReplaceAllString(text, ""), ""))
}

// isExample reports whether a is a placeholder showing a value to type (order-*, a URL):
// values are not translated.
func isExample(a *tp.ConstantAttribute) bool {
	return a.Key.String() == "placeholder" && !strings.Contains(a.Value, " ")
}

// literals returns the string literals of a Go expression that hold words and are not
// a message id handed to T or N (or another call named in idArgs).
func literals(expr string) []string {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return nil
	}
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if isCatalogueCall(n) {
				return false
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				s, _ := strconv.Unquote(n.Value)
				if says(s) && !looksLikeCode(s) {
					out = append(out, s)
				}
			}
		}
		return true
	})
	return out
}

// isCatalogueCall reports whether call is T(ctx, id, …), N(ctx, id, n, …) or a
// localizer's .T/.N: their literals are ids and placeholder names, not sentences.
func isCatalogueCall(call *ast.CallExpr) bool {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name == "T" || f.Name == "N" || f.Name == "languageName"
	case *ast.SelectorExpr:
		return f.Sel.Name == "T" || f.Sel.Name == "N"
	}
	return false
}

// looksLikeCode passes literals that are CSS classes, ids, URLs, formats and the like.
func looksLikeCode(s string) bool {
	if strings.ContainsAny(s, "/#%=?") || strings.HasPrefix(s, "data-") {
		return true
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsUpper(r) {
			return false
		}
	}
	return true // one lower-case token: a class, a key, a test id
}
