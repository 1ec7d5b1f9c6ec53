package server

import (
	"errors"
	"strconv"

	"rmqconsole/auth"
	"rmqconsole/i18n"
)

// cliSay is err as the command line prints it, in l's language: the catalogue's
// sentence when err carries one (a Message, a refused input, a wrong setting), else its
// own words.
func cliSay(l *i18n.Localizer, err error) string {
	var m i18n.Message
	if errors.As(err, &m) {
		return l.Say(m)
	}
	var inv *auth.InvalidError
	if errors.As(err, &inv) && inv.Say.ID != "" {
		return l.Say(inv.Say)
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		reason := ce.Reason
		if id, ok := configReasons[reason]; ok {
			reason = l.T(id)
		}
		if ce.Say.ID != "" {
			reason = l.Say(ce.Say)
		}
		return l.T("cli.config.invalid", "Setting", ce.Setting, "Env", ce.Env, "Value", strconv.Quote(ce.Value), "Reason", reason)
	}
	var fe *ClusterFileError
	if errors.As(err, &fe) {
		reason := fe.Reason
		if fe.Say.ID != "" {
			reason = l.Say(fe.Say)
		}
		s := l.T("cli.clusterfile", "File", fe.File)
		if fe.Cluster != "" {
			s += l.T("cli.clusterfile.cluster", "Cluster", fe.Cluster)
		}
		if fe.Field != "" {
			s += l.T("cli.clusterfile.field", "Field", fe.Field)
		}
		return s + reason
	}
	return err.Error()
}

// configReasons are the catalogue ids of the fixed reasons a setting is refused for;
// reasons with values in them (a parse error) are printed as they are.
var configReasons = map[string]string{
	"want host:port, e.g. 127.0.0.1:8090":                              "cli.config.reason.listen",
	"must not be empty":                                                "cli.config.reason.not_empty",
	"want a positive duration such as 5s or 1500ms":                    "cli.config.reason.duration",
	"want debug, info, warn or error":                                  "cli.config.reason.log_level",
	"want text or json":                                                "cli.config.reason.log_format",
	"want true or false":                                               "cli.config.reason.bool",
	"want a duration of at least 100ms, such as 1s":                    "cli.config.reason.group_poll",
	"want 0 (off) or a duration of at least 1s, such as 30s":           "cli.config.reason.metrics_interval",
	"want a duration of at least 100ms, such as 2s":                    "cli.config.reason.alert_retry",
	"want 0 (keep forever) or a duration of at least 1h, such as 168h": "cli.config.reason.lag_retention",
	"want 0 (keep forever) or a duration of at least 1h, such as 720h": "cli.config.reason.rebalance_retention",
	"--tls-key is set: give the certificate too":                       "cli.config.reason.tls_cert",
	"--tls-cert is set: give its private key too":                      "cli.config.reason.tls_key",
	"want a whole number of at least 1":                                "cli.config.reason.count",
}
