package lookup

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"rmqconsole/rocketmq"
)

func traceMsg(body, bornHost string) Message {
	return Message{BrokerName: "broker-a", Message: &rocketmq.Message{Body: []byte(body), BornHost: netip.MustParseAddrPort(bornHost)}}
}

// The captured trace messages of one message: its send, and a consumer's batch that
// also holds three other messages' records.
func TestTraceCollectsOneMessagesRecords(t *testing.T) {
	tr := &MessageTrace{MsgID: "313437306FAF0000000003ce94300001"}
	tr.collect([]Message{traceMsg(capturedSub, "10.0.0.2:47758"), traceMsg(capturedPub, "10.0.0.1:47704")})
	if tr.TraceMessages != 2 || tr.Undecodable != 0 {
		t.Fatalf("trace messages %d, undecodable %d (%s)", tr.TraceMessages, tr.Undecodable, tr.DecodeError)
	}
	if len(tr.Published) != 1 {
		t.Fatalf("published %+v", tr.Published)
	}
	p := tr.Published[0]
	if p.Group != "demo-produce-28591" || p.ClientHost != "10.0.0.1" || p.CostMs != 191 || !p.Success ||
		p.OffsetMsgID != "7F000001000051AF0000000000000000" || p.StoreHost != "127.0.0.1:20911" || p.Keys != "cap-key-1" || p.Tags != "TagA" {
		t.Errorf("published %+v", p)
	}
	if len(tr.Groups) != 1 || tr.Groups[0].Group != "cap-group" || len(tr.Groups[0].Attempts) != 1 {
		t.Fatalf("groups %+v", tr.Groups)
	}
	a := tr.Groups[0].Attempts[0]
	want := TraceAttempt{ClientHost: "10.0.0.2", SentFrom: "10.0.0.2", Time: time.UnixMilli(1796147073238).UTC(), Finished: true, Success: true, Returned: "success"}
	if a != want {
		t.Errorf("attempt\n got %+v\nwant %+v", a, want)
	}
}

// Java clients name the group only in SubBefore, and a retried message has an attempt
// per delivery; an attempt whose SubAfter never came is unfinished.
func TestTracePairsAttemptsByRequest(t *testing.T) {
	rec := func(fields ...string) string { return strings.Join(fields, "\x01") + "\x02" }
	body := rec("SubBefore", "1700000000000", "R", "CG", "REQ1", "ID", "0", "k") +
		rec("SubAfter", "REQ1", "ID", "30", "false", "k", "4", "1700000000000") +
		rec("SubBefore", "1700000010000", "R", "CG", "REQ2", "ID", "1", "k") +
		rec("SubAfter", "REQ2", "ID", "5", "true", "k", "0", "1700000010000") +
		rec("SubBefore", "1700000005000", "R", "OTHER", "REQ3", "ID", "0", "k")
	tr := &MessageTrace{MsgID: "id"}
	tr.collect([]Message{traceMsg(body, "10.0.0.3:1")})
	if len(tr.Groups) != 2 || tr.Groups[0].Group != "CG" || tr.Groups[1].Group != "OTHER" {
		t.Fatalf("groups %+v", tr.Groups)
	}
	cg := tr.Groups[0].Attempts
	if len(cg) != 2 || cg[0].Success || !cg[0].Finished || cg[0].CostMs != 30 || cg[0].Returned != "failed" || cg[0].RetryTimes != 0 ||
		!cg[1].Success || cg[1].RetryTimes != 1 || cg[1].CostMs != 5 {
		t.Errorf("CG attempts %+v", cg)
	}
	if o := tr.Groups[1].Attempts; len(o) != 1 || o[0].Finished || o[0].ClientHost != "10.0.0.3" {
		t.Errorf("OTHER attempts %+v", o)
	}
}

// A client that names an address of its own other than the one it reached the broker
// from keeps both: its own in ClientHost, the broker's view (mqadmin's) in SentFrom.
func TestTraceKeepsTheClientsAddressAndWhereItWasSentFrom(t *testing.T) {
	rec := func(fields ...string) string { return strings.Join(fields, "\x01") + "\x02" }
	body := rec("SubBefore", "1700000000000", "R", "CG", "REQ1", "ID", "0", "k", "192.0.2.2") +
		rec("SubAfter", "REQ1", "ID", "30", "true", "k", "0", "1700000000000", "192.0.2.2")
	tr := &MessageTrace{MsgID: "id"}
	tr.collect([]Message{traceMsg(body, "127.0.0.1:40000")})
	if len(tr.Groups) != 1 || len(tr.Groups[0].Attempts) != 1 {
		t.Fatalf("groups %+v", tr.Groups)
	}
	if a := tr.Groups[0].Attempts[0]; a.ClientHost != "192.0.2.2" || a.SentFrom != "127.0.0.1" {
		t.Errorf("attempt named client %q, sent from %q", a.ClientHost, a.SentFrom)
	}
}

// A trace message that cannot be read at all is counted; one that holds only other
// messages' records, some broken, is not this message's problem.
func TestTraceCountsUndecodable(t *testing.T) {
	tr := &MessageTrace{MsgID: "ID"}
	tr.collect([]Message{traceMsg("garbage\x01\x02Pub\x01x", "10.0.0.1:1"), traceMsg("SubAfter\x01R\x01OTHER\x011\x01true\x01k\x02Pub\x01x", "10.0.0.1:1")})
	if tr.Undecodable != 1 || !strings.Contains(tr.DecodeError, "a Pub record has at least 13") || !tr.Empty() {
		t.Errorf("undecodable %d (%q), empty %v", tr.Undecodable, tr.DecodeError, tr.Empty())
	}
}
