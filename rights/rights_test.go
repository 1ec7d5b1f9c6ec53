package rights

import (
	"strings"
	"testing"

	"rmqconsole/auth"
	"rmqconsole/fault"
)

func table(t *testing.T, cs ...Config) *Table {
	t.Helper()
	tb, err := New(cs)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// The rights table of the tests: the payments team by its provider group, the orders
// team by user name, every viewer reading metadata on the production clusters.
func TestRulesGrantByWhoClusterNameAndAction(t *testing.T) {
	tb := table(t,
		Config{Subjects: []string{"group:payments"}, Topics: []string{"payments-*"}, Groups: []string{"payments-*"},
			Actions: []string{"read-metadata", "reset"}},
		Config{Subjects: []string{"user:oscar"}, Topics: []string{"orders-*", "%DLQ%orders-*"}, Groups: []string{"orders-*"},
			Actions: []string{"read-metadata", "reset"}},
		Config{Subjects: []string{"role:viewer"}, Clusters: []string{"prod-*"}, Topics: []string{"*"}, Groups: []string{"*"},
			Actions: []string{"read-metadata"}},
		Config{Subjects: []string{"user:oscar"}, Actions: []string{"read-audit"}},
	)
	paula := &auth.Caller{Name: "paula", Role: auth.Operator, Groups: []string{"staff", "payments"}}
	oscar := &auth.Caller{Name: "oscar", Role: auth.Operator}
	vera := &auth.Caller{Name: "vera", Role: auth.Viewer}
	ada := &auth.Caller{Name: "ada", Role: auth.Admin}
	for _, tc := range []struct {
		who     *auth.Caller
		cluster string
		kind    Kind
		name    string
		a       Action
		want    bool
	}{
		{paula, "prod-1", Group, "payments-settle", Reset, true},
		{paula, "prod-1", Group, "orders-ship", Reset, false},
		{paula, "prod-1", Topic, "orders", ReadMetadata, false},
		{paula, "prod-1", Topic, "payments-in", ReadBodies, false},              // not granted
		{paula, "prod-1", Topic, "%RETRY%payments-settle", ReadMetadata, false}, // not written so
		{oscar, "dev", Topic, "%DLQ%orders-ship", ReadMetadata, true},
		{oscar, "dev", Group, "payments-settle", ReadMetadata, false},
		{oscar, "dev", Cluster, "", ReadAudit, true},
		{paula, "dev", Cluster, "", ReadAudit, false},
		{vera, "prod-2", Group, "orders-ship", ReadMetadata, true},
		{vera, "staging", Group, "orders-ship", ReadMetadata, false},
		{vera, "prod-2", Group, "orders-ship", Reset, false},
		{ada, "staging", Group, "anything", Reset, true},
		{nil, "staging", Group, "anything", Reset, true}, // the local user of a console without sign-in
	} {
		if got := tb.Allows(tc.who, tc.cluster, tc.kind, tc.name, tc.a); got != tc.want {
			name := "local"
			if tc.who != nil {
				name = tc.who.Name
			}
			t.Errorf("%s %s %s %s on %s: %v, want %v", name, tc.a, tc.kind, tc.name, tc.cluster, got, tc.want)
		}
	}
	// No rules: everything, as before rights existed.
	var none *Table
	if !none.Allows(oscar, "dev", Group, "payments-settle", Reset) || none.Limits(oscar) {
		t.Error("a console without rights narrows someone")
	}
}

// Each mistake is named by its setting, all at once.
func TestBadRulesAreRefusedWithTheirSetting(t *testing.T) {
	_, err := New([]Config{
		{Actions: []string{"read-metadata"}},
		{Subjects: []string{"team:x", "role:root", "user:"}, Topics: []string{"a[", ""}, Actions: []string{"delete"}},
		{Subjects: []string{"user:a"}},
	})
	var fields []string
	for _, e := range fault.All(err) {
		fields = append(fields, e.Field)
	}
	got := strings.Join(fields, " ")
	want := "rights[0].subjects rights[1].subjects[0] rights[1].subjects[1] rights[1].subjects[2] rights[1].topics[0] rights[1].topics[1] rights[1].actions[0] rights[2].actions"
	if got != want {
		t.Errorf("fields %q,\nwant   %q", got, want)
	}
	if err == nil || !strings.Contains(fault.All(err)[6].Msg.String(), "delete is not an action") {
		t.Errorf("the unknown action is not named: %v", err)
	}
}
