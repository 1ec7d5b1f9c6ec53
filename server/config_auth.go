package server

import (
	"fmt"
	"net/http"
	"time"

	"rmqconsole/auth"
	"rmqconsole/i18n"
)

// parseAuthSettings reads the access-control settings into c (called by ParseConfig).
func parseAuthSettings(c *Config, get func(string) string, bad func(name, reason string) error) error {
	var err error
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"session-idle", &c.SessionIdle}, {"session-max", &c.SessionMax}} {
		if *d.dst, err = time.ParseDuration(get(d.name)); err != nil || *d.dst <= 0 {
			return bad(d.name, "want a positive duration such as 30m or 8h")
		}
	}
	if c.SessionIdle > c.SessionMax {
		return bad("session-idle", fmt.Sprintf("longer than --session-max (%s): a session would end before it could idle out", c.SessionMax))
	}
	if c.TrustedProxies, err = auth.ParseTrustedProxies(get("trusted-proxies")); err != nil {
		return bad("trusted-proxies", err.Error())
	}
	var m i18n.Message
	if c.AllowedHosts, m = parseAllowedHosts(get("allowed-hosts")); m.ID != "" {
		err := bad("allowed-hosts", m.String())
		if ce, ok := err.(*ConfigError); ok {
			ce.Say = m
		}
		return err
	}
	c.ProxyUserHeader, c.ProxyRoleHeader = http.CanonicalHeaderKey(get("proxy-user-header")), http.CanonicalHeaderKey(get("proxy-role-header"))
	if c.ProxyUserHeader == "" {
		return bad("proxy-user-header", "must not be empty")
	}
	if c.ProxyRoleHeader == "" {
		return bad("proxy-role-header", "must not be empty")
	}
	c.TLSCert, c.TLSKey = get("tls-cert"), get("tls-key")
	if (c.TLSCert == "") != (c.TLSKey == "") {
		if c.TLSCert == "" {
			return bad("tls-cert", "--tls-key is set: give the certificate too")
		}
		return bad("tls-key", "--tls-cert is set: give its private key too")
	}
	return nil
}
