package views

// SeveralResetVM is /topics/{topic}/resets: the reset of several groups of a topic,
// its previews and one confirmation, then each group's outcome.
type SeveralResetVM struct {
	Topic                                                  string
	Groups, Pattern, Mode, Timestamp, Shift, MsgID, Reason string
	Skip                                                   bool
	Error                                                  string
	FieldErrors                                            map[string]string
	// Preview is set once previewed: each group, and the one confirmation.
	Preview *SeveralPreviewVM
	// Result is set once applied.
	Result *SeveralResultVM
}

// SeveralPreviewVM is the previews of every group and what the confirmation applies.
type SeveralPreviewVM struct {
	PlanID, Action string
	Rows           []SeveralRowVM
	CanApply       bool
}

// SeveralRowVM is one group: how many of its queues move, or why it is not reset.
type SeveralRowVM struct {
	Group, GroupURL, Moves, Refused string
	Warnings                        []string
}

// SeveralResultVM is each group's outcome and the summary entry.
type SeveralResultVM struct {
	Summary, SummaryURL, Error string
	Rows                       []SeveralOutcomeVM
}

// SeveralOutcomeVM is one group's outcome.
type SeveralOutcomeVM struct {
	Group, Status, EntryURL, EntryID, Error string
}
