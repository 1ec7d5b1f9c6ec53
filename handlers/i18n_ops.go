package handlers

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
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

// sayInvalid is why input was refused, in l's language.
func sayInvalid(l *i18n.Localizer, e *auth.InvalidError) string {
	if e.Say.ID != "" {
		return say(l, e.Say)
	}
	return e.Reason
}

// say is m in l's language, and so are the Messages among its values ("Your role,
// viewer, may not reset consumer offsets": the role and the action are Messages too).
func say(l *i18n.Localizer, m i18n.Message) string {
	args := make([]any, len(m.Args))
	copy(args, m.Args)
	for i := 1; i < len(args); i += 2 {
		if v, ok := args[i].(i18n.Message); ok {
			args[i] = say(l, v)
		}
	}
	return l.T(m.ID, args...)
}
