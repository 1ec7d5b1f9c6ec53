package cluster

import (
	"errors"
	"testing"

	"rmqconsole/rocketmq"
)

func TestAccessSentences(t *testing.T) {
	cases := []struct {
		denial   rocketmq.Denial
		key      string
		resource string
		want     string
	}{
		{rocketmq.DenialNoCredentials, "", "", "Broker broker-a has ACL on and refused a request without credentials — set RMQC_ACCESS_KEY and RMQC_SECRET_KEY (or RMQC_SECRET_KEY_FILE)."},
		{rocketmq.DenialUnknownKey, "rmqc-nobody", "", "Broker broker-a refused access key rmqc-nobody: the broker has no such account or user — check RMQC_ACCESS_KEY (5.x keeps users per broker: is the user created on every broker?)."},
		{rocketmq.DenialNotAdmin, "rmqc-viewer", "", "Broker broker-a refused access key rmqc-viewer: it is not an admin account — this needs an account with admin: true in plain_acl.yml."},
		{rocketmq.DenialNoPermission, "rmqc-viewer", "Group:billing", "Broker broker-a refused access key rmqc-viewer: no permission for Group:billing — grant the user a policy for it (ACL 2.0) or the account the permission (plain ACL)."},
		{rocketmq.DenialDisabled, "rmqc-old", "", "Broker broker-a refused access key rmqc-old: the user is disabled on this broker."},
	}
	for _, tc := range cases {
		m, ok := AccessMessage("broker-a", &rocketmq.AccessError{AccessKey: tc.key, Denial: tc.denial, Resource: tc.resource})
		if got := m.String(); !ok || got != tc.want {
			t.Errorf("denial %d: %q, %v\nwant %q", tc.denial, m, ok, tc.want)
		}
	}
	if _, ok := AccessMessage("broker-a", errors.New("i/o timeout")); ok {
		t.Error("a timeout is not an ACL refusal")
	}
}
