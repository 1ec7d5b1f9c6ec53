package views

// APIDocsVM is the page of the API document: its operations by area, then its schemas.
// The document's own words (summaries, descriptions) are English, as the contract is.
type APIDocsVM struct {
	Title   string
	Version string
	// Intro is the document's description, paragraph by paragraph.
	Intro []APIBlock
	// DocURL is the document as JSON.
	DocURL  string
	Servers []APIServer
	Areas   []APIArea
	Schemas []APISchema
	// Operations counts the operations of every area.
	Operations int
}

// APIBlock is a paragraph of the document's prose, or a list: text with `code` and
// **strong** parts.
type APIBlock struct {
	Spans []APISpan
	// Items, when set, make the block a list.
	Items [][]APISpan
}

// APISpan is a run of text.
type APISpan struct {
	Text   string
	Code   bool
	Strong bool
}

// APIServer is a prefix the paths are relative to.
type APIServer struct {
	URL         string
	Description string
}

// APIArea is the operations of one tag.
type APIArea struct {
	Name        string
	Description string
	Operations  []APIOperation
}

// APIOperation is one method on one path.
type APIOperation struct {
	// ID is the operationId, the operation's anchor on the page.
	ID          string
	Method      string
	Path        string
	Summary     string
	Description []APIBlock
	Parameters  []APIParameter
	// Body is the request body's type, nil when the operation takes none.
	Body         *APIType
	BodyRequired bool
	Responses    []APIResponse
}

// APIParameter is a path or query parameter.
type APIParameter struct {
	Name        string
	In          string
	Type        APIType
	Required    bool
	Description string
}

// APIResponse is one status an operation answers.
type APIResponse struct {
	Status      string
	Description string
	// Types are the answer's content types with their schema.
	Types []APIContent
}

// APIContent is a media type and its schema.
type APIContent struct {
	MediaType string
	Type      APIType
}

// APIType says a schema in a few words: its parts are text, or the names of schemas of
// the document, linked to their anchors.
type APIType struct {
	Parts []APITypePart
}

// APITypePart is a word of a type ("array of ", "string") or a schema's name (Ref).
type APITypePart struct {
	Text string
	// Ref is the schema's name when the part names one.
	Ref string
}

// APISchema is a named schema and its fields, nested objects flattened
// ("brokers[].addr").
type APISchema struct {
	Name        string
	Description string
	// Type is the schema's type when it is not an object (an enum of strings).
	Type   APIType
	Fields []APIField
	// Closed: an answer with a field not listed here is refused by the tests.
	Closed bool
}

// APIField is one field of a schema.
type APIField struct {
	Name        string
	Type        APIType
	Required    bool
	Description string
}

// APISchemaAnchor is the page anchor of the schema named name.
func APISchemaAnchor(name string) string { return "schema-" + name }

// APIOperationAnchor is the page anchor of the operation with id.
func APIOperationAnchor(id string) string { return "op-" + id }

// mediaJSON is the media type of every request body of the API.
const mediaJSON = "application/json"
