package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"rmqconsole/groups"
	"rmqconsole/lookup"
	"rmqconsole/resets"
	"rmqconsole/rocketmq"
)

// The credential refusals a broker gives, as the rocketmq package classifies them.
var (
	noPermission = &rocketmq.AccessError{Addr: "10.0.0.2:10911", AccessKey: "rmqc-viewer", Denial: rocketmq.DenialNoPermission, Resource: "Group:orders",
		Broker: &rocketmq.BrokerError{Addr: "10.0.0.2:10911", Code: 16, Remark: "User:rmqc-viewer has no permission to access Group:orders from 127.0.0.1, no matched policies."}}
	badSignature = &rocketmq.AccessError{Addr: "10.0.0.2:10911", AccessKey: "rmqc-admin", Denial: rocketmq.DenialBadSignature,
		Broker: &rocketmq.BrokerError{Addr: "10.0.0.2:10911", Code: 16, Remark: "check signature failed."}}
)

const (
	saysNoPermission = "Broker broker-b refused access key rmqc-viewer: no permission for Group:orders"
	saysBadSignature = "Broker broker-b refused access key rmqc-admin: the signature does not match — check RMQC_SECRET_KEY"
)

// A broker that refuses the console's credentials is named on the page that needed it,
// as on the home page: the access key (never a secret), and a missing permission told
// apart from a bad signature. The message search shows what the other broker answered.
func TestPagesSayABrokerRefusedTheCredentials(t *testing.T) {
	for _, tc := range []struct {
		err  *rocketmq.AccessError
		want string
	}{{noPermission, saysNoPermission}, {badSignature, saysBadSignature}} {
		// Message search.
		f := msgFake(20)
		f.Fail = func(op, broker string) error {
			if broker == "broker-b" {
				return tc.err
			}
			return nil
		}
		r := msgRouter(lookup.New(f, lookup.Options{}))
		rec := msgGet(t, r, rangeURL("/messages"))
		page := msgDoc(t, rec)
		if banner := page.Find(`[data-testid="broker-failure"]`).Text(); rec.Code != http.StatusOK || !strings.Contains(banner, tc.want) {
			t.Errorf("message search: status %d, banner %q, want %q", rec.Code, banner, tc.want)
		}
		if n := page.Find(`[data-testid="message-row"]`).Length(); n != 10 {
			t.Errorf("message search: %d rows, want broker-a's 10", n)
		}
		// A unique key no broker could be asked for: 403 with the sentence.
		f.Fail = func(op, broker string) error {
			if broker == "" {
				return nil // the NameServer: it never checks credentials
			}
			return tc.err
		}
		rec = msgGet(t, r, "/messages?"+url.Values{"tab": {"id"}, "topic": {"T"}, "id": {"7F0000010000000000000000000000AA"}}.Encode())
		if body := rec.Body.String(); rec.Code != http.StatusForbidden || !strings.Contains(body, "The search could not run: Broker broker-a "+strings.TrimPrefix(tc.want, "Broker broker-b ")) {
			t.Errorf("id search, every broker refusing: status %d, want 403 with %q: %s", rec.Code, tc.want, msgDoc(t, rec).Find(`[data-testid="search-error"]`).Text())
		}

		// Group page.
		gr := newGroupRouter(t, true)
		d := sampleDetail()
		d.Failures = []groups.BrokerFailure{{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "consume stats", Err: tc.err}}
		gr.fg.detail["orders"] = d
		rec = gr.get(t, "/groups/orders")
		if banner := doc(t, rec).Find(`[data-testid="group-failure"]`).Text(); !strings.Contains(banner, tc.want) {
			t.Errorf("group page: banner %q, want %q", banner, tc.want)
		}

		// Reset preview.
		fake := &rsFake{plan: func(req resets.Request) (*resets.Plan, error) {
			p := rsPlan(req)
			p.Failures = []resets.BrokerFailure{{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "consume stats", Err: tc.err}}
			return p, nil
		}}
		rec = rsDo(t, rsRouter(fake, nil), http.MethodPost, "/groups/orders/reset/preview", "application/x-www-form-urlencoded",
			url.Values{"topic": {"orders"}, "mode": {"earliest"}}.Encode())
		if banner := rsDoc(t, rec).Find(`[data-testid="preview-failure"]`).Text(); !strings.Contains(banner, "Not in this preview: "+tc.want) {
			t.Errorf("reset preview: status %d, banner %q, want %q", rec.Code, banner, tc.want)
		}
	}
}
