package handlers

import (
	"encoding/base64"
	"net/netip"
	"unicode/utf8"

	"rmqconsole/lookup"
)

// MessageJSON is one message in the API (design.md, "Messages"). Times are epoch ms.
type MessageJSON struct {
	MsgID           string            `json:"msgId"`
	OffsetMsgID     string            `json:"offsetMsgId"`
	Topic           string            `json:"topic"`
	Tags            string            `json:"tags"`
	Keys            []string          `json:"keys"`
	BrokerName      string            `json:"brokerName"`
	QueueID         int               `json:"queueId"`
	QueueOffset     int64             `json:"queueOffset"`
	CommitLogOffset int64             `json:"commitLogOffset"`
	BornTimestamp   int64             `json:"bornTimestamp"`
	StoreTimestamp  int64             `json:"storeTimestamp"`
	BornHost        string            `json:"bornHost"`
	StoreHost       string            `json:"storeHost"`
	ReconsumeTimes  int               `json:"reconsumeTimes"`
	Flag            int               `json:"flag"`
	SysFlag         int               `json:"sysFlag"`
	StoreSize       int               `json:"storeSize"`
	Properties      map[string]string `json:"properties"`
	// BodySize is the body's size after decompression.
	BodySize int `json:"bodySize"`
	// Compression names the codec the body was stored with ("" when stored plain).
	Compression string `json:"compression,omitempty"`
	// Body is UTF-8 text when the body is valid UTF-8, else base64 with BodyEncoding
	// "base64".
	Body         string `json:"body"`
	BodyEncoding string `json:"bodyEncoding,omitempty"`
	// BodyError says why the body could not be decompressed (Body then holds the stored
	// bytes).
	BodyError string `json:"bodyError,omitempty"`
	// Masked says the body or properties are masked for the caller's role (package
	// masking): the masked values read "••••".
	Masked bool `json:"masked,omitempty"`
}

// MessagesJSON answers GET /api/v1/messages: a range or key query.
type MessagesJSON struct {
	Messages []MessageJSON `json:"messages"`
	MessagesSummaryJSON
}

// MessagesSummaryJSON is what a list answer says besides its messages. The JSON export
// writes it first and then streams the messages.
type MessagesSummaryJSON struct {
	Limit     int  `json:"limit"`
	Truncated bool `json:"truncated"`
	// Total is how many matched: exact, or at least that many when TotalIsLowerBound.
	Total             int64 `json:"total"`
	TotalIsLowerBound bool  `json:"totalIsLowerBound"`
	// InRange is how many messages the time range holds before the tag filter (range
	// queries).
	InRange *int64 `json:"inRange,omitempty"`
	// Scanned is how many messages a tag-filtered range query read; ScanLimited says it
	// stopped at its budget, having read back to ScannedBackTo (epoch ms).
	// OlderEnd (epoch ms) and OlderSkip, passed as end and skip with the same query,
	// give the next, older page of a truncated range query: OlderSkip counts the
	// messages stored in OlderEnd's millisecond that this page showed.
	OlderEnd      *int64 `json:"olderEnd,omitempty"`
	OlderSkip     *int   `json:"olderSkip,omitempty"`
	Scanned       int64  `json:"scanned,omitempty"`
	ScanLimited   bool   `json:"scanLimited,omitempty"`
	ScannedBackTo int64  `json:"scannedBackTo,omitempty"`
	// CappedBrokers answered the key query with their maximum of 64 (key queries).
	CappedBrokers []string `json:"cappedBrokers,omitempty"`
	// Failures name the brokers that failed; the messages are what the others returned.
	Failures []lookup.BrokerFailure `json:"failures,omitempty"`
	// Errors are Failures as {"broker","error"}; deprecated: use failures.
	Errors []BrokerErrorJSON `json:"errors,omitempty"`
	// FromSlaves name the brokers whose messages came from a slave, because the master
	// did not answer: {"broker","master","slave","reason"}.
	FromSlaves []lookup.SlaveRead `json:"fromSlaves,omitempty"`
}

// BrokerErrorJSON is one broker that did not answer.
type BrokerErrorJSON struct {
	Broker string `json:"broker"`
	Error  string `json:"error"`
}

// MessageByIDJSON answers GET /api/v1/messages/{id}.
type MessageByIDJSON struct {
	Message MessageJSON `json:"message"`
	// IDKind is "offsetMsgId" or "uniqueKey": which kind of id matched.
	IDKind string `json:"idKind"`
	// Copies are other stored messages with the same unique key.
	Copies []MessageJSON `json:"copies,omitempty"`
	// Searched says how a unique key given without its topic was found.
	Searched *lookup.TopicSearch `json:"searched,omitempty"`
	// Groups say, for each group consuming the topic, whether it consumed the message:
	// limit of them (paging.DefaultLimit when the request gives none), those with trouble
	// first (unknown, not consumed, offline, popped, filtered, consumed), then by name.
	Groups []GroupConsumeJSON `json:"groups"`
	// Total counts every group of the topic, on every page.
	Total int `json:"total"`
	// Next is the cursor of the groups' following page; absent on the last one.
	Next string `json:"next,omitempty"`
	// Failures name the brokers that failed (see MessagesSummaryJSON).
	Failures []lookup.BrokerFailure `json:"failures,omitempty"`
	// Errors are Failures as {"broker","error"}; deprecated: use failures.
	Errors []BrokerErrorJSON `json:"errors,omitempty"`
	// FromSlaves name the brokers read from a slave (see MessagesSummaryJSON).
	FromSlaves []lookup.SlaveRead `json:"fromSlaves,omitempty"`
}

// GroupConsumeJSON is one group's state towards a message.
type GroupConsumeJSON struct {
	Group string `json:"group"`
	// State is "consumed", "notConsumed", "filtered", "offline" or "unknown".
	State          string `json:"state"`
	ConsumerOffset int64  `json:"consumerOffset"`
	Online         bool   `json:"online"`
	Subscription   string `json:"subscription,omitempty"`
	Reason         string `json:"reason,omitempty"`
}

func messageJSON(m lookup.Message) MessageJSON {
	j := MessageJSON{
		MsgID: m.MsgID(), OffsetMsgID: m.OffsetMsgID(), Topic: m.Topic, Tags: m.Tags(), Keys: m.Keys(),
		BrokerName: m.BrokerName, QueueID: m.QueueID, QueueOffset: m.QueueOffset, CommitLogOffset: m.CommitLogOffset,
		BornTimestamp: m.BornTimestamp, StoreTimestamp: m.StoreTimestamp,
		BornHost: msgHost(m.BornHost), StoreHost: msgHost(m.StoreHost),
		ReconsumeTimes: m.ReconsumeTimes, Flag: m.Flag, SysFlag: m.SysFlag, StoreSize: m.StoreSize,
		Properties: m.Properties, BodySize: len(m.Body), Compression: m.Compression, BodyError: m.BodyError,
		Masked: m.Masked,
	}
	if j.Keys == nil {
		j.Keys = []string{}
	}
	if j.Properties == nil {
		j.Properties = map[string]string{}
	}
	if utf8.Valid(m.Body) {
		j.Body = string(m.Body)
	} else {
		j.Body, j.BodyEncoding = base64.StdEncoding.EncodeToString(m.Body), "base64"
	}
	return j
}

// msgHost is "" for a host the record does not hold (rather than "invalid AddrPort").
func msgHost(a netip.AddrPort) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

func msgBrokerErrorsJSON(fs []lookup.BrokerFailure) []BrokerErrorJSON {
	var out []BrokerErrorJSON
	for _, f := range fs {
		out = append(out, BrokerErrorJSON{Broker: f.Broker, Error: f.Err.Error()})
	}
	return out
}

// messagesJSON is the API's answer r to a key query (rq nil) or to the range query rq.
func messagesJSON(r *lookup.Result, rq *lookup.RangeQuery) MessagesJSON {
	j := MessagesJSON{Messages: make([]MessageJSON, 0, len(r.Messages)), MessagesSummaryJSON: messagesSummaryJSON(r, rq)}
	for _, m := range r.Messages {
		j.Messages = append(j.Messages, messageJSON(m))
	}
	return j
}

func messagesSummaryJSON(r *lookup.Result, rq *lookup.RangeQuery) MessagesSummaryJSON {
	j := MessagesSummaryJSON{
		Limit: r.Limit, Truncated: r.Truncated, Total: r.Total, TotalIsLowerBound: r.TotalIsLowerBound,
		CappedBrokers: r.CappedBrokers, Failures: r.Failures, Errors: msgBrokerErrorsJSON(r.Failures), FromSlaves: r.FromSlaves,
	}
	if rq != nil {
		n := r.InRange
		j.InRange = &n
		if c, ok := r.Older(*rq); ok {
			ms := c.End.UnixMilli()
			j.OlderEnd, j.OlderSkip = &ms, &c.Skip
		}
		j.Scanned, j.ScanLimited = r.Scanned, r.ScanLimited
		if r.ScanLimited {
			j.ScannedBackTo = r.ScannedBackTo.UnixMilli()
		}
	}
	return j
}

func msgGroupsJSON(gs []lookup.GroupState) []GroupConsumeJSON {
	out := make([]GroupConsumeJSON, 0, len(gs))
	for _, g := range gs {
		out = append(out, GroupConsumeJSON{Group: g.Group, State: string(g.State), ConsumerOffset: g.ConsumerOffset,
			Online: g.Online, Subscription: g.Subscription, Reason: g.Reason.String()})
	}
	return out
}
