package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"rmqconsole/handlers"
)

// A write signed in by the session cookie must say it comes from the console's own page
// (Origin or Sec-Fetch-Site), as every current browser does: one that says neither is an
// old browser posting another site's form, and is refused with a sentence. API tokens and
// callers without the cookie are left as they were.
func TestSignedInWritesWithoutOriginAreRefused(t *testing.T) {
	a := newAuthApp(t)
	addUsers(t, a, roleUsers)
	console := httptest.NewServer(a.Handler())
	defer console.Close()
	c := browser(t)
	if res := postForm(t, c, console.URL+"/login", url.Values{"name": {"otto"}, "password": {testPassword}},
		map[string]string{"Origin": console.URL}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	tokens := func() int {
		ts, err := a.sec.auth.Tokens(t.Context(), "otto")
		if err != nil {
			t.Fatal(err)
		}
		return len(ts)
	}

	// Neither header: a page form, an API call and the sign-out are refused.
	res := postForm(t, c, console.URL+"/users/otto/tokens", url.Values{"name": {"evil"}}, nil)
	if body := readBody(res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "neither Origin nor Sec-Fetch-Site") {
		t.Errorf("form without Origin: %d %.200s, want 403 with the sentence", res.StatusCode, body)
	}
	api := func(hdr map[string]string) (*http.Response, handlers.APIError) {
		req, _ := http.NewRequest(http.MethodPost, console.URL+"/api/v1/users/otto/tokens", strings.NewReader(`{"name":"evil-api"}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var e handlers.APIError
		json.NewDecoder(res.Body).Decode(&e)
		return res, e
	}
	if res, e := api(nil); res.StatusCode != http.StatusForbidden || e.Code != "cross_origin" {
		t.Errorf("API write with the cookie and without Origin: %d %+v, want 403 cross_origin", res.StatusCode, e)
	}
	if n := tokens(); n != 0 {
		t.Fatalf("writes without Origin created %d tokens", n)
	}
	if res := postForm(t, c, console.URL+"/logout", nil, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without Origin: %d, want 403", res.StatusCode)
	}
	if res := get(t, c, console.URL+"/"); res.StatusCode != http.StatusOK {
		t.Fatalf("a refused sign-out signed the user out: %d", res.StatusCode)
	}

	// Either header saying same origin: served.
	for _, hdr := range []map[string]string{{"Origin": console.URL}, {"Sec-Fetch-Site": "same-origin"}} {
		if res, e := api(hdr); res.StatusCode != http.StatusCreated {
			t.Errorf("API write with %v: %d %+v, want 201", hdr, res.StatusCode, e)
		}
	}

	// An API token without either header, as scripts send it: served as before.
	secret, _, err := a.sec.auth.CreateToken(t.Context(), "otto", "ci", "test")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, console.URL+"/api/v1/users/otto/tokens", strings.NewReader(`{"name":"script"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("token write without Origin: %d, want 201", res.StatusCode)
	}
}

// Without users there is no cookie: scripts on the machine keep calling the API without
// Origin, as before.
func TestLocalScriptsWriteWithoutOrigin(t *testing.T) {
	a := newAuthApp(t)
	console := httptest.NewServer(a.Handler())
	defer console.Close()
	req, _ := http.NewRequest(http.MethodPost, console.URL+"/api/v1/alert-rules",
		strings.NewReader(`{"name":"x","group":"g","metric":"lag","threshold":1,"webhookUrl":"https://hooks.example/x"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("local API write without Origin: %d, want 201", res.StatusCode)
	}
}
