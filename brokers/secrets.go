package brokers

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// MaskedValue stands in for a secret's value.
const MaskedValue = "••••••"

// credentialKeys are the keys of RocketMQ's broker configuration (GET_BROKER_CONFIG
// answers BrokerConfig, MessageStoreConfig, NettyServerConfig, NettyClientConfig and,
// from 5.3, AuthConfig) whose values are credentials although their names do not say
// so. 4.9.x keeps no credential in the broker configuration: plain ACL accounts live in
// plain_acl.yml, and aclEnable is a switch.
var credentialKeys = []string{
	"initAuthenticationUser",               // 5.3+ AuthConfig: the first (Super) user, {"username","password"}
	"innerClientAuthenticationCredentials", // 5.3+ AuthConfig: what the broker signs its own calls with, {"accessKey","secretKey"}
	"metricsGrpcExporterHeader",            // 5.x BrokerConfig: headers for the OTLP collector, "name:value,…" (an Authorization or API key)
	"socksProxyConfig",                     // 5.x NettyClientConfig: SOCKS proxies, JSON with "username" and "password"
}

// secretWords mark a name (a configuration key, a JSON field, the key of a key=value
// pair in a value) whose value is a secret.
var secretWords = []string{"secret", "password", "passwd", "accesskey", "apikey", "privatekey", "token", "credential"}

// namesSecret reports whether a name holds one of secretWords, in any case and with
// any - or _ between its words (access_key, API-Key).
func namesSecret(name string) bool {
	n := strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(name))
	return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(n, w) })
}

// secretPair finds a secret named in a value: "password=…", "secretKey: …",
// "Authorization:Bearer …", "x-api-key=…", a quoted JSON-like "token":"…".
var secretPair = regexp.MustCompile(`(?i)(secret|passw(or)?d|pwd|access[-_.]?key|api[-_.]?key|private[-_.]?key|token|credential|authorization)[\w.-]*["']?\s*[:=]`)

// bearerOrPEM finds credentials that name nothing: an HTTP Authorization value and a
// PEM private key.
var bearerOrPEM = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[a-z0-9._~+/=-]{8,}|-----BEGIN [A-Z ]*PRIVATE KEY-----`)

// IsSecret reports whether a configuration value is never shown: its key is one of
// RocketMQ's credential keys or names a secret (secret, password, accessKey, token…),
// or the value holds one whatever its key (JSON with a password, secretKey or token
// field at any depth, key=value pairs naming one, a URL with a password, a bearer
// token, a private key). An empty value has nothing to hide.
func IsSecret(key, value string) bool {
	v := strings.TrimSpace(value)
	switch {
	case v == "" || v == "{}" || v == "[]" || v == "null":
		return false
	case slices.Contains(credentialKeys, key), namesSecret(key):
		return true
	}
	return valueHoldsSecret(v)
}

// valueHoldsSecret looks into a value for a credential.
func valueHoldsSecret(v string) bool {
	var doc any
	if (v[0] == '{' || v[0] == '[') && json.Unmarshal([]byte(v), &doc) == nil && jsonHoldsSecret(doc) {
		return true
	}
	if secretPair.MatchString(v) || bearerOrPEM.MatchString(v) {
		return true
	}
	// A URL with a password (a NameServer or exporter address with user:password@).
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
		if u, err := url.Parse(f); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				return true
			}
		}
	}
	return false
}

// jsonHoldsSecret reports whether a decoded JSON document has a field naming a secret,
// with a value, at any depth.
func jsonHoldsSecret(doc any) bool {
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			if namesSecret(k) && v != nil && v != "" {
				return true
			}
			if jsonHoldsSecret(v) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(d, jsonHoldsSecret)
	}
	return false
}

// masked is a broker's configuration as the console shows it: sorted by key, every
// secret replaced by MaskedValue.
func masked(cfg map[string]string) []ConfigEntry {
	out := make([]ConfigEntry, 0, len(cfg))
	for k, v := range cfg {
		e := ConfigEntry{Key: k, Value: v}
		if IsSecret(k, v) {
			e.Value, e.Masked = MaskedValue, true
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b ConfigEntry) int { return strings.Compare(a.Key, b.Key) })
	return out
}
