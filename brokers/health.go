package brokers

import (
	"slices"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Health is a cluster at a glance, for a console that manages several: whether a
// NameServer answered, how many broker processes answered, and their versions.
type Health struct {
	NameServerOK bool `json:"nameServerOk"`
	// NameServer is the first that answered ("" when none did).
	NameServer string   `json:"nameServer,omitempty"`
	BrokersUp  int      `json:"brokersUp"`
	Brokers    int      `json:"brokers"`
	Versions   []string `json:"versions"`
	// Failures are the overview's: what did not answer.
	Failures []cluster.BrokerFailure `json:"failures,omitempty"`
	// Errors names what could not be read, as the overview says it. Deprecated: use
	// Failures.
	Errors []string `json:"errors,omitempty"`
	// Problems are Errors as Messages, for a page to say in its reader's language.
	Problems []i18n.Message `json:"-"`
}

// Health sums the overview up.
func (o *Overview) Health() Health {
	h := Health{Failures: o.Failures, Errors: o.Errors, Problems: o.Problems, Versions: []string{}}
	for _, ns := range o.NameServers {
		if ns.OK && !h.NameServerOK {
			h.NameServerOK, h.NameServer = true, ns.Addr
		}
	}
	for _, b := range o.Brokers {
		h.Brokers++
		if b.Error == "" {
			h.BrokersUp++
		}
		if b.Version != "" {
			v := rocketmq.BrokerVersion{Name: b.Version}.String()
			if !slices.Contains(h.Versions, v) {
				h.Versions = append(h.Versions, v)
			}
		}
	}
	slices.Sort(h.Versions)
	return h
}
