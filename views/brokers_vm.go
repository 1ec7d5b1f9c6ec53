package views

// BrokersVM is the broker list.
type BrokersVM struct {
	Configured bool
	Error      string
	Rows       []BrokerProcessRow
	Failures   []string
	CheckedAt  string
	CheckedISO string
	// Total counts every process; Shown the rows up to this page's last.
	Total, Shown int
	// NextURL is the page after this one ("" on the last); MoreURL fetches its rows
	// alone. FirstURL is set past page one.
	NextURL, MoreURL, FirstURL string
}

// Pager is the list's paging links and More row.
func (vm BrokersVM) Pager() Pager {
	return Pager{ID: "brokers", FirstURL: vm.FirstURL, NextURL: vm.NextURL, MoreURL: vm.MoreURL,
		CountID: "brokers.count", Shown: vm.Shown, Total: vm.Total}
}

// BrokerProcessRow is one broker process with its figures.
type BrokerProcessRow struct {
	Cluster    string
	Name       string
	URL        string
	ID         string
	Role       string
	Addr       string
	Version    string
	PutTPS     string
	GetTPS     string
	CommitLog  string // "min – max"
	Disk       string
	PageLock   string
	Dispatch   string
	Started    string
	StartedISO string
	Error      string
	// Gone: the process left the NameServer's cluster info; Error is the whole sentence.
	Gone bool
}

// BrokerVM is one broker's page.
type BrokerVM struct {
	Name       string
	Cluster    string
	Rows       []BrokerProcessRow
	Configs    []BrokerConfigVM
	Failures   []string
	CheckedAt  string
	CheckedISO string
	// WSURL is the live TPS chart's websocket; "" without one.
	WSURL string
	// ConfigFilter keeps the configuration keys that contain it; "" keeps all (and the
	// sections stay closed).
	ConfigFilter string
	// Diagnosis is what is wrong with the broker now.
	Diagnosis DiagnosisVM
}

// BrokerConfigVM is one process's configuration.
type BrokerConfigVM struct {
	// Role, Addr and ID name the process: "master 10.0.0.1:10911 (broker id 0)".
	Role, Addr, ID string
	// Sections are the entries by what they tune (identity, storage, …), each closed
	// until opened: some four hundred keys in one table made the page 12 000 px tall.
	Sections []BrokerConfigSection
	// Keys is how many keys the process has, Shown how many the filter kept.
	Keys, Shown int
	// Missing says why the configuration could not be read.
	Missing bool
}

// BrokerConfigSection is one section of a process's configuration.
type BrokerConfigSection struct {
	// ID names the section (brokers.Section*), its title is the catalogue's
	// broker.config.section.<ID>.
	ID      string
	Entries []BrokerConfigEntry
}

// BrokerConfigEntry is one configuration key and value.
type BrokerConfigEntry struct {
	Key, Value string
	Masked     bool
}
