package views

// TopicSendVM is the form that sends a message to a topic, on the topic's page.
type TopicSendVM struct {
	Action string
	Topic  string
	// The fields as typed: keys separated by spaces, one property name=value a line.
	Body, Tags, Keys, Properties, DeliverAt, DelayLevel, QueueID, BrokerName, MessageGroup string
	// BodyEncoding is "base64" when Body holds a body that is not text.
	BodyEncoding string
	// CopiedFrom is the message this one copies, when the form was opened from it.
	CopiedFrom  string
	FieldErrors map[string]string
	// Error is a sentence for the whole form (a topic that takes no messages, a broker
	// that could not be asked).
	Error  string
	Result *TopicSentVM
}

// FieldError returns the sentence for a field, "" when it is fine.
func (vm TopicSendVM) FieldError(name string) string { return vm.FieldErrors[name] }

// TopicSentVM is where a sent message was stored.
type TopicSentVM struct {
	MsgID, OffsetMsgID, BrokerName, Status string
	QueueID                                int
	QueueOffset                            int64
	AuditURL, MessageURL                   string
}

// fieldMsgID is what clients call a message's unique key.
const fieldMsgID = "msgId"
