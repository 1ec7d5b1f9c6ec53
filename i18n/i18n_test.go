package i18n

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// catalogue reads every file of one language into id → message (a string, or a table
// of plural forms).
func catalogue(t *testing.T, lang string) map[string]any {
	t.Helper()
	files, err := fs.Glob(locales, "locales/*."+lang+".toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s catalogue: %v", lang, err)
	}
	out := map[string]any{}
	for _, f := range files {
		var m map[string]any
		data, _ := fs.ReadFile(locales, f)
		if err := toml.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for id, v := range m {
			if _, dup := out[id]; dup {
				t.Errorf("%s: %q is defined twice", f, id)
			}
			out[id] = v
		}
	}
	return out
}

var placeholder = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

// placeholders lists the {{.Name}} of a message, all plural forms together.
func placeholders(v any) []string {
	var texts []string
	switch v := v.(type) {
	case string:
		texts = []string{v}
	case map[string]any:
		for _, f := range v {
			if s, ok := f.(string); ok {
				texts = append(texts, s)
			}
		}
	}
	seen := map[string]bool{}
	for _, s := range texts {
		for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
			seen[m[1]] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// TestEveryMessageIsInBothLanguages: an id in one catalogue and not the other would show
// an English sentence on a Chinese page, or the reverse; a placeholder missing in one
// language would drop a value from its sentence.
func TestEveryMessageIsInBothLanguages(t *testing.T) {
	en, zh := catalogue(t, "en"), catalogue(t, "zh-CN")
	for id, v := range en {
		z, ok := zh[id]
		if !ok {
			t.Errorf("%q is in English only", id)
			continue
		}
		if a, b := placeholders(v), placeholders(z); !slices.Equal(a, b) {
			t.Errorf("%q: placeholders %v in English, %v in Chinese", id, a, b)
		}
		if s, ok := z.(string); ok && strings.TrimSpace(s) == "" {
			t.Errorf("%q is empty in Chinese", id)
		}
	}
	for id := range zh {
		if _, ok := en[id]; !ok {
			t.Errorf("%q is in Chinese only", id)
		}
	}
}

// idUse finds the ids handed to T and N in templates and Go code: T(ctx, "id", …),
// N(ctx, "id", …), l.T("id", …), l.N("id", …), i18n.M("id", …), and the prefixes
// views.codeText completes with a code: codeText(ctx, "role.", role).
var idUse = regexp.MustCompile(`\b(?:T|N|M|codeText)\((?:ctx, )?"([a-zA-Z0-9_.\-]+)"`)

// TestEveryIDUsedIsInTheCatalogues walks the console's source for the ids it asks for.
func TestEveryIDUsedIsInTheCatalogues(t *testing.T) {
	en := catalogue(t, "en")
	used := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "demo") && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(path, "_templ.go") || strings.HasSuffix(path, "_test.go") || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".templ")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range idUse.FindAllStringSubmatch(string(src), -1) {
			used++
			if strings.HasSuffix(m[1], ".") { // a prefix the code completes: "status."+code
				if !slices.ContainsFunc(slices.Collect(maps.Keys(en)), func(id string) bool { return strings.HasPrefix(id, m[1]) }) {
					t.Errorf("%s asks for ids starting %q, which no catalogue has", path, m[1])
				}
				continue
			}
			if _, ok := en[m[1]]; !ok {
				t.Errorf("%s asks for %q, which no catalogue has", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used == 0 {
		t.Fatal("found no use of T or N: the walk looked in the wrong place")
	}
}

func TestMatchPrefersTheChoiceThenTheBrowser(t *testing.T) {
	for _, c := range []struct{ chosen, accept, want string }{
		{"", "", "en"},
		{"", "zh-CN,zh;q=0.9,en;q=0.8", "zh-CN"},
		{"", "zh", "zh-CN"},
		{"", "zh-TW", "zh-CN"},
		{"", "fr-FR,fr;q=0.9", "en"},
		{"", "fr-FR,zh;q=0.5", "zh-CN"},
		{"en", "zh-CN", "en"},
		{"zh-CN", "en-US", "zh-CN"},
		{"garbage!!", "zh-CN", "zh-CN"},
	} {
		if got := Match(c.chosen, c.accept).Lang(); got != c.want {
			t.Errorf("Match(%q, %q) = %s, want %s", c.chosen, c.accept, got, c.want)
		}
	}
}

func TestLookups(t *testing.T) {
	zh := Match("zh-CN")
	en := Match("en")
	if got := en.T("language.zh-CN"); got != "中文" {
		t.Errorf("language.zh-CN = %q", got)
	}
	if got := zh.T("nav.groups"); got != "消费者组" {
		t.Errorf("nav.groups in Chinese = %q", got)
	}
	if got := en.T("no.such.id"); got != "no.such.id" {
		t.Errorf("a missing id comes back as %q, want the id", got)
	}
	if got := en.Int(1234567); got != "1,234,567" {
		t.Errorf("Int = %q", got)
	}
	if From(context.Background()) != english {
		t.Error("a context without a localizer is not English")
	}
}

func TestMessageIsSaidInTheRequestsLanguage(t *testing.T) {
	m := M("status.404")
	if m.Error() != "Not Found" || Match("zh-CN").Say(m) != "未找到" {
		t.Errorf("English %q, Chinese %q", m.Error(), Match("zh-CN").Say(m))
	}
}

// A Message among a sentence's values is said in the sentence's language.
func TestMessageValuesAreSaidInTheSameLanguage(t *testing.T) {
	m := M("access.role_refused", "Role", M("role.viewer"), "What", M("access.what.reset"), "Need", M("role.operator"))
	zh := Match("zh-CN").Say(m)
	if !strings.Contains(zh, "只读") || !strings.Contains(zh, "操作员") || strings.Contains(zh, "viewer") {
		t.Errorf("Chinese: %s", zh)
	}
	if en := m.String(); !strings.Contains(en, "Your role, viewer, may not reset consumer offsets") {
		t.Errorf("English: %s", en)
	}
}

// A message whose Count is an i18n.Count is said in the plural form for it, as N says
// it: a refusal built by a service reads "1 live page", not "1 live pages".
func TestMessageCountPicksThePluralForm(t *testing.T) {
	if one := M("live.refused.views", "Count", Count(1)).String(); !strings.HasPrefix(one, "You have 1 live page open,") {
		t.Errorf("one: %s", one)
	}
	if many := M("live.refused.views", "Count", Count(1200)).String(); !strings.HasPrefix(many, "You have 1,200 live pages open,") {
		t.Errorf("many: %s", many)
	}
}

// A code the catalogues name is said in the language; one they do not is shown as it is.
func TestTOrFallsBackToTheCode(t *testing.T) {
	zh := Match("zh-CN")
	if got := zh.TOr("role.viewer", "viewer"); got != "只读" {
		t.Errorf("known code: %q", got)
	}
	if got := zh.TOr("role.auditor", "auditor"); got != "auditor" {
		t.Errorf("unknown code: %q", got)
	}
}
