package server

import (
	"errors"
	"strconv"

	"rmqconsole/fault"
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
	if fe := fault.As(err); fe != nil {
		return fe.Say(l)
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		return l.T("cli.config.invalid", "Setting", ce.Setting, "Env", ce.Env, "Value", strconv.Quote(ce.Value), "Reason", l.Say(ce.Say))
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
