package server

import (
	"net/http"

	"rmqconsole/auth"
	"rmqconsole/i18n"
)

// parseAuthSettings reads the access-control settings into c (called by ParseConfig).
func parseAuthSettings(c *Config, v settingValues) error {
	var err error
	if c.SessionIdle, err = v.duration("session-idle", 1, false, "cli.config.reason.session_duration"); err != nil {
		return err
	}
	if c.SessionMax, err = v.duration("session-max", 1, false, "cli.config.reason.session_duration"); err != nil {
		return err
	}
	if c.SessionIdle > c.SessionMax {
		return v.bad("session-idle", "cli.config.reason.session_idle", "Max", c.SessionMax.String())
	}
	if c.TrustedProxies, err = auth.ParseTrustedProxies(v.get("trusted-proxies")); err != nil {
		return v.bad("trusted-proxies", "cli.config.reason.error", "Error", err.Error())
	}
	var m i18n.Message
	if c.AllowedHosts, m = parseAllowedHosts(v.get("allowed-hosts")); m.ID != "" {
		return v.bad("allowed-hosts", m.ID, m.Args...)
	}
	c.ProxyUserHeader, c.ProxyRoleHeader = http.CanonicalHeaderKey(v.get("proxy-user-header")), http.CanonicalHeaderKey(v.get("proxy-role-header"))
	if c.ProxyUserHeader == "" {
		return v.bad("proxy-user-header", "cli.config.reason.not_empty")
	}
	if c.ProxyRoleHeader == "" {
		return v.bad("proxy-role-header", "cli.config.reason.not_empty")
	}
	c.TLSCert, c.TLSKey = v.get("tls-cert"), v.get("tls-key")
	if (c.TLSCert == "") != (c.TLSKey == "") {
		if c.TLSCert == "" {
			return v.bad("tls-cert", "cli.config.reason.tls_cert")
		}
		return v.bad("tls-key", "cli.config.reason.tls_key")
	}
	return nil
}
