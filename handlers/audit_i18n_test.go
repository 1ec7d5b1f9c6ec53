package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rmqconsole/cluster/clustertest"
	"rmqconsole/i18n"
	"rmqconsole/resets"
	"rmqconsole/rocketmq"
	"rmqconsole/store"
)

// A reset applied through the English API keeps what its preview said and what each
// queue did as sentences of the catalogues: its audit entry reads in Chinese on a Chinese
// page, and in English in the API. An entry written before (English text) reads as it
// was written, and the hash chain holds over both.
func TestAuditEntryWrittenInEnglishReadsInChinese(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "console.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// An entry as the console wrote it before: English text.
	old := &store.AuditEntry{StartedAt: rsNow, Actor: "otto", Cluster: "ns:9876", Group: "g", Topics: []string{"t"}, Mode: "latest",
		Plan:   store.AuditPlan{Hash: "old", Warnings: []i18n.Text{i18n.PlainText("No client of group g is online: the offsets are written on the brokers.")}},
		Status: store.AuditPending}
	if err := st.Audit().Begin(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	old.Status, old.Result = store.AuditApplied, []store.AuditQueue{{Topic: "t", BrokerName: "broker-a", Note: i18n.PlainText("already at its target; nothing was sent")}}
	if err := st.Audit().Finish(t.Context(), old); err != nil {
		t.Fatal(err)
	}

	fake := clustertest.New()
	fake.AddGroup(&clustertest.Group{Name: "g"})
	fake.AddBroker("broker-a", "127.0.0.1:1")
	fake.AddMessages("t", "broker-a", 2, 10, time.Now().Add(-time.Hour))
	for q := range 2 {
		fake.SetOffset("g", rocketmq.MessageQueue{Topic: "t", BrokerName: "broker-a", QueueID: q}, 6)
	}
	svc := resets.New(resets.Config{Admin: fake, Audit: st.Audit(), NameServers: "ns:9876", Settle: time.Millisecond, VerifyWait: 100 * time.Millisecond})
	r := rsRouter(svc, st.Audit())
	// Queue 0 is at offset 6 already: nothing is sent to it, and the preview says so.
	body := `{"topic":"t","mode":"offset","brokerName":"broker-a","queueId":0,"offset":6,"reason":"replay"}`
	w := rsDo(t, r, "POST", "/api/v1/groups/g/reset-preview", "application/json", body)
	var plan PlanJSON
	if err := json.Unmarshal(w.Body.Bytes(), &plan); err != nil || w.Code != http.StatusOK {
		t.Fatalf("preview: %d %s", w.Code, w.Body)
	}
	w = rsDo(t, r, "POST", "/api/v1/groups/g/resets", "application/json",
		strings.TrimSuffix(body, "}")+`,"planId":"`+plan.PlanID+`","confirm":true}`)
	var entry AuditEntryJSON
	if err := json.Unmarshal(w.Body.Bytes(), &entry); err != nil || w.Code != http.StatusOK || entry.Status != "applied" {
		t.Fatalf("apply: %d %s", w.Code, w.Body)
	}
	english := []string{
		"No client of group g is online: the offsets are written on the brokers, and consumers start from them when they come back.",
		"Broker broker-a (RocketMQ 5.3.3): the broker sets each queue's offset itself",
		"Every queue is already at its target: applying changes nothing.",
	}
	if w := strings.Join(entry.Plan.Warnings, " "); !strings.Contains(w, english[0]) || !strings.Contains(w, english[1]) || !strings.Contains(w, english[2]) {
		t.Errorf("the API says the warnings as %q", entry.Plan.Warnings)
	}
	if len(entry.Queues) != 1 || entry.Queues[0].Note != "already at its target; nothing was sent" {
		t.Errorf("the API says the queue as %+v", entry.Queues)
	}

	page := getChinese(t, r, auditURL(entry.ID))
	text := page.Find("main").Text()
	for _, zh := range []string{
		"消费者组 g 没有在线的客户端",
		"Broker broker-a（RocketMQ 5.3.3）：由 Broker 自行设置每个队列的消费位点",
		"每个队列都已在目标位点：执行不会有任何改动。",
		"已在目标位点；没有发送任何请求",
	} {
		if !strings.Contains(text, zh) {
			t.Errorf("the Chinese page does not say %q", zh)
		}
	}
	for _, s := range englishRuns(page, "replay") {
		t.Errorf("the Chinese page says %q in English", s)
	}

	// The entry written before reads as it was written, on the same Chinese page.
	text = getChinese(t, r, auditURL(old.ID)).Find("main").Text()
	for _, en := range []string{"No client of group g is online: the offsets are written on the brokers.", "already at its target; nothing was sent"} {
		if !strings.Contains(text, en) {
			t.Errorf("the old entry does not read %q", en)
		}
	}
	if rep, err := st.Audit().Verify(t.Context()); err != nil || !rep.Intact || rep.Sealed != 2 {
		t.Fatalf("chain over old and new entries: %+v, %v", rep, err)
	}
}
