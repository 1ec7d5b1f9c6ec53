package cluster

import (
	"errors"

	"rmqconsole/rocketmq"
)

// AccessSentence says why a broker refused the console's credentials and what to
// check, for the page that needed the broker: "Broker broker-a refused access key
// rmqc-admin: the signature does not match — check RMQC_SECRET_KEY." It names the
// access key, never the secret. ok is false when err is not an ACL refusal.
func AccessSentence(broker string, err error) (sentence string, ok bool) {
	var ae *rocketmq.AccessError
	if !errors.As(err, &ae) {
		return "", false
	}
	who := "Broker " + broker + " refused access key " + ae.AccessKey
	switch ae.Denial {
	case rocketmq.DenialNoCredentials:
		return "Broker " + broker + " has ACL on and refused a request without credentials — set RMQC_ACCESS_KEY and RMQC_SECRET_KEY (or RMQC_SECRET_KEY_FILE).", true
	case rocketmq.DenialBadSignature:
		return who + ": the signature does not match — check RMQC_SECRET_KEY (on 5.x, the user's password).", true
	case rocketmq.DenialUnknownKey:
		return who + ": the broker has no such account or user — check RMQC_ACCESS_KEY (5.x keeps users per broker: is the user created on every broker?).", true
	case rocketmq.DenialDisabled:
		return who + ": the user is disabled on this broker.", true
	case rocketmq.DenialNotAdmin:
		return who + ": it is not an admin account — this needs an account with admin: true in plain_acl.yml.", true
	default:
		what := "this request"
		if ae.Resource != "" {
			what = ae.Resource
		}
		return who + ": no permission for " + what + " — grant the user a policy for it (ACL 2.0) or the account the permission (plain ACL).", true
	}
}
