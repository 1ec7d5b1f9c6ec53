package server

import (
	"os"
	"strconv"
	"strings"
	"time"

	"rmqconsole/auth"
	"rmqconsole/auth/ldap"
	"rmqconsole/auth/oidc"
)

// ssoSettings are the settings of signing in through an OpenID provider or an LDAP
// directory (parsed by parseSSOSettings; README "Signing in with OIDC or LDAP").
var ssoSettings = []setting{
	{"oidc-issuer", "RMQC_OIDC_ISSUER", ""},
	{"oidc-client-id", "RMQC_OIDC_CLIENT_ID", ""},
	{"oidc-client-secret", "RMQC_OIDC_CLIENT_SECRET", ""},
	{"oidc-client-secret-file", "RMQC_OIDC_CLIENT_SECRET_FILE", ""},
	{"oidc-scopes", "RMQC_OIDC_SCOPES", "openid profile email"},
	{"oidc-redirect-url", "RMQC_OIDC_REDIRECT_URL", ""},
	{"oidc-name-claim", "RMQC_OIDC_NAME_CLAIM", "preferred_username"},
	{"oidc-groups-claim", "RMQC_OIDC_GROUPS_CLAIM", "groups"},
	{"oidc-roles", "RMQC_OIDC_ROLES", ""},
	{"oidc-label", "RMQC_OIDC_LABEL", ""},
	{"ldap-url", "RMQC_LDAP_URL", ""},
	{"ldap-start-tls", "RMQC_LDAP_START_TLS", "false"},
	{"ldap-ca-file", "RMQC_LDAP_CA_FILE", ""},
	{"ldap-bind-dn", "RMQC_LDAP_BIND_DN", ""},
	{"ldap-bind-password", "RMQC_LDAP_BIND_PASSWORD", ""},
	{"ldap-bind-password-file", "RMQC_LDAP_BIND_PASSWORD_FILE", ""},
	{"ldap-user-dn", "RMQC_LDAP_USER_DN", ""},
	{"ldap-user-base", "RMQC_LDAP_USER_BASE", ""},
	{"ldap-user-filter", "RMQC_LDAP_USER_FILTER", "(uid={user})"},
	{"ldap-name-attr", "RMQC_LDAP_NAME_ATTR", "uid"},
	{"ldap-group-base", "RMQC_LDAP_GROUP_BASE", ""},
	{"ldap-group-filter", "RMQC_LDAP_GROUP_FILTER", "(member={dn})"},
	{"ldap-roles", "RMQC_LDAP_ROLES", ""},
	{"ldap-timeout", "RMQC_LDAP_TIMEOUT", "5s"},
}

// The sign-in settings follow the others in --help.
func init() { settings = append(settings, ssoSettings...) }

// ssoSecrets are the settings never shown (in --help, in errors).
var ssoSecrets = map[string]bool{"oidc-client-secret": true, "ldap-bind-password": true}

// parseSSOSettings reads the OpenID Connect and LDAP settings into c: each is on when
// its first setting (the issuer, the URL) is given, and then complete or refused.
func parseSSOSettings(c *Config, get func(string) string, bad func(name, reason string) error) error {
	if issuer := get("oidc-issuer"); issuer != "" {
		secret, err := secretOf(get, bad, "oidc-client-secret", "oidc-client-secret-file")
		if err != nil {
			return err
		}
		roles, err := auth.ParseGroupRoles(get("oidc-roles"))
		if err != nil {
			return bad("oidc-roles", err.Error())
		}
		if len(roles) == 0 {
			return bad("oidc-roles", "with --oidc-issuer set, map at least one group to a role (rmq-admins=admin,rmq-ops=operator, or *=viewer for everyone): otherwise nobody who signs in gets one")
		}
		if get("oidc-redirect-url") == "" {
			return bad("oidc-redirect-url", "with --oidc-issuer set, give the console's callback URL as the provider knows it, e.g. https://console.example.org"+oidc.CallbackPath)
		}
		c.OIDC = &oidc.Config{Issuer: issuer, ClientID: get("oidc-client-id"), ClientSecret: secret,
			Scopes: strings.Fields(strings.ReplaceAll(get("oidc-scopes"), ",", " ")), RedirectURL: get("oidc-redirect-url"),
			NameClaim: get("oidc-name-claim"), GroupsClaim: get("oidc-groups-claim"), Roles: roles, Label: get("oidc-label")}
		if _, err := oidc.New(*c.OIDC); err != nil {
			name := "oidc-redirect-url"
			switch {
			case c.OIDC.ClientID == "":
				name = "oidc-client-id"
			case strings.HasPrefix(err.Error(), "issuer"):
				name = "oidc-issuer"
			}
			return bad(name, err.Error())
		}
	}
	if u := get("ldap-url"); u != "" {
		password, err := secretOf(get, bad, "ldap-bind-password", "ldap-bind-password-file")
		if err != nil {
			return err
		}
		roles, err := auth.ParseGroupRoles(get("ldap-roles"))
		if err != nil {
			return bad("ldap-roles", err.Error())
		}
		if len(roles) == 0 {
			return bad("ldap-roles", "with --ldap-url set, map at least one group (its cn) to a role, e.g. rmq-admins=admin,rmq-ops=operator")
		}
		cfg := ldap.Config{URL: u, BindDN: get("ldap-bind-dn"), BindPassword: password, UserDN: get("ldap-user-dn"),
			UserBase: get("ldap-user-base"), UserFilter: get("ldap-user-filter"), NameAttr: get("ldap-name-attr"),
			GroupBase: get("ldap-group-base"), GroupFilter: get("ldap-group-filter"), Roles: roles}
		if cfg.StartTLS, err = strconv.ParseBool(get("ldap-start-tls")); err != nil {
			return bad("ldap-start-tls", "want true or false")
		}
		if cfg.Timeout, err = time.ParseDuration(get("ldap-timeout")); err != nil || cfg.Timeout <= 0 {
			return bad("ldap-timeout", "want a positive duration such as 5s")
		}
		if f := get("ldap-ca-file"); f != "" {
			if cfg.RootCAs, err = ldap.LoadCAs(f); err != nil {
				return bad("ldap-ca-file", "cannot use it: "+pathError(err))
			}
		}
		if cfg.BindDN != "" && password == "" {
			return bad("ldap-bind-password", "the service account --ldap-bind-dn has no password: set RMQC_LDAP_BIND_PASSWORD_FILE")
		}
		if _, err := ldap.New(cfg); err != nil {
			name := "ldap-user-dn"
			switch {
			case strings.Contains(err.Error(), "StartTLS"):
				name = "ldap-start-tls"
			case strings.Contains(err.Error(), "URL"):
				name = "ldap-url"
			}
			return bad(name, err.Error())
		}
		c.LDAP = &cfg
	}
	return nil
}

// secretOf reads a secret given as a setting or in a file named by fileSetting (its
// trailing newline dropped): one or the other, not both.
func secretOf(get func(string) string, bad func(name, reason string) error, setting, fileSetting string) (string, error) {
	v, file := get(setting), get(fileSetting)
	if v != "" && file != "" {
		return "", bad(fileSetting, "set either --"+setting+" or a file holding it, not both")
	}
	if file == "" {
		return v, nil
	}
	return secretFile(get, bad, fileSetting)
}

// secretFile reads the secret in the file fileSetting names (its trailing newline
// dropped): "" when it names none; a file that cannot be read or is empty is refused.
func secretFile(get func(string) string, bad func(name, reason string) error, fileSetting string) (string, error) {
	file := get(fileSetting)
	if file == "" {
		return "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", bad(fileSetting, "cannot read it: "+pathError(err))
	}
	v := strings.TrimRight(string(b), "\r\n")
	if v == "" {
		return "", bad(fileSetting, "the file is empty")
	}
	return v, nil
}
