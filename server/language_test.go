package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"rmqconsole/handlers"
)

// The language comes from the browser until the user picks one in the header; the pick
// is remembered in a cookie, sign-in page included, and the page says its language.
func TestLanguageFromBrowserThenFromTheSwitch(t *testing.T) {
	a := newAuthApp(t)
	get := func(accept string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
		req := newRequest(http.MethodGet, "/login", nil)
		req.Header.Set("Accept-Language", accept)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		return rec
	}
	if body := get("en-US,en;q=0.9").Body.String(); !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, ">中文</button>") {
		t.Fatalf("English page: no lang or no switch to Chinese:\n%s", body)
	}
	zh := get("zh-CN,zh;q=0.9")
	if body := zh.Body.String(); !strings.Contains(body, `<html lang="zh-CN">`) || !strings.Contains(body, "键盘快捷键") || !strings.Contains(body, ">English</button>") {
		t.Fatalf("Chinese browser got:\n%s", body)
	}
	if zh.Header().Get("Content-Language") != "zh-CN" {
		t.Errorf("Content-Language %q", zh.Header().Get("Content-Language"))
	}

	form := url.Values{"lang": {"zh-CN"}}
	req := newRequest(http.MethodPost, "/language", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", "http://127.0.0.1/login?next=%2Fgroups")
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login?next=%2Fgroups" {
		t.Fatalf("switch: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	var chosen *http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == handlers.LanguageCookie {
			chosen = c
		}
	}
	if chosen == nil || chosen.Value != "zh-CN" || chosen.MaxAge < 300*24*3600 {
		t.Fatalf("the choice is not remembered: %+v", chosen)
	}
	if body := get("en-US", chosen).Body.String(); !strings.Contains(body, `<html lang="zh-CN">`) {
		t.Fatal("the remembered choice did not win over the browser's language")
	}

	for _, c := range []struct{ lang, referer string }{{"fr", ""}, {"en", "https://evil.example/groups"}, {"en", "http://example.com//evil.example/"}} {
		req := newRequest(http.MethodPost, "/language", strings.NewReader(url.Values{"lang": {c.lang}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Referer", c.referer)
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, req)
		if c.lang == "fr" && rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("unknown language answered %d", rec.Code)
		}
		if c.referer != "" && rec.Header().Get("Location") != "/" {
			t.Errorf("switch from %s sent the browser to %q", c.referer, rec.Header().Get("Location"))
		}
	}
}
