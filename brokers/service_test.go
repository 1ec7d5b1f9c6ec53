package brokers

import "testing"

// Keys that name a secret are masked whatever their case; others are shown as they are.
func TestMaskedHidesSecrets(t *testing.T) {
	cfg := map[string]string{
		"brokerName": "broker-a", "secretKey": "s3cr3t", "rocketmqHome": "/opt/rmq",
		"authenticationMetadataPassword": "pw", "accessKey": "ak", "ACCESSKEY_OTHER": "ak2",
		"innerClientToken": "t", "emptySecret": "",
	}
	got := map[string]ConfigEntry{}
	for _, e := range masked(cfg) {
		got[e.Key] = e
	}
	for _, k := range []string{"secretKey", "authenticationMetadataPassword", "accessKey", "ACCESSKEY_OTHER", "innerClientToken"} {
		if e := got[k]; !e.Masked || e.Value != MaskedValue {
			t.Errorf("%s shown as %+v", k, e)
		}
	}
	for _, k := range []string{"brokerName", "rocketmqHome"} {
		if e := got[k]; e.Masked || e.Value != cfg[k] {
			t.Errorf("%s masked: %+v", k, e)
		}
	}
	if e := got["emptySecret"]; e.Masked {
		t.Errorf("an empty secret is shown as empty, not masked: %+v", e)
	}
}
