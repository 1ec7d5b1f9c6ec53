package views

// TraceVM is a message's trace as its page shows it: the sends, where the message was
// stored, and each consumer group's attempts, read from the trace topic.
type TraceVM struct {
	// Topic is the trace topic read; TopicNote says where its name came from.
	Topic     string
	TopicNote string
	// AskedTopic is the ?traceTopic= of the URL (the form keeps it); Hidden are the
	// other parameters the form carries along.
	AskedTopic string
	Hidden     []HiddenField
	// Error is a trace topic that cannot be read as typed (the field is refused).
	Error string
	// Off explains why there is nothing to show: tracing off, or no trace topic.
	Off string
	// Notes are what limits the answer (records that could not be read, the index's
	// cap); Failures are brokers that did not answer.
	Notes    []string
	Failures []string

	Published    []TracePubRow
	Transactions []TraceTxRow
	Groups       []TraceGroupRow
	// APIURL is the same trace as JSON.
	APIURL string
}

// TracePubRow is one send of the message and where it was stored.
type TracePubRow struct {
	Group, ClientHost, Time, Cost string
	Status, StatusClass           string
	Keys, Tags, MsgType, BodySize string
	StoreHost                     string
	StoreBroker, StoreBrokerURL   string
	OffsetMsgID, OffsetMsgIDURL   string
}

// TraceTxRow is a transactional producer's commit or rollback.
type TraceTxRow struct {
	Group, ClientHost, Time, State, TransactionID string
	FromCheck                                     bool
}

// TraceGroupRow is one consumer group's attempts.
type TraceGroupRow struct {
	Group, URL string
	// Summary is a short verdict ("consumed on attempt 2 of 2", "never succeeded").
	Summary, SummaryClass string
	Attempts              []TraceAttemptRow
}

// TraceAttemptRow is one delivery to a client's listener.
type TraceAttemptRow struct {
	N                   int
	ClientHost, Time    string
	Retry, Cost         string
	Status, StatusClass string
	Returned            string
}
