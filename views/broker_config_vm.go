package views

// BrokerDriftVM is /brokers/config-drift: per cluster, its masters and slaves side by
// side and the configuration keys whose values differ between them.
type BrokerDriftVM struct {
	Error      string
	Failures   []string
	Clusters   []DriftClusterVM
	CheckedAt  string
	CheckedISO string
	// All shows the keys that differ by design (names, ids, ports, paths) too.
	All bool
}

// DriftClusterVM is one cluster's processes and differing keys.
type DriftClusterVM struct {
	Cluster   string
	Processes []DriftProcessVM
	Keys      []DriftKeyVM
	// Expected counts the keys that differ by design and are not shown.
	Expected int
}

// DriftProcessVM is one process, a column of the table.
type DriftProcessVM struct {
	Label, Role, Addr, URL string
}

// DriftKeyVM is one key's value on each process.
type DriftKeyVM struct {
	Key      string
	Expected bool
	Cells    []DriftCellVM
	// EditURL changes the key on the broker of the first process that differs.
	EditURL string
}

// DriftCellVM is one value; Odd marks a value that differs from the first process's.
type DriftCellVM struct {
	Value       string
	Absent, Odd bool
}

// BrokerConfigEditVM is /brokers/{name}/config: the form that changes keys of a broker's
// configuration, its preview and its outcome.
type BrokerConfigEditVM struct {
	Broker, Cluster string
	Error           string
	Form            BrokerConfigForm
	Preview         *BrokerConfigPreviewVM
	Result          *ChangeResultVM
}

// BrokerConfigForm is the change: "key=value" lines, and where it goes.
type BrokerConfigForm struct {
	Action, Config, Scope string
	FieldErrors           map[string]string
	Error                 string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (f BrokerConfigForm) FieldError(name string) string { return f.FieldErrors[name] }

// BrokerConfigPreviewVM is a previewed configuration change, process by process.
type BrokerConfigPreviewVM struct {
	PlanID, Action, Button, ExpiresAt string
	// Secrets are the keys whose new values are typed again to apply.
	Secrets      []string
	Drift        string
	Processes    []PreviewBrokerVM
	ConfirmError string
	SecretError  string
}
