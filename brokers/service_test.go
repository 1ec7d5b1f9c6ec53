package brokers

import "testing"

// A secret is masked whether its key names it, it is one of RocketMQ's credential keys,
// or only its value holds it; the rest of a real broker's configuration is shown as it is.
func TestMaskedHidesSecretsByKeyAndByValue(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		masked     bool
	}{
		// Keys that name a secret, in any case and spelling.
		{"secretKey", "s3cr3t", true},
		{"authenticationMetadataPassword", "pw", true},
		{"accessKey", "ak", true},
		{"ACCESSKEY_OTHER", "ak2", true},
		{"innerClientToken", "t", true},
		{"tls.server.keyPassword", "changeit", true},
		{"access_key", "ak", true},
		{"emptySecret", "", false},
		// RocketMQ's own credential keys (5.x AuthConfig, BrokerConfig, NettyClientConfig).
		{"initAuthenticationUser", `{"username":"rocketmq","password":"12345678"}`, true},
		{"innerClientAuthenticationCredentials", `{"accessKey":"rocketmq","secretKey":"12345678"}`, true},
		{"metricsGrpcExporterHeader", "x-otlp-api-key:abc123", true},
		{"metricsGrpcExporterHeader", "", false},
		{"socksProxyConfig", `{"10.0.*":{"addr":"10.1.1.1:1080","username":"u","password":"p"}}`, true},
		{"socksProxyConfig", "{}", false},
		// Values that hold a secret under a key that does not say so.
		{"customUser", `{"username":"ops","password":"hunter2"}`, true},
		{"nested", `[{"name":"a","auth":{"secretKey":"x"}}]`, true},
		{"jsonToken", `{"api_key":"x"}`, true},
		{"someProperty", "user=ops;password=hunter2", true},
		{"someProperty", "secretKey: abc", true},
		{"exporterHeaders", "Authorization:Bearer eyJhbGciOi.x.y", true},
		{"exporterHeaders", "Authorization: Basic b3BzOmh1bnRlcjI=", true},
		{"otelTarget", "https://ops:hunter2@otel.example:4317", true},
		{"namesrvAddr", "10.0.0.1:9876;http://ops:pw@10.0.0.2:8080", true},
		{"tlsKey", "-----BEGIN RSA PRIVATE KEY-----\nMIIE...", true},
		// A real 5.3.3 broker's values, and JSON without a secret: shown.
		{"brokerName", "broker-a", false},
		{"rocketmqHome", "/opt/rmq", false},
		{"namesrvAddr", "127.0.0.1:19876", false},
		{"otelTarget", "https://otel.example:4317", false},
		{"configBlackList", "configBlackList;brokerConfigPath", false},
		{"messageDelayLevel", "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h", false},
		{"authenticationProvider", "org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider", false},
		{"authorizationEnabled", "true", false},
		{"authorizationWhitelist", "10.0.0.0/8", false},
		{"accessMessageInMemoryMaxRatio", "40", false},
		{"appendTopicForTimerDeleteKey", "false", false},
		{"metricsLabel", "env:prod,zone:a", false},
		{"someJSON", `{"username":"ops","role":"admin"}`, false},
		{"notJSON", "{password", false},
	} {
		got := masked(map[string]string{tc.key: tc.value})[0]
		switch {
		case tc.masked && (!got.Masked || got.Value != MaskedValue):
			t.Errorf("%s=%q shown as %+v, want it masked", tc.key, tc.value, got)
		case !tc.masked && (got.Masked || got.Value != tc.value):
			t.Errorf("%s=%q shown as %+v, want it as it is", tc.key, tc.value, got)
		}
	}
}
