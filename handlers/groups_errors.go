package handlers

import (
	"errors"

	"github.com/gin-gonic/gin"

	"rmqconsole/groups"
	"rmqconsole/i18n"
)

// groupsError is err as the request's language says it, when it is a sentence of the
// groups service (a group or client no broker knows); other errors as they are. The
// status and code stay those of err.
func groupsError(c *gin.Context, err error) error {
	if !errors.Is(err, groups.ErrGroupNotFound) && !errors.Is(err, groups.ErrClientNotFound) {
		return err
	}
	status, code := errorStatus(err)
	return &UserError{Status: status, Code: code, Message: groups.SayNote(i18n.From(c.Request.Context()), err.Error())}
}
