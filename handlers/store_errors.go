package handlers

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/i18n"
	"rmqconsole/store"
)

// StoreUnavailableCode is the API code of an answer the console could not give because
// its own database could not be reached, did not answer in time or could not take a
// write (store.ErrUnavailable): 503, the console's fault, not the caller's.
const StoreUnavailableCode = "store_unavailable"

// StoreFailure is a failure of the console's own database said with m, for the places
// that name what failed (signing in, checking a token): 503 when the database is
// unavailable (errorStatus answers the same for every other request), 500 otherwise.
func StoreFailure(err error, m i18n.Message) *UserError {
	if errors.Is(err, store.ErrUnavailable) {
		return userError(http.StatusServiceUnavailable, StoreUnavailableCode, m)
	}
	return userError(http.StatusInternalServerError, "internal", m)
}

// sayStoreUnavailable is the sentence of a request the database failed: nothing was
// changed by a write (a write is one statement or one transaction, and a change of a
// cluster that was made and not recorded says so itself: store.UnrecordedError).
func sayStoreUnavailable(c *gin.Context, err error) string {
	why := err.Error()
	var ue *store.UnavailableError
	if errors.As(err, &ue) {
		why = ue.Error()
	}
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead:
		return tr(c).T("error.store_unavailable.read", "Error", why)
	}
	return tr(c).T("error.store_unavailable.write", "Error", why)
}
