package views

// TopicFormVM is the form that creates a topic (on /topics) or updates one (on its page).
type TopicFormVM struct {
	// Update is set on a topic's page: the name is fixed, the fields show what the topic
	// has, and only the fields changed from that are sent.
	Update bool
	Action string
	Topic  string
	// The fields as shown (or as typed, when the form comes back with an error).
	ReadQueueNums, WriteQueueNums, Perm, MessageType string
	Order                                            bool
	// Orig are the values the update form started from, sent back so that only what
	// the user changed is changed.
	Orig TopicFormOrig
	// Brokers are the cluster's brokers, each ticked when the topic goes (or is) there.
	Brokers []TopicBrokerChoice
	// Any5 is set when some broker runs 5.x (message types); Any4 when some runs 4.x.
	Any5, Any4  bool
	FieldErrors map[string]string
	// ExistingURL is the page of the topic the create form named, which exists already:
	// its update form is where the topic is changed.
	ExistingURL string
	// Error is a sentence for the whole form (a broker that could not be read first).
	Error  string
	Result *TopicChangeResultVM
}

// FieldError returns the sentence for a field, "" when it is fine.
func (vm TopicFormVM) FieldError(name string) string { return vm.FieldErrors[name] }

// TopicFormOrig is what an update form started from.
type TopicFormOrig struct {
	ReadQueueNums, WriteQueueNums, Perm, MessageType, Order string
}

// TopicBrokerChoice is one broker of the form's broker list.
type TopicBrokerChoice struct {
	Name, Cluster string
	Is5, Checked  bool
}

// TopicDeleteVM is the form that deletes a topic: its name typed again.
type TopicDeleteVM struct {
	Action, Topic, Confirm string
	Brokers                []string
	FieldErrors            map[string]string
	Error                  string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (vm TopicDeleteVM) FieldError(name string) string { return vm.FieldErrors[name] }

// TopicChangeResultVM is what a create, update or delete did, broker by broker.
type TopicChangeResultVM struct {
	Status, StatusClass, Text string
	EntryURL, TopicURL        string
	Error                     string
	Rows                      []AuditChangeRow
}

// PermOption is one choice of the permission select.
type PermOption struct {
	Value, Label string
	// Current marks the topic's own permission, when it is none of PermOptions.
	Current bool
}

// PermOptions are the permissions a topic can be given, as RocketMQ numbers them.
var PermOptions = []PermOption{
	{Value: "6", Label: "read and write (6, RW)"},
	{Value: "4", Label: "read only (4, R-)"},
	{Value: "2", Label: "write only (2, -W)"},
}

// PermChoices are PermOptions, led by the topic's own permission when it is none of them
// (7 adds the inherit bit): a select without it would show the first option, and a save
// that changed nothing else would send that permission instead of keeping the topic's.
func (vm TopicFormVM) PermChoices() []PermOption {
	for _, o := range PermOptions {
		if o.Value == vm.Perm {
			return PermOptions
		}
	}
	if vm.Perm == "" {
		return PermOptions
	}
	return append([]PermOption{{Value: vm.Perm, Label: vm.Perm + " (as it is now)", Current: true}}, PermOptions...)
}
