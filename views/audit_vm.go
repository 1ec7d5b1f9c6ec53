package views

// AuditListVM is the audit log, /audit: filters, the entries, exports, and whether the
// hash chain holds.
type AuditListVM struct {
	Filter      AuditFilterForm
	FieldErrors map[string]string
	Statuses    []string
	// Clusters is the cluster filter's choices, nil when the console has one cluster.
	Clusters []AuditClusterOption
	Rows     []AuditRowVM
	// Total counts the entries the filters keep; Shown the rows up to this page's last.
	Total, Shown int
	// TotalUnknown: the caller's rights hide some entries, and Total is not counted.
	TotalUnknown bool
	// NextURL is the page after this one ("" on the last); MoreURL fetches its rows
	// alone. FirstURL is set past page one.
	NextURL, MoreURL, FirstURL string
	ExportCSV                  string
	ExportJSON                 string
	Chain                      ChainVM
	Error                      string
}

// Pager is the list's paging links and More row.
func (vm AuditListVM) Pager() Pager {
	p := Pager{ID: "audit", FirstURL: vm.FirstURL, NextURL: vm.NextURL, MoreURL: vm.MoreURL,
		CountID: "audit.shown", Shown: vm.Shown, Total: vm.Total}
	if vm.TotalUnknown {
		p.CountID, p.Total = "audit.shown.unknown", vm.Shown
	}
	return p
}

// columns is how many columns the list's table has: one more with a cluster column.
func (vm AuditListVM) columns() int {
	if len(vm.Clusters) > 0 {
		return 11
	}
	return 10
}

// AuditClusterOption is one choice of the audit list's cluster filter: every cluster
// ("*") or one configured cluster, shown by its label.
type AuditClusterOption struct {
	Value, Label string
	Selected     bool
}

// FieldError returns the sentence for a filter field, "" when it is fine.
func (vm AuditListVM) FieldError(name string) string { return vm.FieldErrors[name] }

// AuditFilterForm is the filters as typed.
type AuditFilterForm struct {
	Group, Topic, Actor, Status, Since, Until string
	// Kind is what is listed: changes (""), sign-ins ("sign-in"), reads ("read") or all ("all").
	Kind string
	// HideRefused is the "hide refusals" box.
	HideRefused bool
}

// ChainVM says whether the audit log's hash chain holds.
type ChainVM struct {
	Checked  bool
	Intact   bool
	Sealed   string
	Pending  string
	Head     string
	Problems []string
	Error    string
}

// AuditRowVM is one entry in the list.
type AuditRowVM struct {
	ID, URL, Started, Actor, ActorAddr, Group, GroupURL, Topics, Mode, Status, StatusClass, Reason, Error string
	// Cluster is the entry's cluster's label, shown when the console has several.
	Cluster string
	// Changed counts what the entry changed: "8 queues", "2 brokers", "1 message".
	Changed string
	// Refused marks a refused attempt: nothing reached the cluster, and the row says why.
	Refused bool
}

// AuditParam is one parameter of the request an entry records.
type AuditParam struct{ Name, Value string }

// AuditEntryVM is one entry in full, /audit/{id}.
type AuditEntryVM struct {
	ID          string
	Status      string
	StatusClass string
	StatusText  string
	Started     string
	Finished    string
	Duration    string
	Actor       string
	ActorAddr   string
	Cluster     string
	Group       string
	GroupURL    string
	ResetURL    string
	Topics      []string
	Mode        string
	Params      []AuditParam
	Reason      string
	Error       string
	Warnings    []string
	Online      string
	Clients     []string
	Brokers     []ResetBrokerRow
	PlanHash    string
	PlannedAt   string
	Queues      []AuditQueueRow
	// Change is set for every entry that is not an offset reset (a topic created, a
	// message resent): shown instead of the reset's plan and queues.
	Change   *AuditChangeVM
	Seq      string
	Hash     string
	PrevHash string
	JSONURL  string
	// UndoURL is where the Undo button previews putting the reset back ("" when it
	// cannot be undone or the reader may not reset).
	UndoURL string
	// Undoes links the entry this one undoes; UndoneBy the entries that undo this one.
	Undoes   *AuditLink
	UndoneBy []AuditLink
}

// AuditQueueRow is one queue of an entry: before, target, after.
type AuditQueueRow struct {
	Topic, Broker, QueueID, Addr    string
	Before, Target, After, Min, Max string
	// Moved is After - Before, signed ("" when After is unknown).
	Moved       string
	Method      string
	Note, Error string
	// OK is true when After equals Target.
	Class string
}

// shortHash is the first 12 hex digits of a hash, enough to tell hashes apart by eye.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// AuditLink is a link with its text.
type AuditLink struct{ Text, URL string }

// AuditChangeVM is a change other than a reset: what it did, the configuration before
// and after, field by field, and one row per broker or message it went through.
type AuditChangeVM struct {
	// What says what the mode did ("Topic created").
	What string
	// Unit is what a row is: "broker", "message".
	Unit   string
	Topics []AuditLink
	Config []AuditConfigRow
	Rows   []AuditChangeRow
	// ShowQueue is set when the rows are messages: each has its queue and offset.
	ShowQueue bool
}

// AuditConfigRow is one field of a change's configuration, before and after ("—" when
// it had none).
type AuditConfigRow struct {
	Field, Before, After string
	Changed              bool
}

// AuditChangeRow is one broker (or message) of a change and its outcome.
type AuditChangeRow struct {
	Topic, Broker, Addr, Method, Note, Error string
	Outcome, Class                           string
	QueueID, Offset                          string
}
