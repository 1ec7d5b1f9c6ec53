package handlers

import (
	"strings"
	"testing"

	"rmqconsole/i18n"
	"rmqconsole/lookup"
	"rmqconsole/rocketmq"
)

// A Go client's unique key whose address bytes are four ASCII digits (what
// rocketmq-client-go writes when it finds no address) says the IP is probably not one;
// a real address gets no such hint.
func TestUniqueKeyOfAGoClientWithoutAnAddressSaysSo(t *testing.T) {
	hint := func(id string) (string, string) {
		m := lookup.Message{Message: &rocketmq.Message{Properties: map[string]string{rocketmq.PropertyUniqueKey: id}}}
		for _, p := range msgUniqKeyDecoded(i18n.Match(), m).Parts {
			if p.Label == "Producer IP" {
				return p.Value, p.Hint
			}
		}
		t.Fatalf("%s: no producer IP", id)
		return "", ""
	}
	if ip, h := hint("3136373339FA00000000050458f80001"); ip != "49.54.55.51" || !strings.Contains(h, "probably not an address") {
		t.Errorf("digits as IP: %s, hint %q", ip, h)
	}
	if ip, h := hint("0A00000139FA00000000050458f80001"); ip != "10.0.0.1" || h != "" {
		t.Errorf("a real IP: %s, hint %q", ip, h)
	}
}
