package oidcprovider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
)

// sessionCookie is the provider's own session: signed in once, a user is not asked again
// until the session ends (RP-initiated logout).
const sessionCookie = "op_session"

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body>
<h1 id="op-title">Test identity provider</h1>
{{if .Error}}<p id="op-error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login" id="op-login">
<input type="hidden" name="authRequestID" value="{{.ID}}">
<label for="op-username">User name</label> <input id="op-username" name="username" value="{{.Name}}" autofocus>
<label for="op-password">Password</label> <input id="op-password" name="password" type="password">
<button type="submit" id="op-submit">Sign in</button>
</form>
</body></html>`))

type loginVM struct{ ID, Name, Error string }

// login is the provider's sign-in page: GET shows it (or, with a session, signs the
// request in at once), POST checks the password.
func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id := r.Form.Get("authRequestID")
	if id == "" {
		http.Error(w, "authRequestID missing", http.StatusBadRequest)
		return
	}
	show := func(status int, vm loginVM) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		loginPage.Execute(w, vm)
	}
	switch r.Method {
	case http.MethodGet:
		if ck, err := r.Cookie(sessionCookie); err == nil {
			p.st.mu.Lock()
			user, ok := p.st.sessions[ck.Value]
			p.st.mu.Unlock()
			if ok {
				p.signedIn(w, r, id, user)
				return
			}
		}
		show(http.StatusOK, loginVM{ID: id})
	case http.MethodPost:
		name, password := r.PostForm.Get("username"), r.PostForm.Get("password")
		p.st.mu.Lock()
		u, ok := p.st.users[name]
		p.st.mu.Unlock()
		if !ok || u.Password != password {
			show(http.StatusUnauthorized, loginVM{ID: id, Name: name, Error: "Wrong user name or password."})
			return
		}
		sid := randomID()
		p.st.mu.Lock()
		p.st.sessions[sid] = u.Name
		p.st.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: sid, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		p.signedIn(w, r, id, u.Name)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// signedIn completes the authorization request and hands it back to op, which
// redirects to the relying party with a code.
func (p *Provider) signedIn(w http.ResponseWriter, r *http.Request, id, user string) {
	if err := p.st.complete(id, user); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, "/authorize/callback?id="+url.QueryEscape(id), http.StatusFound)
}

// tamper wraps the token endpoint: for a client with TamperIDToken, the ID token's
// claims are changed after it was signed (its user becomes a member of rmq-admins),
// as someone between the provider and the console might try.
func (p *Provider) tamper(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _, ok := r.BasicAuth()
		if !ok {
			r.ParseForm()
			id = r.PostForm.Get("client_id")
		}
		if id, err := url.QueryUnescape(id); err == nil {
			p.st.mu.Lock()
			c := p.st.clients[id]
			p.st.mu.Unlock()
			if c != nil && c.TamperIDToken {
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				body := rec.Body.Bytes()
				var resp map[string]any
				if rec.Code == http.StatusOK && json.Unmarshal(body, &resp) == nil {
					if tok, ok := resp["id_token"].(string); ok {
						resp["id_token"] = editClaims(tok)
						body, _ = json.Marshal(resp)
					}
				}
				for k, v := range rec.Header() {
					if k != "Content-Length" {
						w.Header()[k] = v
					}
				}
				w.WriteHeader(rec.Code)
				w.Write(body)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// editClaims adds rmq-admins to the groups of a signed JWT, keeping its header and
// signature.
func editClaims(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return jwt
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return jwt
	}
	var claims map[string]any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if dec.Decode(&claims) != nil {
		return jwt
	}
	groups, _ := claims["groups"].([]any)
	claims["groups"] = append(groups, "rmq-admins")
	edited, _ := json.Marshal(claims)
	parts[1] = base64.RawURLEncoding.EncodeToString(edited)
	return strings.Join(parts, ".")
}
