package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/views"
)

// Revoke is POST /users/{user}/tokens/{id}/revoke.
func (h *Tokens) Revoke(c *gin.Context) {
	if _, err := h.revokeToken(c); err != nil {
		h.Fail(c, err)
		return
	}
	if !isHTMX(c) {
		c.Redirect(http.StatusSeeOther, views.TokensURL(c.Param("user")))
		return
	}
	vm, err := h.tokensVM(c, c.Param("user"))
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.renderFragment(c, http.StatusOK, views.TokensSection(*vm))
}

// RevokeAPI is DELETE /api/v1/users/{user}/tokens/{id}; it answers the revoked token.
func (h *Tokens) RevokeAPI(c *gin.Context) {
	tok, err := h.revokeToken(c)
	if err != nil {
		h.Fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"token": tok})
}

func (h *Tokens) revokeToken(c *gin.Context) (*auth.Token, error) {
	user := c.Param("user")
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, fault.InvalidField("id", "tokens.bad_id", "ID", strconv.Quote(c.Param("id"))).Because("bad_token_id")
	}
	if _, err := h.owner(c.Request.Context(), user); err != nil {
		return nil, err
	}
	tok, err := h.Auth.RevokeToken(c.Request.Context(), user, id)
	if errors.Is(err, auth.ErrTokenNotFound) {
		return nil, fault.Wrap(err, fault.NotFound, "tokens.not_found", "User", user, "ID", id).Because("token_not_found")
	}
	if err != nil {
		return nil, tokenStoreError(err)
	}
	h.Log.Info("API token revoked", "user", user, "token", id, "by", Actor(c))
	return tok, nil
}
