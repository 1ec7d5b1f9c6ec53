package topics

import (
	"encoding/base64"
	"maps"
	"net/netip"
	"slices"
	"testing"

	"rmqconsole/rocketmq"
)

// A copy carries what the producer set and leaves what the client and the broker set;
// a body that is not text travels as base64, the same bytes; the copy names the
// stored message it copies.
func TestCopyOfCarriesTheProducersFieldsOnly(t *testing.T) {
	m := &rocketmq.Message{Topic: "orders", Body: []byte(`{"order":4711}`), CommitLogOffset: 4242,
		StoreHost: netip.MustParseAddrPort("10.0.0.1:10911"),
		Properties: map[string]string{"TAGS": "paid", "KEYS": "order-4711 customer-7", "UNIQ_KEY": "AC1100000000",
			"__SHARDINGKEY": "customer-7", "region": "eu", "MIN_OFFSET": "0", "MAX_OFFSET": "9", "WAIT": "true",
			"RECONSUME_TIME": "3", "CLUSTER": "DefaultCluster"}}
	r := CopyOf(m, "orders-replay")
	if r.Topic != "orders-replay" || r.Body != `{"order":4711}` || r.BodyEncoding != "" || r.Tags != "paid" ||
		!slices.Equal(r.Keys, []string{"order-4711", "customer-7"}) || r.MessageGroup != "customer-7" || r.CopiedFrom != m.OffsetMsgID() {
		t.Errorf("copy %+v", r)
	}
	if got := slices.Sorted(maps.Keys(r.Properties)); !slices.Equal(got, []string{"region"}) {
		t.Errorf("the copy's own properties %v, want region alone", got)
	}
	if _, err := checkSend(r, m.StoreTime()); err != nil {
		t.Errorf("the copy is refused: %v", err)
	}

	m.Body = []byte{0x08, 0x96, 0x01, 0xff}
	r = CopyOf(m, "orders-replay")
	if b, err := base64.StdEncoding.DecodeString(r.Body); err != nil || r.BodyEncoding != "base64" || string(b) != string(m.Body) {
		t.Errorf("binary body copied as %q (%s)", r.Body, r.BodyEncoding)
	}
	if body, err := checkSend(r, m.StoreTime()); err != nil || string(body) != string(m.Body) {
		t.Errorf("the binary copy sends %v (%v)", body, err)
	}
}
