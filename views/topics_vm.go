package views

import "net/url"

// TopicsVM is the topic list.
type TopicsVM struct {
	Configured bool
	// Error is shown instead of the table when the list could not be read at all.
	Error string
	// FormError is a sentence about bad filter input, shown next to the form.
	FormError string
	Rows      []TopicListRow
	// Total counts the topics the filter keeps, on every page; Hidden the system ones
	// left out.
	Total, Hidden int
	// Shown counts the rows up to this page's last (earlier pages included).
	Shown int
	// NextURL is the page after this one ("" on the last); MoreURL fetches its rows
	// alone, for htmx to put in place of the "More" row. FirstURL is set past page one.
	NextURL, MoreURL, FirstURL string
	Filter                     string
	Type                       string
	Types                      []string
	System                     bool
	Sort                       string
	Desc                       bool
	SortLinks                  map[string]SortLink
	CheckedAt                  string
	CheckedISO                 string
	Took                       string
	// SortNote says the order by messages or TPS is the figures' in memory, with their
	// age and how many topics have none yet.
	SortNote   string
	RefreshURL string
	Failures   []string
	// Create is the create form, for operators; ChangeNote says why there is none.
	Create     *TopicFormVM
	ChangeNote string
}

// TopicListRow is one topic in the list.
type TopicListRow struct {
	Topic       string
	URL         string
	MessagesURL string
	Type        string
	System      bool
	ReadQueues  int
	WriteQueues int
	Perm        string
	Brokers     []BrokerLink
	PutTPS      string
	Messages    string
	// Partial says the figures miss brokers (named in the failures above the table).
	Partial bool
	// FiguresAge is how old the figures are ("12 s ago"), FiguresAt and FiguresISO
	// when they were last known true; all "" when none is known, and FiguresWhy (with
	// FiguresWhyTitle) says why.
	FiguresAge, FiguresAt, FiguresISO string
	FiguresWhy, FiguresWhyTitle       string
}

// BrokerLink is a broker name linking to its page.
type BrokerLink struct {
	Name string
	URL  string
	// Unknown: the broker held the topic when it last answered and cannot be read now.
	Unknown bool
}

// TopicURL links a topic to its page.
func TopicURL(topic string) string { return "/topics/" + url.PathEscape(topic) }

// TopicTailURL links a topic to its live tail.
func TopicTailURL(topic string) string { return TopicURL(topic) + "/tail" }

// BrokerURL links a broker name to its page.
func BrokerURL(name string) string { return "/brokers/" + url.PathEscape(name) }

// TypeLabel is how a message type reads in a table.
func TypeLabel(t string) string {
	switch t {
	case "fifo":
		return "FIFO"
	case "normal":
		return "Normal"
	case "delay":
		return "Delay"
	case "transaction":
		return "Transaction"
	case "mixed":
		return "Mixed"
	}
	return "unknown"
}

// TopicVM is one topic's page.
type TopicVM struct {
	Topic       string
	Type        string
	TypeNote    string
	Order       bool
	System      bool
	MessagesURL string
	Messages    string
	PutTPS      string
	CheckedAt   string
	CheckedISO  string
	Failures    []string
	Route       []TopicRouteRow
	Queues      []TopicQueueRow
	Groups      []TopicGroupRow
	// GroupsNote says what the broker cannot tell about consumer groups.
	GroupsNote string
	// GroupsUnlisted: no broker named the topic's groups (Failures says why), so an
	// empty list means unknown, not none.
	GroupsUnlisted bool
	Producers      TopicProducersVM
	// Update and Delete are the forms that change the topic, for operators; ChangeNote
	// says why they are not there (a viewer, a system topic).
	Update *TopicFormVM
	// Send is the form that sends a message to the topic, for operators.
	Send       *TopicSendVM
	Delete     *TopicDeleteVM
	ChangeNote string
}

// TopicRouteRow is one broker of the route.
type TopicRouteRow struct {
	Broker      BrokerLink
	Master      string
	Slaves      []string
	ReadQueues  int
	WriteQueues int
	Perm        string
}

// TopicQueueRow is one queue's offsets.
type TopicQueueRow struct {
	Broker     string
	QueueID    int
	MinOffset  string
	MaxOffset  string
	Messages   string
	LastUpdate string
	LastISO    string
}

// TopicGroupRow is a consumer group of the topic.
type TopicGroupRow struct {
	Group   string
	URL     string
	Lag     string
	TPS     string
	Last    string
	LastISO string
	Partial bool
	// Clients are the group's online clients, gRPC clients known only to a Proxy included.
	Clients []TopicGroupClient
}

// TopicGroupClient is an online client of a consumer group of the topic.
type TopicGroupClient struct {
	ID, URL, Addr, Language, Protocol, KnownTo string
}

// TopicProducersVM is the producers section.
type TopicProducersVM struct {
	// Listed is set when the brokers listed their producers (5.x).
	Listed bool
	// Unsupported: the brokers' version cannot list them (else they failed).
	Unsupported bool
	Groups      []TopicProducerGroupVM
	LookedUp    string
	// FormURL is where the producer-group lookup form goes.
	FormURL string
}

// TopicProducerGroupVM is a producer group and its connections.
type TopicProducerGroupVM struct {
	Group       string
	Connections []TopicProducerRow
}

// TopicProducerRow is one producer client.
type TopicProducerRow struct {
	ClientID   string
	ClientAddr string
	Language   string
	Version    string
	Brokers    string
	Heartbeat  string
	HeartISO   string
}

// Pager is the list's paging links and More row.
func (vm TopicsVM) Pager() Pager {
	return Pager{ID: "topics", FirstURL: vm.FirstURL, NextURL: vm.NextURL, MoreURL: vm.MoreURL,
		CountID: "topics.count", Shown: vm.Shown, Total: vm.Total}
}
