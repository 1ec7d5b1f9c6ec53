package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"rmqconsole/auth"
	"rmqconsole/i18n"
	"rmqconsole/store"
	"rmqconsole/views"
)

// TokenService is what the API token pages need from package auth.
type TokenService interface {
	Tokens(ctx context.Context, user string) ([]auth.Token, error)
	CreateToken(ctx context.Context, user, name, createdBy string) (string, *auth.Token, error)
	RevokeToken(ctx context.Context, user string, id int64) (*auth.Token, error)
	UserByName(ctx context.Context, name string) (*auth.User, error)
	Users(ctx context.Context) ([]auth.User, error)
}

// Tokens are the API token pages and API of one user: /users/{user}/tokens and
// /api/v1/users/{user}/tokens. Who may reach which user's tokens is decided by the
// access rules in front of these handlers (the owner, or an admin).
type Tokens struct {
	*Env
	Auth TokenService
}

// TokensJSON is the answer of GET /api/v1/users/{user}/tokens.
type TokensJSON struct {
	User   string       `json:"user"`
	Tokens []auth.Token `json:"tokens"`
}

// Mine is GET /tokens: the signed-in user's tokens page.
func (h *Tokens) Mine(c *gin.Context) {
	user := SignedInUser(c)
	if user == "" {
		h.render(c, http.StatusOK, h.page(c, tr(c).T("tokens.title"), ""), views.TokensPage(views.TokensVM{NoUsers: true}))
		return
	}
	c.Redirect(http.StatusSeeOther, views.TokensURL(user))
}

// List is GET /users/{user}/tokens.
func (h *Tokens) List(c *gin.Context) {
	vm, err := h.tokensVM(c, c.Param("user"))
	if err != nil {
		h.Fail(c, err)
		return
	}
	h.render(c, http.StatusOK, h.page(c, tr(c).T("tokens.title"), ""), views.TokensPage(*vm))
}

// ListAPI is GET /api/v1/users/{user}/tokens.
func (h *Tokens) ListAPI(c *gin.Context) {
	user := c.Param("user")
	if _, err := h.owner(c.Request.Context(), user); err != nil {
		h.Fail(c, err)
		return
	}
	ts, err := h.Auth.Tokens(c.Request.Context(), user)
	if err != nil {
		h.Fail(c, tokenStoreError(err))
		return
	}
	c.JSON(http.StatusOK, TokensJSON{User: user, Tokens: ts})
}

// owner returns the user whose tokens are asked for, or a 404 saying how to add one.
func (h *Tokens) owner(ctx context.Context, name string) (*auth.User, error) {
	u, err := h.Auth.UserByName(ctx, name)
	if err != nil {
		return nil, tokenUserError(name, err)
	}
	return u, nil
}

// tokenUserError is a failure of a call about user's tokens: a 404 saying how to add the
// user when there is no such user, a database failure otherwise.
func tokenUserError(user string, err error) error {
	var inv *auth.InvalidError
	if errors.As(err, &inv) {
		return &UserError{Status: http.StatusBadRequest, Code: "bad_user", Message: inv.Reason, Say: inv.Say}
	}
	if errors.Is(err, auth.ErrUserNotFound) {
		return userError(http.StatusNotFound, "user_not_found", i18n.M("tokens.no_user", "User", user))
	}
	return tokenStoreError(err)
}

// tokensVM builds the page of user's tokens.
func (h *Tokens) tokensVM(c *gin.Context, user string) (*views.TokensVM, error) {
	ctx := c.Request.Context()
	u, err := h.owner(ctx, user)
	if err != nil {
		return nil, err
	}
	ts, err := h.Auth.Tokens(ctx, user)
	if err != nil {
		return nil, tokenStoreError(err)
	}
	vm := &views.TokensVM{User: u.Name, Self: u.Name == SignedInUser(c), Role: u.Role.String()}
	for _, t := range ts {
		row := views.TokenRow{ID: t.ID, Name: t.Name, Hint: t.Hint, CreatedBy: t.CreatedBy,
			Created: views.TimeUTC(t.CreatedAt), LastUsed: tr(c).T("tokens.never"),
			RevokeURL: views.TokensURL(u.Name) + "/" + strconv.FormatInt(t.ID, 10) + "/revoke"}
		if !t.LastUsedAt.IsZero() {
			row.LastUsed = views.TimeUTC(t.LastUsedAt)
		}
		if t.Revoked() {
			row.Revoked = views.TimeUTC(t.RevokedAt)
		}
		vm.Tokens = append(vm.Tokens, row)
	}
	// Admins may manage everyone's tokens: give them the way there.
	if CallerRole(c).Allows(auth.Admin) && SignedInUser(c) != "" {
		us, err := h.Auth.Users(ctx)
		if err != nil {
			return nil, tokenStoreError(err)
		}
		for _, o := range us {
			vm.Users = append(vm.Users, o.Name)
		}
	}
	return vm, nil
}

// tokenStoreError turns a failure of the console's own database into a sentence; it is
// not a broker failure. An unavailable database is said as for every request (503).
func tokenStoreError(err error) error {
	var ue *UserError
	if errors.As(err, &ue) || errors.Is(err, store.ErrUnavailable) {
		return err
	}
	return userError(http.StatusInternalServerError, "internal", i18n.M("error.database", "Error", err.Error()))
}
