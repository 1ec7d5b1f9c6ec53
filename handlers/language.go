package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
)

// LanguageCookie remembers the language a user chose in the header's switch.
const LanguageCookie = "rmqc_lang"

// Localize puts the request's language in its context: the one chosen in the switch
// (the cookie), else the browser's Accept-Language, else English.
func Localize(c *gin.Context) {
	chosen, _ := c.Cookie(LanguageCookie)
	l := i18n.Match(chosen, c.GetHeader("Accept-Language"))
	c.Request = c.Request.WithContext(i18n.With(c.Request.Context(), l))
	c.Header("Content-Language", l.Lang())
	c.Next()
}

// SwitchLanguage remembers the language posted by the header's switch for a year and
// goes back to the page it was posted from (the Referer: pages are same-origin, so the
// browser names them whole, and no page has to repeat its own address in a form).
func SwitchLanguage(c *gin.Context) {
	lang := c.PostForm("lang")
	if !slices.Contains(i18n.Languages(), lang) {
		c.String(http.StatusUnprocessableEntity, "unknown language %q: one of %s", lang, strings.Join(i18n.Languages(), ", "))
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{
		Name: LanguageCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
	back := "/"
	if ref, err := url.Parse(c.GetHeader("Referer")); err == nil && ref.Host == c.Request.Host {
		if _, ok := localPath(ref.RequestURI()); ok {
			back = ref.RequestURI()
		}
	}
	c.Redirect(http.StatusSeeOther, back)
}
