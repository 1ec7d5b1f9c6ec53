package handlers

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/freetext"
	"rmqconsole/views"
)

// CreateTokenRequest is the body of POST /api/v1/users/{user}/tokens.
type CreateTokenRequest struct {
	Name string `json:"name"`
}

// CreatedTokenJSON answers POST /api/v1/users/{user}/tokens. Secret is shown this once.
type CreatedTokenJSON struct {
	Token  auth.Token `json:"token"`
	Secret string     `json:"secret"`
}

// Create is POST /users/{user}/tokens: it creates a token and shows its secret once.
func (h *Tokens) Create(c *gin.Context) {
	user, name := c.Param("user"), c.PostForm("name")
	secret, tok, err := h.Auth.CreateToken(c.Request.Context(), user, name, Actor(c))
	var inv *auth.InvalidError
	if errors.As(err, &inv) {
		vm, verr := h.tokensVM(c, user)
		if verr != nil {
			h.Fail(c, verr)
			return
		}
		vm.Name, vm.Error = freetext.Shown(name), sayInvalid(tr(c), inv)
		if isHTMX(c) {
			// htmx swaps only 2xx answers: the refusal comes as the section with the
			// sentence next to the field, so the user sees it.
			h.renderFragment(c, http.StatusOK, views.TokensSection(*vm))
			return
		}
		h.render(c, http.StatusUnprocessableEntity, h.page(c, tr(c).T("tokens.title"), ""), views.TokensPage(*vm))
		return
	}
	if err != nil {
		h.Fail(c, tokenUserError(user, err))
		return
	}
	h.Log.Info("API token created", "user", user, "token", tok.ID, "name", tok.Name, "by", Actor(c))
	vm, err := h.tokensVM(c, user)
	if err != nil {
		h.Fail(c, err)
		return
	}
	vm.NewSecret, vm.NewName = secret, tok.Name
	// The secret must not linger in caches or history.
	c.Header("Cache-Control", "no-store")
	if isHTMX(c) {
		h.renderFragment(c, http.StatusOK, views.TokensSection(*vm))
		return
	}
	h.render(c, http.StatusOK, h.page(c, tr(c).T("tokens.title"), ""), views.TokensPage(*vm))
}

// CreateAPI is POST /api/v1/users/{user}/tokens.
func (h *Tokens) CreateAPI(c *gin.Context) {
	var req CreateTokenRequest
	if err := decodeAPIBody(c, &req); err != nil {
		h.Fail(c, bodyError(err, "bad_request", "tokens.api.body"))
		return
	}
	user := c.Param("user")
	secret, tok, err := h.Auth.CreateToken(c.Request.Context(), user, req.Name, Actor(c))
	var inv *auth.InvalidError
	if errors.As(err, &inv) {
		h.Fail(c, &UserError{Status: http.StatusBadRequest, Code: "invalid_" + inv.Field, Message: inv.Reason, Say: inv.Say})
		return
	}
	if err != nil {
		h.Fail(c, tokenUserError(user, err))
		return
	}
	h.Log.Info("API token created", "user", user, "token", tok.ID, "name", tok.Name, "by", Actor(c))
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, CreatedTokenJSON{Token: *tok, Secret: secret})
}
