package views

import (
	"net/url"
	"time"
)

// DeadLetterVM is what a message page says of a message in a retry or dead-letter
// topic: where it came from, and (for a dead letter) the resend to its original topic.
type DeadLetterVM struct {
	// Show is set for a message in a retry or dead-letter topic.
	Show bool
	// DeadLetter is set in a dead-letter topic, clear in a retry topic.
	DeadLetter bool
	Group      string
	// ReconsumeTimes is how often the message was delivered again.
	ReconsumeTimes string
	// OriginalTopic is the topic the message was first sent to ("" when it does not
	// say); OriginalID the offsetMsgId of the message that first failed.
	OriginalTopic, OriginalID string
	// CanResend offers the resend form (an operator, a dead letter with its original
	// topic); otherwise ResendNote says why not.
	CanResend  bool
	ResendURL  string
	ResendNote string
	// Dropped names the properties the resend leaves out.
	Dropped string
}

// ResendSearchVM offers to resend every message a search of a dead-letter topic shows.
type ResendSearchVM struct {
	Show bool
	// Topic is the dead-letter topic searched; IDs the offsetMsgIds of its messages
	// shown (empty when more than Limit were found).
	Topic string
	IDs   []string
	// Count is how many messages the search shows; Limit the most one resend takes.
	Count, Limit int
	// CanResend offers the button; Note says why it is not offered, or what it does.
	CanResend bool
	Note      string
}

// ResendResultVM is the page after a resend: what became of each dead letter.
type ResendResultVM struct {
	Group, DLQTopic string
	// Status is the audit entry's outcome; AuditURL its page.
	Status, AuditURL string
	Sent, Failed     int
	Rows             []ResendRow
	// BackURL returns to the dead-letter topic's messages.
	BackURL string
}

// ResendRow is one dead letter of a resend.
type ResendRow struct {
	DLQID, DLQURL                 string
	Topic                         string
	Broker, QueueID, QueueOffset  string
	MsgID, OffsetMsgID, ResentURL string
	Error                         string
}

// GroupDeadLettersVM is the group page's section on its retry and dead-letter topics.
type GroupDeadLettersVM struct {
	// Error says why the topics could not be read.
	Error string
	// Note says where a POP group's unacknowledged messages go.
	Note string
	Rows []GroupRetryTopicRow
}

// GroupRetryTopicRow is one of a group's retry and dead-letter topics.
type GroupRetryTopicRow struct {
	Kind, Topic string
	Exists      bool
	// Stored is how many messages the topic stores ("" when no broker said);
	// MessagesURL searches them.
	Stored, MessagesURL string
	// Note says what a missing topic means, or what the count leaves out.
	Note     string
	Failures []string
}

// RetainedMessagesURL searches a topic's messages over the last three days (how long a
// broker keeps its commit log by default): retry and dead-letter topics are rarely
// looked at within the hour their messages came.
func RetainedMessagesURL(topic string, now time.Time) string {
	return "/messages?" + url.Values{"tab": {"range"}, "topic": {topic},
		"begin": {now.UTC().Add(-72 * time.Hour).Format("2006-01-02 15:04")},
		"end":   {now.UTC().Add(time.Minute).Format("2006-01-02 15:04")}}.Encode()
}

// MessageURL links a message by its id; topic is needed for a unique key.
func MessageURL(id, topic string) string {
	u := "/messages/" + url.PathEscape(id)
	if topic != "" {
		u += "?" + url.Values{"topic": {topic}}.Encode()
	}
	return u
}

// DeadLettersVM is /dead-letters: every consumer group's dead-letter topic.
type DeadLettersVM struct {
	Configured bool
	// Error says why the topics could not be listed.
	Error string
	Rows  []DeadLetterRow
	// Failures are the brokers that did not say, one sentence each.
	Failures []string
	// Total counts every dead-letter topic; Shown the rows up to this page's last.
	Total, Shown int
	// NextURL is the page after this one ("" on the last); MoreURL fetches its rows
	// alone. FirstURL is set past page one.
	NextURL, MoreURL, FirstURL string
}

// Pager is the list's paging links and More row.
func (vm DeadLettersVM) Pager() Pager {
	return Pager{ID: "dlqs", FirstURL: vm.FirstURL, NextURL: vm.NextURL, MoreURL: vm.MoreURL,
		CountID: "dlqs.shown", Shown: vm.Shown, Total: vm.Total}
}

// DeadLetterRow is one group's dead-letter topic.
type DeadLetterRow struct {
	Group, GroupURL, Topic string
	// Stored is how many messages the topic stores; Newest the store time of the
	// newest (NewestISO "" when it is unknown or none is stored, Newest then saying so).
	Stored, Newest, NewestISO string
	// Partial: some broker did not say, so both may be short.
	Partial     bool
	MessagesURL string
}

// DeadLetterMessagesURL searches a dead-letter topic over the last three days, or, when
// its newest dead letter is older, over the day up to that one.
func DeadLetterMessagesURL(topic string, newest, now time.Time) string {
	if newest.IsZero() || newest.After(now.Add(-72*time.Hour)) {
		return RetainedMessagesURL(topic, now)
	}
	return "/messages?" + url.Values{"tab": {"range"}, "topic": {topic},
		"begin": {newest.UTC().Add(-24 * time.Hour).Format("2006-01-02 15:04")},
		"end":   {newest.UTC().Add(time.Minute).Format("2006-01-02 15:04")}}.Encode()
}
