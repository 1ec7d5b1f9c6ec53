package handlers

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
)

// Logout is POST /logout: it ends the browser's session on the server and clears its
// cookie. Only POST, so a link or an image on another page cannot sign anyone out.
type Logout struct {
	*Env
	Auth Sessions
	// Secure reports whether the request came over HTTPS.
	Secure func(*gin.Context) bool
	// EndSession, when set, is the OpenID provider's URL that ends the browser's
	// session there too, given the ID token of the sign-in ("" when it has none).
	EndSession func(idTokenHint string) string
}

// Submit ends the session and goes to the sign-in page.
func (h *Logout) Submit(c *gin.Context) {
	token, _ := c.Cookie(SessionCookie)
	if err := h.Auth.Logout(c.Request.Context(), token); err != nil {
		h.Log.Error("sign out", "user", SignedInUser(c), "err", err)
		h.Fail(c, StoreFailure(err, i18n.M("login.logout_failed")))
		return
	}
	if user := SignedInUser(c); user != "" {
		h.Log.Info("signed out", "user", user)
	}
	ClearSessionCookie(c, h.Secure(c))
	if to := h.endSession(c); to != "" {
		c.Redirect(http.StatusSeeOther, to)
		return
	}
	c.Redirect(http.StatusSeeOther, "/login?reason=signed-out")
}

// endSession is where to send a browser signed in through the OpenID provider, to sign
// out there too (RP-initiated logout); "" for any other session.
func (h *Logout) endSession(c *gin.Context) string {
	hint, err := c.Cookie(oidcHintCookie)
	if err != nil || h.EndSession == nil {
		return ""
	}
	clearCookie(c, oidcHintCookie, "/logout", h.Secure(c))
	if hint == "-" { // the ID token was too big to keep
		hint = ""
	}
	return h.EndSession(hint)
}
