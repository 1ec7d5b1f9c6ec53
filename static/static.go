// Package static embeds the console's CSS, JavaScript and vendored libraries and serves
// them under content-hashed URLs, so browsers may cache them for a year.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed app.css app.js favicon.svg vendor/*.js vendor/*.css vendor/SHA256SUMS
var files embed.FS

// Prefix is where the assets are mounted.
const Prefix = "/static/"

var hashes = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[p] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
	return m
})

// URL returns the versioned URL of an embedded asset, e.g. URL("app.css") →
// "/static/3f2a9c01b7de/app.css". A name that is not embedded yields a URL that 404s,
// which a page test notices.
func URL(name string) string {
	h, ok := hashes()[name]
	if !ok {
		h = "missing"
	}
	return Prefix + h + "/" + name
}

// Handler serves /static/{hash}/{name}. A current hash is cached for a year as immutable;
// a stale one (an old page after an upgrade) is still served, but not cached.
func Handler() http.Handler {
	fileServer := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, Prefix)
		hash, name, ok := strings.Cut(rest, "/")
		name = path.Clean(name)
		if !ok || name == "." || strings.HasPrefix(name, "..") {
			http.NotFound(w, r)
			return
		}
		if cur, known := hashes()[name]; !known {
			http.NotFound(w, r)
			return
		} else if cur == hash {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		fileServer.ServeHTTP(w, r2)
	})
}

// Favicon answers /favicon.ico, which browsers and tools ask for whatever the page
// says: the console's icon (SVG, which every current browser takes there too).
func Favicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	b, _ := files.ReadFile("favicon.svg")
	_, _ = w.Write(b)
}

// Quiet reports whether a request path is for an asset (or the favicon), whose
// requests every page makes several of: worth logging only when debugging.
func Quiet(path string) bool {
	return strings.HasPrefix(path, Prefix) || path == "/favicon.ico"
}
