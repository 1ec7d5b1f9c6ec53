package static

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// The vendored libraries must be exactly what `make vendor` recorded.
func TestVendoredFilesMatchChecksums(t *testing.T) {
	sums, err := files.Open("vendor/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	n := 0
	sc := bufio.NewScanner(sums)
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", sc.Text())
		}
		b, err := files.ReadFile("vendor/" + name)
		if err != nil {
			t.Fatalf("%s listed in SHA256SUMS but not embedded: %v", name, err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, got, want)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("SHA256SUMS lists %d files, want htmx, its ws extension, uPlot (js+css) and Pico", n)
	}
}

func TestHandlerCachesCurrentHashOnly(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()

	get := func(p string) *http.Response {
		t.Helper()
		res, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := get(URL("vendor/htmx.min.js"))
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("current asset: status %d, Cache-Control %q", res.StatusCode, res.Header.Get("Cache-Control"))
	}
	if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, "javascript") {
		t.Errorf("Content-Type %q", ct)
	}
	res = get(Prefix + "000000000000/app.css")
	if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("stale hash: status %d, Cache-Control %q", res.StatusCode, res.Header.Get("Cache-Control"))
	}
	for _, p := range []string{Prefix + "x/nope.js", Prefix + "x/../static.go", Prefix + "app.css"} {
		if res := get(p); res.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", p, res.StatusCode)
		}
	}
}

// app.css names every colour once, in the theme blocks at its top (light and dark), so
// a new rule cannot bring back a colour that only works in one theme.
func TestAppCSSColoursLiveInTheTheme(t *testing.T) {
	b, err := files.ReadFile("app.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	_, rules, ok := strings.Cut(css, "Nothing below this block names a colour. */")
	if !ok {
		t.Fatal("app.css lost its theme block")
	}
	// Skip the two blocks of variables (light, then dark).
	for range 2 {
		i := strings.Index(rules, "--rmqc-")
		if i < 0 {
			t.Fatal("app.css has no --rmqc- theme variables")
		}
		end := strings.Index(rules[i:], "}")
		rules = rules[i+end+1:]
	}
	for n, line := range strings.Split(rules, "\n") {
		if colour.MatchString(line) {
			t.Errorf("app.css rule after the theme names a colour (use a --rmqc- variable): line %d: %s", n+1, strings.TrimSpace(line))
		}
	}
}

var colour = regexp.MustCompile(`#[0-9a-fA-F]{3,8}\b|\brgba?\(|\bhsla?\(`)
