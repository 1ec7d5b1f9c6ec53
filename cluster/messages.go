package cluster

import (
	"errors"
	"strings"
	"time"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Message is f for a page, said in the reader's language: the broker, its address and
// topic, then what the console asked and the error (the broker's own words, in English).
func (f BrokerFailure) Message() i18n.Message {
	kv := []any{"Broker", f.Broker, "Addr", f.Addr, "Topic", f.Topic, "Reason", f.reasonMessage()}
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

// opIDs name in the catalogues what the console asks a broker (BrokerFailure.Op).
var opIDs = map[string]string{
	"connections": "cluster.op.connections", "consume directly": "cluster.op.consume_directly",
	"consume stats": "cluster.op.consume_stats", "consumer groups": "cluster.op.consumer_groups",
	"route": "cluster.op.route", "runtime info": "cluster.op.runtime_info", "topic stats": "cluster.op.topic_stats",
	"create or update topic": "cluster.op.create_topic", "delete topic": "cluster.op.delete_topic",
	"group state": "cluster.op.group_state", "polling info": "cluster.op.polling_info", "pull": "cluster.op.pull", "read back": "cluster.op.read_back",
	"reset offset": "cluster.op.reset_offset", "running info": "cluster.op.running_info", "stats": "cluster.op.stats",
	"target": "cluster.op.target", "time behind": "cluster.op.time_behind", "trace settings": "cluster.op.trace_settings",
	"version": "cluster.op.version", "update offset": "cluster.op.update_offset",
}

// opMessage is an operation in the reader's words, "consume stats of billing" too; one
// the catalogues do not know is said as it is.
func opMessage(op string) any {
	if id, ok := opIDs[op]; ok {
		return i18n.M(id)
	}
	if what, name, ok := strings.Cut(op, " of "); ok {
		if id, ok := opIDs[what]; ok {
			return i18n.M("cluster.op.of", "Op", i18n.M(id), "Name", name)
		}
	}
	return op
}

// reasonMessage is Reason in the reader's language.
func (f BrokerFailure) reasonMessage() any {
	var msg any = i18n.M("cluster.op.failed")
	if f.Err != nil {
		msg = ErrorMessage(f.Err)
	}
	if f.Op == "" {
		return msg
	}
	return i18n.M("cluster.op.reason", "Op", opMessage(f.Op), "Error", msg)
}

// ErrorMessage is err for a page: a connection that failed or an answer that did not
// come in the catalogues' words (the network's own reason stays as it is), an error that
// is a catalogue message as itself, any other error, or one wrapped in more words, as it
// says itself.
func ErrorMessage(err error) any {
	var ce *rocketmq.ConnError
	var te *rocketmq.TimeoutError
	var ge goneError
	var m i18n.Message
	switch {
	case errors.As(err, &m) && err.Error() == m.Error():
		return m
	case errors.As(err, &ge) && err.Error() == ge.Error():
		return ge.Say()
	case errors.As(err, &ce) && ce.Err != nil && err.Error() == ce.Error(): // words wrapped around it are kept
		return i18n.M("cluster.err.conn", "Addr", ce.Addr, "Error", ce.Err.Error())
	case errors.As(err, &te) && err.Error() == te.Error():
		return i18n.M("cluster.err.timeout", "Code", te.Code.String(), "Addr", te.Addr, "Elapsed", te.Elapsed.Round(time.Millisecond).String())
	}
	return err.Error()
}

// ErrorSentence is ErrorMessage as one catalogue message, for a list of reasons or a
// result's row: an error without catalogue words is kept as it says itself.
func ErrorSentence(err error) i18n.Message {
	if m, ok := ErrorMessage(err).(i18n.Message); ok {
		return m
	}
	return i18n.Plain(err.Error())
}
