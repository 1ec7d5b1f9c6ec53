package handlers

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/fault"
	"rmqconsole/i18n"
	"rmqconsole/store"
)

// StoreUnavailableCode is the API code of an answer the console could not give because
// its own database could not be reached, did not answer in time or could not take a
// write: 503, the console's fault, not the caller's.
const StoreUnavailableCode = store.ReasonUnavailable

// StoreFailure is a failure of the console's own database said with m, for the places
// that name what failed (signing in, checking a token): 503 when the database is
// unavailable (as for every other request), the console's own failure (500) otherwise.
func StoreFailure(err error, m i18n.Message) error {
	fe := &fault.Error{Code: fault.Internal, Msg: m, Err: err}
	if s := fault.As(err); s != nil && s.Reason == StoreUnavailableCode {
		fe.Code, fe.Reason = fault.Unavailable, StoreUnavailableCode
	}
	return fe
}

// storeSentence is fe's sentence for request c: the database's failure of a request for
// a change says that nothing was changed (a write is one statement or one transaction,
// and a change of a cluster that was made and not recorded says so itself).
func storeSentence(c *gin.Context, fe *fault.Error) i18n.Message {
	m := fe.Msg
	if fe.Reason == StoreUnavailableCode && m.ID == "error.store_unavailable.read" {
		switch c.Request.Method {
		case http.MethodGet, http.MethodHead:
		default:
			m.ID = "error.store_unavailable.write"
		}
	}
	return m
}
