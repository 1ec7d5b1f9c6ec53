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
	c.Redirect(http.StatusSeeOther, "/login?reason=signed-out")
}
