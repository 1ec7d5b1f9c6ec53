package views

// DiagnosisVM is what is wrong now: the overview leads with it, each group's page has
// its own.
type DiagnosisVM struct {
	// Enabled: the console reads the group list each collector interval, so findings
	// can exist; without it the section is left out.
	Enabled bool
	// ReadAt is the read the findings come from (UTC); "" before the first.
	ReadAt string
	Rows   []FindingRow
	// Unread says, a line each, what the read could not read: the findings that need it
	// are missing or stale.
	Unread []string
}

// FindingRow is one finding, said in the reader's language.
type FindingRow struct {
	Kind, KindLabel         string
	Severity, SeverityLabel string
	Group                   string
	// Broker names the broker of a finding about a broker process ("" for a group's).
	Broker string
	// NameServer is the NameServer a finding about the NameServers is about.
	NameServer             string
	Evidence               string
	Since                  string
	ActionURL, ActionLabel string
}

// SubjectURL is the page of what the finding is about: its broker's or its group's.
func (r FindingRow) SubjectURL() string {
	if r.Broker != "" {
		return BrokerURL(r.Broker)
	}
	return GroupURL(r.Group)
}
