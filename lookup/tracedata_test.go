package lookup

import (
	"strings"
	"testing"
	"time"
)

// Trace message bodies written by rocketmq-client-go v2 with its trace option, captured
// from RMQ_SYS_TRACE_TOPIC of a RocketMQ 5.3.3 broker (dev/demo produce -trace, consume
// -trace). The consumer's body batches the records of four messages.
const (
	capturedPub = "Pub\x011796147070991\x01DefaultRegion\x01demo-produce-28591\x01trace-cap\x01313437306FAF0000000003ce94300001\x01TagA\x01cap-key-1\x01127.0.0.1:20911\x019\x01191\x010\x017F000001000051AF0000000000000000\x01true\x01\x02"
	capturedSub = "SubBefore\x011796147073238\x01DefaultRegion\x01cap-group\x01313437306FF30000000003ce9fe80001\x01313437306FE90000000003ce9fe80001\x010\x01cap-none\x01\x02SubAfter\x01313437306FF30000000003ce9fe80001\x01313437306FE90000000003ce9fe80001\x010\x01true\x01cap-none\x010\x011796147073238\x01cap-group\x02SubBefore\x011796147073238\x01DefaultRegion\x01cap-group\x01313437306FF30000000003ce9fe80002\x01313437306FAF0000000003ce94300001\x010\x01cap-key-1\x01\x02SubAfter\x01313437306FF30000000003ce9fe80002\x01313437306FAF0000000003ce94300001\x010\x01true\x01cap-key-1\x010\x011796147073238\x01cap-group\x02SubBefore\x011796147073238\x01DefaultRegion\x01cap-group\x01313437306FF30000000003ce9fe80003\x01313437306FC20000000003ce9c000001\x010\x01cap-custom\x01\x02SubAfter\x01313437306FF30000000003ce9fe80003\x01313437306FC20000000003ce9c000001\x010\x01true\x01cap-custom\x010\x011796147073238\x01cap-group\x02SubBefore\x011796147073238\x01DefaultRegion\x01cap-group\x01313437306FF30000000003ce9fe80004\x01313437306FAF0000000003ce94300003\x010\x01cap-key-2\x01\x02SubAfter\x01313437306FF30000000003ce9fe80004\x01313437306FAF0000000003ce94300003\x010\x01true\x01cap-key-2\x010\x011796147073238\x01cap-group\x02"
)

func TestParseTraceCapturedGoClient(t *testing.T) {
	recs, errs := ParseTrace([]byte(capturedPub))
	if len(errs) != 0 || len(recs) != 1 {
		t.Fatalf("Pub body: %d records, errors %v", len(recs), errs)
	}
	want := TraceRecord{Kind: TracePub, Time: time.UnixMilli(1796147070991).UTC(), RegionID: "DefaultRegion",
		Group: "demo-produce-28591", Topic: "trace-cap", MsgID: "313437306FAF0000000003ce94300001", Tags: "TagA",
		Keys: "cap-key-1", StoreHost: "127.0.0.1:20911", BodyLength: 9, CostMs: 191, MsgType: "normal",
		OffsetMsgID: "7F000001000051AF0000000000000000", Success: true}
	if recs[0] != want {
		t.Errorf("Pub record:\n got %+v\nwant %+v", recs[0], want)
	}

	recs, errs = ParseTrace([]byte(capturedSub))
	if len(errs) != 0 || len(recs) != 8 {
		t.Fatalf("consumer body: %d records, errors %v", len(recs), errs)
	}
	before, after := recs[2], recs[3]
	wantBefore := TraceRecord{Kind: TraceSubBefore, Time: time.UnixMilli(1796147073238).UTC(), RegionID: "DefaultRegion",
		Group: "cap-group", RequestID: "313437306FF30000000003ce9fe80002", MsgID: "313437306FAF0000000003ce94300001", Keys: "cap-key-1"}
	if before != wantBefore {
		t.Errorf("SubBefore record:\n got %+v\nwant %+v", before, wantBefore)
	}
	wantAfter := TraceRecord{Kind: TraceSubAfter, Time: time.UnixMilli(1796147073238).UTC(), Group: "cap-group",
		RequestID: "313437306FF30000000003ce9fe80002", MsgID: "313437306FAF0000000003ce94300001", Keys: "cap-key-1",
		Success: true, Returned: "success"}
	if after != wantAfter {
		t.Errorf("SubAfter record:\n got %+v\nwant %+v", after, wantAfter)
	}
}

// The layouts of other clients and versions, as RocketMQ's TraceDataEncoder reads them,
// and records that are broken.
func TestParseTraceLayouts(t *testing.T) {
	rec := func(fields ...string) string { return strings.Join(fields, "\x01") + "\x02" }
	tests := []struct {
		name string
		body string
		want []TraceRecord
		errs []string
	}{
		{name: "Java Pub before 4.4: no offsetMsgId",
			body: rec("Pub", "1700000000000", "R", "PG", "T", "ID1", "null", "null", "10.0.0.1:10911", "3", "5", "1", "false"),
			want: []TraceRecord{{Kind: TracePub, Time: time.UnixMilli(1700000000000).UTC(), RegionID: "R", Group: "PG", Topic: "T",
				MsgID: "ID1", StoreHost: "10.0.0.1:10911", BodyLength: 3, CostMs: 5, MsgType: "transaction half"}}},
		{name: "Java Pub 4.x: offsetMsgId, no client host",
			body: rec("Pub", "1700000000000", "R", "PG", "T", "ID1", "TagA", "k1 k2", "10.0.0.1:10911", "3", "5", "3", "OFF", "true"),
			want: []TraceRecord{{Kind: TracePub, Time: time.UnixMilli(1700000000000).UTC(), RegionID: "R", Group: "PG", Topic: "T",
				MsgID: "ID1", Tags: "TagA", Keys: "k1 k2", StoreHost: "10.0.0.1:10911", BodyLength: 3, CostMs: 5, MsgType: "delay",
				OffsetMsgID: "OFF", Success: true}}},
		{name: "Pub 5.x with client host",
			body: rec("Pub", "1700000000000", "R", "PG", "T", "ID1", "", "", "h:1", "3", "5", "0", "OFF", "true", "10.1.1.1"),
			want: []TraceRecord{{Kind: TracePub, Time: time.UnixMilli(1700000000000).UTC(), RegionID: "R", Group: "PG", Topic: "T",
				MsgID: "ID1", StoreHost: "h:1", BodyLength: 3, CostMs: 5, MsgType: "normal", OffsetMsgID: "OFF", Success: true, ClientHost: "10.1.1.1"}}},
		{name: "Java SubBefore and SubAfter 4.x: no group in SubAfter",
			body: rec("SubBefore", "1700000000100", "R", "CG", "REQ", "ID1", "2", "k1") + rec("SubAfter", "REQ", "ID1", "40", "false", "k1", "4", "1700000000100"),
			want: []TraceRecord{
				{Kind: TraceSubBefore, Time: time.UnixMilli(1700000000100).UTC(), RegionID: "R", Group: "CG", RequestID: "REQ", MsgID: "ID1", RetryTimes: 2, Keys: "k1"},
				{Kind: TraceSubAfter, Time: time.UnixMilli(1700000000100).UTC(), RequestID: "REQ", MsgID: "ID1", CostMs: 40, Keys: "k1", Returned: "failed"},
			}},
		{name: "oldest SubAfter: no return code, no time",
			body: rec("SubAfter", "REQ", "ID1", "7", "true", "k1"),
			want: []TraceRecord{{Kind: TraceSubAfter, RequestID: "REQ", MsgID: "ID1", CostMs: 7, Success: true, Keys: "k1"}}},
		{name: "EndTransaction",
			body: rec("EndTransaction", "1700000000000", "R", "PG", "T", "ID1", "", "k", "h:1", "1", "TX1", "COMMIT_MESSAGE", "true"),
			want: []TraceRecord{{Kind: TraceEndTransaction, Time: time.UnixMilli(1700000000000).UTC(), RegionID: "R", Group: "PG", Topic: "T",
				MsgID: "ID1", Keys: "k", StoreHost: "h:1", MsgType: "transaction half", TransactionID: "TX1", TransactionState: "COMMIT_MESSAGE", FromCheck: true}}},
		{name: "unknown kinds and empty records are skipped",
			body: "\x02" + rec("Future", "1", "2") + "\n" + rec("SubAfter", "REQ", "ID1", "7", "true", "k1"),
			want: []TraceRecord{{Kind: TraceSubAfter, RequestID: "REQ", MsgID: "ID1", CostMs: 7, Success: true, Keys: "k1"}}},
		{name: "broken records are reported and the rest kept",
			body: rec("Pub", "1700000000000", "R", "PG") + rec("SubBefore", "soon", "R", "CG", "REQ", "ID1", "0", "k") +
				rec("SubAfter", "REQ", "", "7", "true", "k1") + rec("SubAfter", "REQ", "ID2", "7", "true", "k1"),
			want: []TraceRecord{{Kind: TraceSubAfter, RequestID: "REQ", MsgID: "ID2", CostMs: 7, Success: true, Keys: "k1"}},
			errs: []string{"4 fields, a Pub record has at least 13", `the time (field 2) is "soon", not a number`, "no message id"}},
		{name: "an out-of-range message type is named, not fatal",
			body: rec("Pub", "1700000000000", "R", "PG", "T", "ID1", "", "", "h:1", "3", "5", "9", "OFF", "true"),
			want: []TraceRecord{{Kind: TracePub, Time: time.UnixMilli(1700000000000).UTC(), RegionID: "R", Group: "PG", Topic: "T",
				MsgID: "ID1", StoreHost: "h:1", BodyLength: 3, CostMs: 5, MsgType: "unknown (9)", OffsetMsgID: "OFF", Success: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := ParseTrace([]byte(tc.body))
			if len(got) != len(tc.want) {
				t.Fatalf("%d records, want %d: %+v (errors %v)", len(got), len(tc.want), got, errs)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], tc.want[i])
				}
			}
			if len(errs) != len(tc.errs) {
				t.Fatalf("errors %v, want %d", errs, len(tc.errs))
			}
			for i, e := range errs {
				if !strings.Contains(e.Error(), tc.errs[i]) {
					t.Errorf("error %d: %v, want it to say %q", i, e, tc.errs[i])
				}
			}
		})
	}
}
