package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/handlers"
)

// BenchmarkAccessCheck measures what access control adds to one request, against the
// same route served without it (baseline) on the same machine in the same run:
//
//	go test ./server/ -run '^$' -bench AccessCheck -benchtime 2000x
func BenchmarkAccessCheck(b *testing.B) {
	a := newAuthApp(b)
	addUsers(b, a, map[string]auth.Role{"vera": auth.Viewer})
	withAuth := stubResets(a)
	secret, _, err := a.sec.auth.CreateToken(b.Context(), "vera", "bench", "bench")
	if err != nil {
		b.Fatal(err)
	}
	ns, err := a.sec.auth.StartSession(b.Context(), "vera", "", "")
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		h    http.Handler
		set  func(*http.Request)
	}{
		{"baseline-no-access-control", bareWhoami(), func(*http.Request) {}},
		{"session-cookie", withAuth, func(r *http.Request) { r.Header.Set("Cookie", "rmqc_session="+ns.Token) }},
		{"bearer-token", withAuth, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+secret) }},
		{"anonymous-redirect", withAuth, func(*http.Request) {}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				req := newRequest(http.MethodGet, "/whoami", nil)
				tc.set(req)
				rec := httptest.NewRecorder()
				tc.h.ServeHTTP(rec, req)
				if rec.Code != 200 && rec.Code != http.StatusSeeOther {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}

// bareWhoami is the benchmark's route without the access middleware.
func bareWhoami() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.GET("/whoami", func(c *gin.Context) {
		c.JSON(http.StatusOK, gin.H{"actor": handlers.Actor(c), "addr": c.ClientIP()})
	})
	return http.NewCrossOriginProtection().Handler(r)
}
