package handlers

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
)

// tr is the request's localizer: the language its pages, fragments and errors speak.
func tr(c *gin.Context) *i18n.Localizer { return i18n.From(c.Request.Context()) }

// statusText is an HTTP status's name in l's language, for the title of an error page.
func statusText(l *i18n.Localizer, status int) string {
	if http.StatusText(status) == "" {
		return strconv.Itoa(status)
	}
	id := "status." + strconv.Itoa(status)
	if s := l.T(id); s != id {
		return s
	}
	return http.StatusText(status)
}
