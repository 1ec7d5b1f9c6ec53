package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/freetext"
	"rmqconsole/i18n"
	"rmqconsole/views"
)

// RoleKey is the gin context key under which authentication stores the caller's
// auth.Role (auth.Admin in single-user local mode, where the one user may do everything).
const RoleKey = "role"

// SessionCookie names the cookie that carries a browser's session token.
const SessionCookie = "rmqc_session"

// CallerRole returns the caller's role, auth.NoRole when not signed in.
func CallerRole(c *gin.Context) auth.Role {
	v, _ := c.Get(RoleKey)
	r, _ := v.(auth.Role)
	return r
}

// SignedInUser returns the signed-in user's name for the page header: "" in single-user
// local mode and for anonymous callers.
func SignedInUser(c *gin.Context) string { return c.GetString(ActorKey) }

// Sessions is what sign-in and sign-out need from package auth.
type Sessions interface {
	Login(ctx context.Context, name string, password []byte, addr, userAgent string) (*auth.NewSession, error)
	Logout(ctx context.Context, token string) error
}

// Login is the sign-in page: GET and POST /login.
type Login struct {
	*Env
	Auth Sessions
	// SignInRequired reports whether the console asks callers to sign in (false in
	// single-user local mode and with --no-auth).
	SignInRequired func(*gin.Context) bool
	// Secure reports whether the request came over HTTPS, so the cookie gets Secure.
	Secure func(*gin.Context) bool
	// OIDCLabel names the OpenID provider of the "Sign in with" button ("" for none);
	// LDAP says the form also takes directory accounts.
	OIDCLabel string
	LDAP      bool
}

// Form shows the sign-in form, or sends a signed-in caller on to where they were going.
func (h *Login) Form(c *gin.Context) {
	next := SafeNext(c.Query("next"))
	if SignedInUser(c) != "" {
		c.Redirect(http.StatusSeeOther, next)
		return
	}
	vm := views.LoginVM{Next: next, NotNeeded: !h.SignInRequired(c)}
	h.providers(&vm)
	switch c.Query("reason") {
	case "signed-out":
		vm.Notice = tr(c).T("login.signed_out")
	case "ended":
		vm.Notice = tr(c).T("login.session_ended")
	}
	h.render(c, http.StatusOK, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
}

// Submit checks the user name and password, starts a session and redirects to next.
func (h *Login) Submit(c *gin.Context) {
	name := strings.TrimSpace(c.PostForm("name"))
	password := c.PostForm("password")
	vm := views.LoginVM{Name: name, Next: SafeNext(c.PostForm("next"))}
	h.providers(&vm)
	if !h.SignInRequired(c) {
		vm.NotNeeded = true
		h.render(c, http.StatusOK, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
		return
	}
	if name == "" || password == "" {
		vm.Error = tr(c).T("login.missing")
		h.render(c, http.StatusUnprocessableEntity, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
		return
	}
	ns, err := h.Auth.Login(c.Request.Context(), name, []byte(password), c.ClientIP(), c.Request.UserAgent())
	var throttled *auth.ThrottledError
	var invalid *auth.InvalidError
	switch {
	case err == nil:
	case errors.As(err, &invalid):
		vm.Name, vm.Error = freetext.Shown(name), sayInvalid(tr(c), invalid)
		h.render(c, http.StatusUnprocessableEntity, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
		return
	case errors.Is(err, auth.ErrBadCredentials):
		h.Log.Info("sign-in refused", "user", name, "remote", c.ClientIP())
		vm.Error = tr(c).T("login.wrong")
		h.render(c, http.StatusUnauthorized, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
		return
	case fault.Is(err, fault.Unavailable):
		// The LDAP directory did not answer: nothing was checked, nothing is open.
		h.Log.Warn("sign-in not possible", "user", name, "remote", c.ClientIP(), "err", err)
		vm.Error = errorMessage(c, err, "")
		h.render(c, http.StatusServiceUnavailable, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
		return
	case fault.Is(err, fault.Refused):
		h.Log.Info("sign-in refused", "user", name, "remote", c.ClientIP(), "err", err)
		vm.Error = errorMessage(c, err, "")
		h.render(c, http.StatusForbidden, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
		return
	case errors.As(err, &throttled):
		h.Log.Warn("sign-in throttled", "user", name, "remote", c.ClientIP(), "wait", throttled.Wait)
		secs := int(throttled.Wait.Round(time.Second) / time.Second)
		secs = max(secs, 1)
		c.Header("Retry-After", strconv.Itoa(secs))
		vm.Error = tr(c).T("login.throttled", "Seconds", secs)
		h.render(c, http.StatusTooManyRequests, h.page(c, tr(c).T("login.title"), ""), views.LoginPage(vm))
		return
	default:
		h.Log.Error("sign-in failed", "user", name, "err", err)
		h.Fail(c, StoreFailure(err, i18n.M("login.database")))
		return
	}
	h.Log.Info("signed in", "user", ns.Caller.Name, "role", ns.Caller.Role.String(), "remote", c.ClientIP())
	SetSessionCookie(c, ns.Token, ns.ExpiresAt, h.Secure(c))
	clearCookie(c, oidcHintCookie, "/logout", h.Secure(c)) // not an OpenID session: nothing to end there
	c.Redirect(http.StatusSeeOther, vm.Next)
}

// providers shows the sign-in choices besides the local password form.
func (h *Login) providers(vm *views.LoginVM) {
	vm.LDAP = h.LDAP
	if h.OIDCLabel != "" {
		vm.OIDCURL, vm.OIDCLabel = oidcStartPath+"?"+url.Values{"next": {vm.Next}}.Encode(), h.OIDCLabel
	}
}

// SetSessionCookie gives the browser its session token: HttpOnly (no script reads it),
// SameSite=Lax (not sent on cross-site form posts), Secure over HTTPS, and ending with
// the session's absolute expiry.
func SetSessionCookie(c *gin.Context, token string, expires time.Time, secure bool) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: SessionCookie, Value: token, Path: "/",
		Expires: expires, MaxAge: max(1, int(time.Until(expires).Seconds())),
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode,
	})
}

// ClearSessionCookie tells the browser to forget its session token.
func ClearSessionCookie(c *gin.Context, secure bool) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode,
	})
}

// SafeNext returns target if it is a path on this console, else "/": after sign-in the
// console never redirects to another site.
func SafeNext(target string) string {
	u, ok := localPath(target)
	if !ok || u.Path == "/login" || u.Path == "/logout" {
		return "/"
	}
	return target
}

// localPath parses target and reports whether it is a path on this console, not a URL
// that would send the browser to another site.
func localPath(target string) (*url.URL, bool) {
	if target == "" || !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") || strings.HasPrefix(target, "/\\") {
		return nil, false
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.ContainsAny(target, "\r\n\t") {
		return nil, false
	}
	return u, true
}
