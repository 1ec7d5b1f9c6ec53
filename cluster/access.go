package cluster

// AccessSentence says why a broker refused the console's credentials and what to
// check, for the page that needed the broker: "Broker broker-a refused access key
// rmqc-admin: the signature does not match — check RMQC_SECRET_KEY." It names the
// access key, never the secret. ok is false when err is not an ACL refusal.
func AccessSentence(broker string, err error) (sentence string, ok bool) {
	m, ok := AccessMessage(broker, err)
	if !ok {
		return "", false
	}
	return m.String(), true
}
