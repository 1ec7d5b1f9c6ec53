package handlers

import (
	"net/http"
	"strconv"

	"rmqconsole/i18n"
)

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
