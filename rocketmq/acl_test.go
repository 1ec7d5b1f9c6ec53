package rocketmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// captureRequests answers every request with SUCCESS and hands it to got.
func captureRequests(got chan<- *command) func(int, net.Conn) {
	return func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			got <- req
			if send(c, reply(req, CodeSuccess, nil, nil)) != nil {
				return
			}
		}
	}
}

// The signatures below were not computed by our code: the first two are the
// reference vectors produced by RocketMQ 5.3.3's AclClientRPCHook (and accepted by
// a broker), the last two come from running that same Java class
// (org.apache.rocketmq.acl.common.AclClientRPCHook in rocketmq-client-5.3.3.jar)
// on the same fields, body and keys.
func TestSignatureMatchesRocketMQsOwnHook(t *testing.T) {
	cases := []struct {
		name      string
		code      RequestCode
		ext       map[string]string
		body      string
		ak, sk    string
		signature string
	}{
		{"broker consume stats", 317, map[string]string{"isOrder": "false"}, "", "rocketmq", "12345678", "uPsb31vk9fcLh22YPjgkkrNyk7g="},
		{"create user, with a body", 3001, map[string]string{"username": "alice"}, `{"password":"alicepass1","userType":"Normal"}`,
			"rocketmq", "12345678", "v2hGF5ThuFZJXQDVc0sUTdoC1XY="},
		{"no ext fields, non-ASCII secret", 21, nil, "", "rmqc-admin", "s3cret-Ключ", "r8QxWCjlF738kTzkwbP9pqx2zwY="},
		{"several fields in key order, UTF-8 body", 222, map[string]string{
			"topic": "orders", "group": "billing", "timestamp": "1764547200000", "isForce": "true", "queueId": "-1",
		}, `{"note":"überprüft"}`, "rmqc-admin", "s3cret-Ключ", "8F5dayelBI7Qp9aeYJK15ly6o2k="},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan *command, 1)
			srv := startFake(t, captureRequests(got))
			c, err := New(Config{NameServer: srv.addr(), Timeout: 2 * time.Second, Credentials: Credentials{AccessKey: tc.ak, SecretKey: tc.sk}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var before map[string]string
			if tc.ext != nil {
				before = map[string]string{}
				for k, v := range tc.ext {
					before[k] = v
				}
			}
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			if _, err := c.call(context.Background(), srv.addr(), tc.code, tc.ext, body); err != nil {
				t.Fatal(err)
			}
			req := <-got
			if req.ExtFields["Signature"] != tc.signature {
				t.Errorf("Signature = %q, want %q (RocketMQ's)", req.ExtFields["Signature"], tc.signature)
			}
			if req.ExtFields["AccessKey"] != tc.ak {
				t.Errorf("AccessKey = %q, want %q", req.ExtFields["AccessKey"], tc.ak)
			}
			for k, v := range req.ExtFields {
				if strings.Contains(v, tc.sk) {
					t.Errorf("ext field %s carries the secret key", k)
				}
			}
			if fmt.Sprint(tc.ext) != fmt.Sprint(before) {
				t.Errorf("the caller's ext fields changed: %v, were %v", tc.ext, before)
			}
		})
	}
}

// 4.9.7 brokers verify QUERY_MESSAGE without _UNIQUE_KEY_QUERY; 5.x brokers do
// so only for request versions up to 399 (V4_9_3). Such requests go out with
// version 399 and the flag unsigned, which both accept; the flag is still sent.
func TestUniqueKeyQuerySignedWithoutTheFlag(t *testing.T) {
	got := make(chan *command, 1)
	srv := startFake(t, captureRequests(got))
	creds := Credentials{AccessKey: "rocketmq", SecretKey: "12345678"}
	c, err := New(Config{NameServer: srv.addr(), Timeout: 2 * time.Second, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ext := map[string]string{"isOrder": "false", "_UNIQUE_KEY_QUERY": "true"}
	if _, err := c.invoke(context.Background(), srv.addr(), CodeQueryMessage, ext, nil); err != nil {
		t.Fatal(err)
	}
	req := <-got
	if req.Version != 399 {
		t.Errorf("version = %d, want 399", req.Version)
	}
	if req.ExtFields["_UNIQUE_KEY_QUERY"] != "true" {
		t.Errorf("_UNIQUE_KEY_QUERY not sent: %v", req.ExtFields)
	}
	// Without the flag the content is "rocketmq"+"false", the reference vector of code 317.
	if want := "uPsb31vk9fcLh22YPjgkkrNyk7g="; req.ExtFields["Signature"] != want {
		t.Errorf("Signature = %q, want %q", req.ExtFields["Signature"], want)
	}
}

func TestNoCredentialsNoSignature(t *testing.T) {
	got := make(chan *command, 1)
	srv := startFake(t, captureRequests(got))
	c := newTestClient(t, srv.addr())
	if _, err := c.call(context.Background(), srv.addr(), 317, map[string]string{"isOrder": "false"}, nil); err != nil {
		t.Fatal(err)
	}
	req := <-got
	if _, ok := req.ExtFields["Signature"]; ok {
		t.Errorf("unsigned client sent a Signature: %v", req.ExtFields)
	}
	if _, ok := req.ExtFields["AccessKey"]; ok {
		t.Errorf("unsigned client sent an AccessKey: %v", req.ExtFields)
	}
	if req.Version != ourVersion {
		t.Errorf("version = %d, want %d", req.Version, ourVersion)
	}
}

func TestCredentialsNeverPrintTheSecret(t *testing.T) {
	creds := Credentials{AccessKey: "rmqc-admin", SecretKey: "hunter2-secret"}
	cfg := Config{NameServer: "127.0.0.1:9876", Credentials: creds}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "creds", creds, "cfg", cfg)
	for _, s := range []string{fmt.Sprint(creds), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, creds), logged.String()} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("secret shown: %s", s)
		}
		if !strings.Contains(s, "rmqc-admin") {
			t.Errorf("access key not shown: %s", s)
		}
	}
}

// The answers below are what brokers send (docs/rocketmq-protocol-notes.md, "ACL").
func TestAccessRefusalsClassified(t *testing.T) {
	cases := []struct {
		name     string
		code     ResponseCode
		remark   string
		denial   Denial
		resource string
	}{
		{"4.x bad signature", CodeSystemError, "org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=rmqc-admin, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:683)", DenialBadSignature, ""},
		{"4.x unsigned", CodeSystemError, "org.apache.rocketmq.acl.common.AclException: No accessKey is configured, org.apache...", DenialNoCredentials, ""},
		{"4.x unknown key", CodeSystemError, "org.apache.rocketmq.acl.common.AclException: No acl config for nobody, org.apache...", DenialUnknownKey, ""},
		{"4.x not admin", CodeSystemError, "org.apache.rocketmq.acl.common.AclException: Need admin permission for request code=17, but accessKey=rmqc-viewer is not, org...", DenialNotAdmin, ""},
		{"5.x bad signature", CodeNoPermission, "check signature failed.", DenialBadSignature, ""},
		{"5.x unsigned", CodeNoPermission, "username cannot be null.", DenialNoCredentials, ""},
		{"5.x unknown user", CodeNoPermission, "User:nobody is not found.", DenialUnknownKey, ""},
		{"5.x disabled", CodeNoPermission, "User:x is disabled.", DenialDisabled, ""},
		{"5.x no policy", CodeNoPermission, "User:carol has no permission to access Cluster:DefaultCluster from 127.0.0.1, no matched policies.", DenialNoPermission, "Cluster:DefaultCluster"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startFake(t, func(_ int, c net.Conn) {
				for {
					req, err := readFrame(c)
					if err != nil {
						return
					}
					if send(c, &command{Code: int(tc.code), Version: 479, Opaque: req.Opaque, Flag: flagResponse, Remark: tc.remark}) != nil {
						return
					}
				}
			})
			c, err := New(Config{NameServer: srv.addr(), Timeout: 2 * time.Second, Credentials: Credentials{AccessKey: "rmqc-admin", SecretKey: "hunter2-secret"}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.TopicConfigs(context.Background(), srv.addr())
			var ae *AccessError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v (%T), want an *AccessError", err, err)
			}
			if ae.Denial != tc.denial || ae.Resource != tc.resource {
				t.Errorf("denial %d resource %q, want %d %q", ae.Denial, ae.Resource, tc.denial, tc.resource)
			}
			if !errors.Is(err, ErrAccessDenied) {
				t.Error("not errors.Is ErrAccessDenied")
			}
			var be *BrokerError
			if !errors.As(err, &be) || be.Code != tc.code {
				t.Errorf("does not unwrap to the broker's answer: %v", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "access key rmqc-admin") || strings.Contains(msg, "hunter2") {
				t.Errorf("message %q: want the access key named and no secret", msg)
			}
		})
	}
}

// NO_PERMISSION also answers a topic or broker without read or write permission;
// that is not an ACL refusal.
func TestNoPermissionWithoutACLIsABrokerError(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		req, err := readFrame(c)
		if err != nil {
			return
		}
		_ = send(c, &command{Code: int(CodeNoPermission), Opaque: req.Opaque, Flag: flagResponse,
			Remark: "the broker[broker-a] pulling message is forbidden"})
		_, _ = readFrame(c)
	})
	c := newTestClient(t, srv.addr())
	_, err := c.TopicConfigs(context.Background(), srv.addr())
	if errors.Is(err, ErrAccessDenied) {
		t.Fatalf("err = %v, classified as an ACL refusal", err)
	}
	var be *BrokerError
	if !errors.As(err, &be) || be.Code != CodeNoPermission {
		t.Fatalf("err = %v, want the broker's NO_PERMISSION", err)
	}
}

// Brokers tell only their MQVersion ordinal in most answers; the ordinals of
// the releases after 5.3.3 were read from MQVersion in the 5.5.1 jars.
func TestNewerReleasesNamedFromTheirOrdinals(t *testing.T) {
	for ordinal, want := range map[int]string{479: "5.3.3", 481: "5.3.4", 493: "5.4.0", 513: "5.5.0", 515: "5.5.1"} {
		v := BrokerVersion{Ordinal: ordinal}
		if !v.Named() || v.String() != want {
			t.Errorf("ordinal %d: %q (named %v), want %s", ordinal, v.String(), v.Named(), want)
		}
		if !v.Is5() {
			t.Errorf("ordinal %d is not 5.x", ordinal)
		}
	}
	if !(BrokerVersion{Ordinal: 515}).AtLeast(VersionOrdinal5_5_0) || (BrokerVersion{Ordinal: 493}).AtLeast(VersionOrdinal5_5_0) {
		t.Error("AtLeast(5.5.0) wrong")
	}
}
