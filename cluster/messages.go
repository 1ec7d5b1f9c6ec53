package cluster

import (
	"errors"
	"strconv"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Message is f for a page, said in the reader's language: the broker, its address and
// topic, then the reason (which is the broker's own words, in English).
func (f BrokerFailure) Message() i18n.Message {
	kv := []any{"Broker", f.Broker, "Addr", f.Addr, "Topic", f.Topic, "Reason", f.Reason()}
	switch {
	case f.Addr != "" && f.Topic != "":
		return i18n.M("cluster.failure.addr_topic", kv...)
	case f.Addr != "":
		return i18n.M("cluster.failure.addr", kv...)
	case f.Topic != "":
		return i18n.M("cluster.failure.topic", kv...)
	}
	return i18n.M("cluster.failure", kv...)
}

// AccessMessage says why a broker refused the console's credentials and what to
// check, for the page that needed the broker, in the request's language: "Broker
// broker-a refused access key rmqc-admin: the signature does not match — check
// RMQC_SECRET_KEY." It names the access key, never the secret. ok is false when err is
// not an ACL refusal.
func AccessMessage(broker string, err error) (i18n.Message, bool) {
	var ae *rocketmq.AccessError
	if !errors.As(err, &ae) {
		return i18n.Message{}, false
	}
	kv := []any{"Broker", broker, "Key", ae.AccessKey}
	switch ae.Denial {
	case rocketmq.DenialNoCredentials:
		return i18n.M("cluster.access.no_credentials", kv...), true
	case rocketmq.DenialBadSignature:
		return i18n.M("cluster.access.bad_signature", kv...), true
	case rocketmq.DenialUnknownKey:
		return i18n.M("cluster.access.unknown_key", kv...), true
	case rocketmq.DenialDisabled:
		return i18n.M("cluster.access.disabled", kv...), true
	case rocketmq.DenialNotAdmin:
		return i18n.M("cluster.access.not_admin", kv...), true
	}
	if ae.Resource != "" {
		return i18n.M("cluster.access.no_permission", append(kv, "Resource", ae.Resource)...), true
	}
	return i18n.M("cluster.access.no_permission.request", kv...), true
}

// kindIDs name in the catalogues what a checked name names.
var kindIDs = map[string]string{"topic": "cluster.kind.topic", "consumer group": "cluster.kind.group",
	"group": "cluster.kind.group", "broker": "cluster.kind.broker"}

// Say is the sentence of e as a Message, for a page to say in its reader's language.
func (e *NameError) Say() i18n.Message {
	var kind any = e.Kind
	if id, ok := kindIDs[e.Kind]; ok {
		kind = i18n.M(id)
	}
	if e.TooLong {
		return i18n.M("cluster.name.too_long", "Kind", kind, "Len", len(e.Name), "Max", rocketmq.MaxNameLen)
	}
	return i18n.M("cluster.name.bad_chars", "Kind", kind, "Name", strconv.Quote(short(e.Name)))
}
