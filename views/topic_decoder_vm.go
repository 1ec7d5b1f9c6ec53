package views

// TopicDecoderVM is a topic's Decoding page: how its message bodies are read, where that
// comes from, and (for an admin) the form that sets the console's decoder.
type TopicDecoderVM struct {
	Topic string
	// Now says how the bodies are read now; From where that comes from (the config
	// file, the console, or neither).
	Now, From string
	// Origin is file, console or "" (none), for tests and styling.
	Origin string
	// Shadowed is set when the console holds a decoder the config file's overrides:
	// the sentence saying so.
	Shadowed string
	// Broken says why the console's decoder cannot be built here; ReadErr that the
	// database could not be read.
	Broken, ReadErr string
	// Done is the outcome of the last change (saved, removed), with its audit link.
	Done string
	// CanChange is set for an admin: the form and the remove button show.
	CanChange bool
	Form      DecoderFormVM
	Preview   *DecoderPreviewVM
	// CanRemove is set when the console holds a decoder of the topic.
	CanRemove    bool
	RemoveAction string
	// List is every decoder of the cluster.
	List []DecoderRowVM
}

// DecoderFormVM is the form as shown, or as sent when it comes back.
type DecoderFormVM struct {
	Action  string
	Type    string
	Message string
	// SourceName and SourceData (base64) carry a file chosen before, so a preview
	// need not be followed by choosing it again; SourceNote says which file that is.
	SourceName, SourceData, SourceNote string
	FieldErrors                        map[string]string
	// Error is a sentence for the whole form.
	Error string
}

// FieldError returns the sentence for a field, "" when it is fine.
func (vm DecoderFormVM) FieldError(name string) string { return vm.FieldErrors[name] }

// DecoderPreviewVM is the topic's newest message read with the form's decoder.
type DecoderPreviewVM struct {
	// Empty says the topic holds no message (or none could be read, with Error).
	Empty, Error string
	Failures     []string
	MessageID    string
	MessageURL   string
	StoredAt     string
	How, Kind    string
	Problem      string
	Text         string
	CutNote      string
	// Masked says the text is masked for the reader's role; "" when it is not.
	Masked string
}

// DecoderRowVM is one decoder of the cluster's list.
type DecoderRowVM struct {
	Topic, TopicURL, Type, Message, Source, From string
	// NotInUse says why the decoder is not used ("" when it is).
	NotInUse string
}
