package lookup

import (
	"strings"
	"testing"

	"rmqconsole/i18n"
	"rmqconsole/rocketmq"
)

// Only a consumed message is a done row of the audit entry; every other answer says
// what the client's listener did, with its remark.
func TestDirectAnswerErrorSaysWhatTheListenerDid(t *testing.T) {
	for _, c := range []struct {
		result, remark string
		want           string // "" when consumed
	}{
		{ResultSuccess, "", ""},
		{ResultCommit, "", ""},
		{ResultLater, "", "later"},
		{ResultException, "java.lang.IllegalStateException: boom", "threw an exception: java.lang.IllegalStateException: boom"},
		{ResultNull, "", "returned null"},
		{ResultRollback, "", "rolled the message back"},
		{"7", "", `"7" is not one RocketMQ defines`},
	} {
		r := &rocketmq.ConsumeMessageDirectlyResult{ConsumeResult: c.result, Remark: c.remark, SpentTimeMills: 3}
		err := answerError(r)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.result, err, c.want)
		}
		a := &DirectAnswer{Message: Message{BrokerName: "broker-a", Message: &rocketmq.Message{Topic: "T", QueueID: 1, QueueOffset: 7}},
			Group: "g", Client: rocketmq.Connection{ClientID: "10.0.0.1@1", Language: "JAVA"}, Result: r, Err: err}
		row := directRow(a)
		if row.Topic != "T" || row.QueueID != 1 || row.Before != 7 || !strings.Contains(row.Note.String(), "10.0.0.1@1") ||
			!strings.Contains(row.Note.String(), c.result) || (len(row.Error) == 0) != (c.want == "") {
			t.Errorf("%s: audit row %+v", c.result, row)
		}
	}
	// The row's note is a catalogue sentence: stored and read back, it reads in Chinese,
	// and in English as it always has.
	r := &rocketmq.ConsumeMessageDirectlyResult{ConsumeResult: ResultLater, Remark: "busy", SpentTimeMills: 3}
	stored, err := i18n.Encode(directRow(&DirectAnswer{Client: rocketmq.Connection{ClientID: "10.0.0.1@1", Language: "JAVA"}, Result: r,
		Message: Message{Message: &rocketmq.Message{Topic: "T"}}}).Note)
	if err != nil {
		t.Fatal(err)
	}
	note := i18n.Decode(stored)
	if en := "client 10.0.0.1@1 (JAVA) answered CR_LATER in 3 ms (order false, autoCommit false), remark: busy"; note.String() != en {
		t.Errorf("note in English: %q, want %q", note, en)
	}
	if zh := "客户端 10.0.0.1@1（JAVA）在 3 毫秒内应答 CR_LATER（顺序 false，autoCommit false），备注：busy"; i18n.Match("zh-CN").SayText(note) != zh {
		t.Errorf("note in Chinese: %q, want %q", i18n.Match("zh-CN").SayText(note), zh)
	}
}
