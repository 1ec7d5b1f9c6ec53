package rocketmq

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// UPDATE_BROKER_CONFIG's body is read by java.util.Properties.load as ISO-8859-1: keys
// with separators, values with backslashes, line breaks or non-ASCII characters must
// come out as typed, and one key's value never spills into another key.
func TestPropertiesTextEscapesWhatPropertiesLoadWouldMisread(t *testing.T) {
	got := string(propertiesText(map[string]string{
		"namesrvAddr":        "10.0.0.1:9876;10.0.0.2:9876",
		"storePathCommitLog": `C:\rocketmq\commitlog`,
		"brokerIP1":          " 10.0.0.1",
		"note":               "a\nb=c",
		"region":             "上海",
		"#notAComment":       "x",
	}))
	want := "\\#notAComment=x\n" +
		"brokerIP1=\\ 10.0.0.1\n" +
		"namesrvAddr=10.0.0.1:9876;10.0.0.2:9876\n" +
		"note=a\\nb=c\n" +
		"region=\\u4e0a\\u6d77\n" +
		"storePathCommitLog=C:\\\\rocketmq\\\\commitlog\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A 5.x broker answers NO_PERMISSION about the user a request creates ("The username is
// blank"): that is the admin's input, not the broker refusing the console's own key.
func TestAnAnswerAboutTheRequestsUserIsNoRefusal(t *testing.T) {
	srv := startFake(t, func(_ int, c net.Conn) {
		for {
			req, err := readFrame(c)
			if err != nil {
				return
			}
			if send(c, &command{Code: int(CodeNoPermission), Version: 479, Opaque: req.Opaque, Flag: flagResponse, Remark: "The username is blank"}) != nil {
				return
			}
		}
	})
	c, err := New(Config{NameServer: srv.addr(), Timeout: 2 * time.Second, Credentials: Credentials{AccessKey: "rmqc-admin", SecretKey: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.CreateUser(context.Background(), srv.addr(), UserChange{Username: " ", Password: "pw"})
	var ae *AccessError
	var be *BrokerError
	if errors.As(err, &ae) || !errors.As(err, &be) || be.Remark != "The username is blank" {
		t.Fatalf("err = %v (%T), want the broker's answer, not an access refusal", err, err)
	}
}
