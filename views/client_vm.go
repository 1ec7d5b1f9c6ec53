package views

// ClientVM is one client's page: its running info as it reported it.
type ClientVM struct {
	Group, GroupURL string
	ClientID        string
	APIURL          string
	// JstackURL asks for the page again with a thread dump.
	JstackURL               string
	Addr, Language, Version string
	// Protocol is remoting or gRPC; KnownTo is "broker" or "Proxy <address>".
	Protocol, KnownTo               string
	ConsumeType, MessageModel, Mode string
	ConsumeFrom                     string
	Started, StartedISO             string
	CheckedAt, CheckedISO           string
	// Unavailable says why the client's own report is missing.
	Unavailable string
	// HiddenTopics says how many topics the caller's rights leave out; "" when none.
	HiddenTopics  string
	Settings      []SettingRow
	Properties    []PropertyRow
	Subscriptions []SubscriptionRow
	Queues        []ProcessQueueRow
	PopQueues     []PopQueueRow
	Topics        []TopicConsumeRow
	JstackAsked   bool
	Jstack        string
	// JstackNote says why no dump came with the answer.
	JstackNote string
}

// SettingRow is a setting operators look for; Value "" means not reported. Key names it
// alike in every language (the English name), Name in the page's.
type SettingRow struct{ Key, Name, Meaning, Value, Property string }

// PropertyRow is one reported property.
type PropertyRow struct{ Name, Value string }

// SubscriptionRow is one subscribed topic.
type SubscriptionRow struct{ Topic, TopicURL, Expression, Type string }

// ProcessQueueRow is one queue the client holds.
type ProcessQueueRow struct {
	Topic, Broker               string
	QueueID                     int
	CachedCount, CachedMiB      string
	MinOffset, MaxOffset        string
	CommitOffset                string
	Consuming                   string
	Locked                      bool
	LastLock, LastLockISO       string
	LastPull, LastPullISO       string
	LastConsume, LastConsumeISO string
	Dropped                     bool
}

// PopQueueRow is one queue a POP consumer reads.
type PopQueueRow struct {
	Topic, Broker    string
	QueueID          int
	WaitAck          string
	LastPop, LastISO string
	Dropped          bool
}

// TopicConsumeRow is the client's rates for one topic.
type TopicConsumeRow struct {
	Topic                     string
	PullTPS, PullRT           string
	ConsumeTPS, ConsumeRT     string
	FailedTPS, FailedLastHour string
}
