package diagnosis

import (
	"encoding/json"
	"testing"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/groups"
	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// connections decodes a GET_CONSUMER_CONNECTION_LIST body of the shape a broker answers
// (rocketmq/testdata/captured/*/consumer_connection.json), with the clients given.
func connections(t *testing.T, set string) *rocketmq.ConsumerConnection {
	t.Helper()
	body := `{"connectionSet":[` + set + `],"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY",` +
		`"messageModel":"CLUSTERING","subscriptionTable":{"orders":{"classFilterMode":false,"codeSet":[],"expressionType":"TAG",` +
		`"subString":"*","subVersion":1795966206696257427,"tagsSet":[],"topic":"orders"}}}`
	var c rocketmq.ConsumerConnection
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// Java clients of one group on 4.9.7 and 5.3.3 are a finding that names both release
// lines and links to a client; clients on one line (4.9.7 beside 4.9.8), Go clients
// (which send a protocol version, not their release) and a Proxy's list are not.
func TestClientsOfOneGroupOnDifferentReleaseLinesAreFound(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		set   string
		proxy string
		want  bool
	}{
		{"4.9 beside 5.3", `{"clientAddr":"10.0.0.7:50102","clientId":"10.0.0.7@21871#1","language":"JAVA","version":479},` +
			`{"clientAddr":"10.0.0.5:50100","clientId":"10.0.0.5@9042#1","language":"JAVA","version":407}`, "", true},
		{"one line", `{"clientAddr":"10.0.0.5:50100","clientId":"10.0.0.5@9042#1","language":"JAVA","version":407},` +
			`{"clientAddr":"10.0.0.6:50101","clientId":"10.0.0.6@9043#1","language":"JAVA","version":409}`, "", false},
		{"a Go client beside Java", `{"clientAddr":"10.0.0.5:50100","clientId":"10.0.0.5@9042#1","language":"JAVA","version":479},` +
			`{"clientAddr":"127.0.0.1:45664","clientId":"@c-d3c8cd349e","language":"GO","version":317}`, "", false},
		{"listed by a Proxy", `{"clientAddr":"10.0.0.7:50102","clientId":"10.0.0.7@21871#1","language":"JAVA","version":479},` +
			`{"clientAddr":"10.0.0.5:50100","clientId":"10.0.0.5@9042#1","language":"JAVA","version":407}`, "127.0.0.1:8081", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cc := cluster.New(nil, cluster.Options{})
			cc.NoteSeen("orders-g", cluster.SeenConsumers{Conns: connections(t, tc.set), Proxy: tc.proxy, At: at})
			e := New(Options{Cluster: cc})
			e.Observe(t.Context(), &groups.List{CheckedAt: at.Add(5 * time.Second), Groups: []groups.Summary{{Group: "orders-g", Online: true, Clients: 2}}})
			fs, _ := e.Findings()
			if !tc.want {
				if len(fs) != 0 {
					t.Fatalf("findings %+v, want none", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("findings %+v, want one clientVersions", fs)
			}
			f := fs[0]
			if f.Kind != KindVersions || f.Severity != Info || f.Group != "orders-g" || !f.Since.Equal(at) {
				t.Errorf("finding %+v, want clientVersions (info) about orders-g since the list's read %v", f, at)
			}
			if want := "/groups/orders-g/clients/10.0.0.5@9042%231"; f.Action != want || f.ActionKind != "client" {
				t.Errorf("action %s %q, want client %q (the client on the first line)", f.ActionKind, f.Action, want)
			}
			if got, want := i18n.Match("en").Say(f.Evidence), "Clients on release lines 4.9, 5.3 (online clients: 2): rebalancing and retries differ between lines. Upgrade them to one line."; got != want {
				t.Errorf("evidence %q, want %q", got, want)
			}
		})
	}
}
