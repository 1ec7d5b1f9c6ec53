package masking

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rmqconsole/auth"
	"rmqconsole/fault"
	"rmqconsole/rocketmq"
)

func policy(t *testing.T, c Config) *Policy {
	t.Helper()
	p, err := New(c)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func viewerMasks(t *testing.T, rules ...RuleConfig) *Masker {
	return policy(t, Config{Rules: rules}).For(auth.Viewer, "default")
}

func TestJSONPathsMaskNestedFieldsAndArrayElementsKeepingTheShape(t *testing.T) {
	mk := viewerMasks(t, RuleConfig{Topic: "orders-*", JSONPaths: []string{"customer.email", "items.#.card", "notes.1", `a\.b`}})
	body := `{"id":7,"customer":{"name":"Ann","email":"ann@example.com"},"items":[{"sku":"x","card":"4111111111111111"},{"sku":"y","card":{"n":"5500"}}],"notes":["keep","hide <b>"],"a.b":true,"a":{"b":"stays"}}`
	m, masked := mk.Message(&rocketmq.Message{Topic: "orders-eu", Body: []byte(body), BodyCRC: 12345})
	if !masked {
		t.Fatal("a message of a covered topic was not masked")
	}
	if m.BodyCRC != 0 {
		t.Error("the checksum of the stored body is shown beside its masked copy")
	}
	want := `{"id":7,"customer":{"name":"Ann","email":"••••"},"items":[{"sku":"x","card":"••••"},{"sku":"y","card":"••••"}],"notes":["keep","••••"],"a.b":"••••","a":{"b":"stays"}}`
	if string(m.Body) != want {
		t.Fatalf("masked body\n got %s\nwant %s", m.Body, want)
	}
}

func TestATopicNoRuleCoversIsShownAsItIs(t *testing.T) {
	mk := viewerMasks(t, RuleConfig{Topic: "orders-*", Properties: []string{"userId"}})
	in := &rocketmq.Message{Topic: "payments", Body: []byte(`{"x":1}`), Properties: map[string]string{"userId": "u1"}}
	if m, masked := mk.Message(in); masked || m != in {
		t.Fatalf("a topic no rule covers was masked: %+v", m)
	}
}

func TestPropertiesAreMaskedOnACopy(t *testing.T) {
	mk := viewerMasks(t, RuleConfig{Topic: "t", Properties: []string{"userId", "KEYS"}})
	in := &rocketmq.Message{Topic: "t", Body: []byte("hello"), Properties: map[string]string{"userId": "u1", "KEYS": "k1", "TAGS": "a"}}
	m, _ := mk.Message(in)
	if m.Properties["userId"] != Marker || m.Properties["KEYS"] != Marker || m.Properties["TAGS"] != "a" {
		t.Fatalf("properties: %v", m.Properties)
	}
	if in.Properties["userId"] != "u1" || string(m.Body) != "hello" {
		t.Fatalf("the message read was changed (%v) or the body masked (%q)", in.Properties, m.Body)
	}
}

func TestARuleOfPropertiesAloneLeavesTheBodyAndMasksOnlyWhatItFinds(t *testing.T) {
	mk := viewerMasks(t, RuleConfig{Topic: "t", Properties: []string{"userId"}})
	body := `{ "b": "<x>", "a": 1.50 }`
	m, masked := mk.Message(&rocketmq.Message{Topic: "t", Body: []byte(body), BodyCRC: 7, Properties: map[string]string{"userId": "u1"}})
	if !masked || string(m.Body) != body || m.BodyCRC != 7 {
		t.Fatalf("masked %v, body %q: want the property masked and the body as stored", masked, m.Body)
	}
	in := &rocketmq.Message{Topic: "t", Body: []byte(body), Properties: map[string]string{"other": "v"}}
	if m, masked := mk.Message(in); masked || m != in {
		t.Fatalf("a message without the rule's property was said masked (%v) or copied", masked)
	}
}

func TestPatternsMaskTextAndTheStringsOfJSON(t *testing.T) {
	mk := viewerMasks(t, RuleConfig{Topic: "t", Patterns: []string{`\b\d{16}\b`}})
	for _, c := range []struct{ in, want string }{
		{"paid with 4111111111111111 today", "paid with •••• today"},
		{`{"card":"4111111111111111","n":1234567890123456}`, `{"card":"••••","n":1234567890123456}`},
	} {
		m, _ := mk.Message(&rocketmq.Message{Topic: "t", Body: []byte(c.in)})
		if string(m.Body) != c.want {
			t.Errorf("%s: got %s, want %s", c.in, m.Body, c.want)
		}
	}
}

func TestABodyTheJSONPathsCannotReadIsMaskedWhole(t *testing.T) {
	mk := viewerMasks(t, RuleConfig{Topic: "t", JSONPaths: []string{"email"}})
	for _, body := range [][]byte{[]byte("email=ann@example.com"), {0x0a, 0x03, 0xff, 0xfe, 'a', 'n', 'n'}, []byte(`{"email":"ann"`)} {
		m, masked := mk.Message(&rocketmq.Message{Topic: "t", Body: body})
		if !masked || !WholeBody(m.Body) {
			t.Errorf("%q: got %q, want the body masked whole", body, m.Body)
		}
	}
	if m, _ := mk.Message(&rocketmq.Message{Topic: "t"}); len(m.Body) != 0 {
		t.Errorf("an empty body became %q", m.Body)
	}
}

func TestPatternsMaskABinaryBodyByteForByte(t *testing.T) {
	mk := viewerMasks(t, RuleConfig{Topic: "t", Patterns: []string{`secret\d+`}})
	m, _ := mk.Message(&rocketmq.Message{Topic: "t", Body: []byte{0xff, 0x00, 's', 'e', 'c', 'r', 'e', 't', '4', '2', 0xfe}})
	if want := append(append([]byte{0xff, 0x00}, Marker...), 0xfe); string(m.Body) != string(want) {
		t.Fatalf("got %q, want %q", m.Body, want)
	}
}

func TestReadersOfBodiesSeeEverythingAndTheRolesAreConfigurable(t *testing.T) {
	rc := RuleConfig{Topic: "t", Properties: []string{"p"}}
	in := &rocketmq.Message{Topic: "t", Properties: map[string]string{"p": "v"}}
	def := policy(t, Config{Rules: []RuleConfig{rc}})
	for role, want := range map[auth.Role]bool{auth.Viewer: true, auth.Operator: false, auth.Admin: false} {
		if _, masked := def.For(role, "c").Message(in); masked != want {
			t.Errorf("default readers, %s: masked %v, want %v", role, masked, want)
		}
	}
	adminOnly := policy(t, Config{ReadBodies: []string{"admin"}, Rules: []RuleConfig{rc}})
	if _, masked := adminOnly.For(auth.Operator, "c").Message(in); !masked {
		t.Error("read_bodies = [admin] did not mask an operator's message")
	}
	if def.For(auth.Operator, "c") != nil || adminOnly.For(auth.Admin, "c") != nil {
		t.Error("a role that reads bodies got a masker: its filters would be wrapped and its tail keyed apart")
	}
	if def.For(auth.Viewer, "c").Reader() != adminOnly.For(auth.Operator, "c").Reader() {
		t.Error("two roles that see the same masked view name it apart: their live tails would not be shared")
	}
	if (*Policy)(nil).For(auth.Viewer, "c") != nil || !(*Policy)(nil).ReadsBodies(auth.Viewer, "c", "t") {
		t.Error("no policy must mask nothing")
	}
}

func TestARuleOfOneClusterAndRetriedMessages(t *testing.T) {
	p := policy(t, Config{Rules: []RuleConfig{{Topic: "orders", Cluster: "prod", Properties: []string{"p"}}}})
	in := &rocketmq.Message{Topic: "orders", Properties: map[string]string{"p": "v"}}
	if _, masked := p.For(auth.Viewer, "test").Message(in); masked {
		t.Error("a rule of cluster prod masked a message of cluster test")
	}
	dlq := &rocketmq.Message{Topic: "%DLQ%g", Properties: map[string]string{"p": "v", "RETRY_TOPIC": "orders"}}
	if m, _ := p.For(auth.Viewer, "prod").Message(dlq); m.Properties["p"] != Marker {
		t.Error("a dead letter of a masked topic was shown unmasked")
	}
}

func TestNewRefusesEveryBadRuleAtOnce(t *testing.T) {
	_, err := New(Config{ReadBodies: []string{"boss"}, Rules: []RuleConfig{
		{Topic: "", Properties: []string{"p"}},
		{Topic: "t[", JSONPaths: []string{"$.a", "a..b", "items[0]", "a.*"}},
		{Topic: "t", Patterns: []string{"(", "x*"}},
		{Topic: "t"},
	}})
	fields := map[string]bool{}
	for _, e := range fault.All(err) {
		fields[e.Field] = true
		if e.Msg.String() == "" {
			t.Errorf("%s: no sentence", e.Field)
		}
	}
	for _, f := range []string{"masking.read_bodies[0]", "masking.rules[0].topic", "masking.rules[1].topic",
		"masking.rules[1].json_paths[0]", "masking.rules[1].json_paths[1]", "masking.rules[1].json_paths[2]",
		"masking.rules[1].json_paths[3]", "masking.rules[2].patterns[0]", "masking.rules[2].patterns[1]", "masking.rules[3].topic"} {
		if !fields[f] {
			t.Errorf("no error on %s (got %v)", f, fields)
		}
	}
}

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadReadsTheMaskingSectionBesideTheClusters(t *testing.T) {
	dir := t.TempDir()
	toml := filepath.Join(dir, "c.toml")
	write(t, toml, "[[clusters]]\nname = \"a\"\nnamesrv = [\"h:9876\"]\n\n[masking]\nread_bodies = [\"admin\"]\n[[masking.rules]]\ntopic = \"t\"\njson_paths = [\"a.b\"]\n")
	p, err := Load(toml)
	if err != nil || p == nil || p.ReadsBodies(auth.Operator, "a", "t") {
		t.Fatalf("Load toml: %v, %+v", err, p)
	}
	yml := filepath.Join(dir, "c.yaml")
	write(t, yml, "clusters:\n  - name: a\nmasking:\n  rules:\n    - topic: t\n      patterns: ['(']\n")
	if _, err := Load(yml); err == nil || !strings.Contains(err.Error(), "patterns[0]") && !strings.Contains(fault.All(err)[0].Field, "patterns[0]") {
		t.Fatalf("Load yaml with a bad pattern: %v", err)
	}
	none := filepath.Join(dir, "n.toml")
	write(t, none, "[[clusters]]\nname = \"a\"\n")
	if p, err := Load(none); p != nil || err != nil {
		t.Fatalf("a file without masking: %v, %v", p, err)
	}
	unknown := filepath.Join(dir, "u.toml")
	write(t, unknown, "[masking]\nread_body = [\"admin\"]\n")
	if _, err := Load(unknown); err == nil {
		t.Fatal("a misspelt masking setting was accepted")
	}
}

func TestHidesPropertySaysWhichSearchesWouldTellAMaskedValue(t *testing.T) {
	p := policy(t, Config{Rules: []RuleConfig{{Topic: "orders-*", Properties: []string{"KEYS"}}}})
	if !p.For(auth.Viewer, "c").HidesProperty("orders-1", "KEYS") || p.For(auth.Viewer, "c").HidesProperty("orders-1", "TAGS") ||
		p.For(auth.Viewer, "c").HidesProperty("payments", "KEYS") || p.For(auth.Operator, "c").HidesProperty("orders-1", "KEYS") {
		t.Error("HidesProperty does not follow the rules and the reader's role")
	}
	for _, topic := range []string{"%DLQ%g", "%RETRY%g"} {
		if !p.For(auth.Viewer, "c").HidesProperty(topic, "KEYS") || p.For(auth.Viewer, "c").HidesProperty(topic, "TAGS") {
			t.Errorf("%s holds messages of masked topics: a search by KEYS must be refused, by TAGS not", topic)
		}
	}
	other := policy(t, Config{Rules: []RuleConfig{{Topic: "orders-*", Cluster: "prod", Properties: []string{"KEYS"}}}})
	if other.For(auth.Viewer, "test").HidesProperty("%DLQ%g", "KEYS") {
		t.Error("a rule of cluster prod hid the keys of a dead letter topic of cluster test")
	}
}
