package views

// BrokersVM is the broker list.
type BrokersVM struct {
	Configured bool
	Error      string
	Rows       []BrokerProcessRow
	Failures   []string
	CheckedAt  string
	CheckedISO string
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
}

// BrokerConfigVM is one process's configuration.
type BrokerConfigVM struct {
	// Role, Addr and ID name the process: "master 10.0.0.1:10911 (broker id 0)".
	Role, Addr, ID string
	Entries        []BrokerConfigEntry
	// Missing says why the configuration could not be read.
	Missing bool
}

// BrokerConfigEntry is one configuration key and value.
type BrokerConfigEntry struct {
	Key, Value string
	Masked     bool
}
