package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// Request is a client's Anthropic Messages request. Fields holds every
// top-level field exactly as the client sent it, so a passthrough keeps what
// the gateway does not know; the typed fields are decoded views of it.
type Request struct {
	Model         string                     `json:"model"`
	Messages      []Message                  `json:"messages"`
	System        Content                    `json:"system,omitempty"`
	MaxTokens     int                        `json:"max_tokens,omitempty"`
	Stream        bool                       `json:"stream,omitempty"`
	Temperature   *float64                   `json:"temperature,omitempty"`
	TopP          *float64                   `json:"top_p,omitempty"`
	TopK          *int                       `json:"top_k,omitempty"`
	StopSequences []string                   `json:"stop_sequences,omitempty"`
	Metadata      *Metadata                  `json:"metadata,omitempty"`
	Tools         []Tool                     `json:"tools,omitempty"`
	ToolChoice    *ToolChoice                `json:"tool_choice,omitempty"`
	Thinking      ThinkingParam              `json:"thinking"`
	Fields        map[string]json.RawMessage `json:"-"`

	// GatewayThinking reports an assistant turn holding a thinking block
	// whose signature has the gateway's envelope shape (verified or not):
	// what a passthrough must rewrite.
	GatewayThinking bool `json:"-"`

	// scan is set while Messages and System wait for Complete
	// (ScanRequest).
	scan *requestScan
	// order is the top-level names in the client's order (FieldOrder).
	order []string

	// rewritten replaces the messages field in MarshalFields when
	// hasRewritten is set (SetMessages).
	rewritten    []Message
	hasRewritten bool
	// encodedMessages, when set, is written for the messages field
	// (SetMessagesJSON).
	encodedMessages []byte
}

// Metadata is the request's metadata object.
type Metadata struct {
	UserID string `json:"user_id,omitempty"`
}

// Message is one conversation turn. Content given as a plain string is
// decoded as a single text block, with StringContent set.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Content is a list of content blocks that also accepts a bare string, the
// short form Anthropic allows for system prompts, message and tool_result content.
type Content struct {
	Blocks []Block
	// IsString records that the client sent a string.
	IsString bool
	// Present is false when the field was absent or null.
	Present bool
}

// UnmarshalJSON accepts a string, an array of blocks, or null.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*c = Content{}
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content{Blocks: []Block{{Type: "text", Text: s}}, IsString: true, Present: true}
		return nil
	case b[0] == '[':
		c.Present = true
		return json.Unmarshal(b, &c.Blocks)
	}
	return fmt.Errorf("content must be a string or an array of content blocks")
}

// MarshalJSON writes the string form when the client used it.
func (c Content) MarshalJSON() ([]byte, error) {
	if !c.Present {
		return []byte("null"), nil
	}
	if c.IsString && len(c.Blocks) == 1 && c.Blocks[0].Type == "text" {
		return json.Marshal(c.Blocks[0].Text)
	}
	if c.Blocks == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(c.Blocks)
}

// Text joins the text of the text blocks.
func (c Content) Text() string {
	if len(c.Blocks) == 1 && c.Blocks[0].Type == "text" {
		return c.Blocks[0].Text
	}
	var b []byte
	for _, blk := range c.Blocks {
		if blk.Type == "text" {
			b = append(b, blk.Text...)
		}
	}
	return string(b)
}

// Block is one content block. Raw keeps the block as sent, so converters can
// forward what they do not interpret.
type Block struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// thinking, redacted_thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	// image, document
	Source *Source `json:"source,omitempty"`
	// tool_use, server_tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID string   `json:"tool_use_id,omitempty"`
	Content   *Content `json:"content,omitempty"`
	IsError   bool     `json:"is_error,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the block and keeps its raw form.
func (b *Block) UnmarshalJSON(data []byte) error {
	type plain Block
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*b = Block(p)
	// data is a sub-slice of the request body (encoding/json hands its
	// input to UnmarshalJSON), which lives as long as the request: no copy.
	b.Raw = data
	return nil
}

// MarshalJSON writes the raw form when the block is unchanged.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.Raw != nil {
		return b.Raw, nil
	}
	type plain Block
	return json.Marshal(plain(b))
}

// Source is an image or document source. A search_result block's source is
// a plain string (where the result came from); it decodes as Type "string"
// with the value in URL.
type Source struct {
	Type      string `json:"type"` // base64, url, text, file, string
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// UnmarshalJSON accepts a source object or a string.
func (s *Source) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '"' {
		*s = Source{Type: "string"}
		return json.Unmarshal(t, &s.URL)
	}
	type plain Source
	return json.Unmarshal(b, (*plain)(s))
}

// Tool is a tool definition. Raw keeps the definition as sent.
type Tool struct {
	Type        string          `json:"type,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the tool and keeps its raw form.
func (t *Tool) UnmarshalJSON(data []byte) error {
	type plain Tool
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*t = Tool(p)
	t.Raw = data // a sub-slice of the request body, as Block.Raw
	return nil
}

// IsCustom reports whether the tool is a client tool with a schema rather
// than a server tool (web_search_…, bash_…) that only Anthropic runs.
func (t Tool) IsCustom() bool {
	return t.Type == "" || t.Type == "custom" || len(t.InputSchema) > 0
}

// ToolChoice is the request's tool_choice.
type ToolChoice struct {
	Type                   string `json:"type"` // auto, any, tool, none
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

// ThinkingParam is the request's thinking field in any of the accepted forms:
// absent, true/false (non-standard, accepted for older clients), or an object with type
// enabled (budget_tokens), disabled or adaptive.
type ThinkingParam struct {
	Present      bool
	Type         string // enabled, disabled, adaptive; "" for the boolean form
	Bool         *bool
	BudgetTokens int
	Display      string
}

// UnmarshalJSON accepts a boolean, an object, or null.
func (t *ThinkingParam) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*t = ThinkingParam{}
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case string(b) == "true" || string(b) == "false":
		v := string(b) == "true"
		*t = ThinkingParam{Present: true, Bool: &v}
		return nil
	case b[0] == '{':
		var o struct {
			Type         string          `json:"type"`
			BudgetTokens json.RawMessage `json:"budget_tokens"`
			Display      string          `json:"display"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return fmt.Errorf("thinking: %v", err)
		}
		t.Present, t.Type, t.Display = true, o.Type, o.Display
		if t.Type == "" {
			t.Type = "enabled"
		}
		if len(o.BudgetTokens) > 0 && string(o.BudgetTokens) != "null" {
			n, err := strconv.Atoi(string(o.BudgetTokens))
			if err != nil {
				return fmt.Errorf("thinking.budget_tokens must be an integer")
			}
			t.BudgetTokens = n
		}
		switch t.Type {
		case "enabled", "disabled", "adaptive":
			return nil
		}
		return fmt.Errorf("thinking.type must be one of enabled, disabled, adaptive; got %q", t.Type)
	}
	return fmt.Errorf("thinking must be an object or a boolean")
}

// Enabled reports whether thinking is on for this request; defaultOn decides
// a request that does not say (the default is on).
func (t ThinkingParam) Enabled(defaultOn bool) bool {
	switch {
	case !t.Present:
		return defaultOn
	case t.Bool != nil:
		return *t.Bool
	}
	return t.Type != "disabled"
}

// ParseRequest decodes an Anthropic Messages request body. It checks what every
// provider relies on (a JSON object with a messages array) and returns a 400
// Error otherwise. countTokens relaxes the checks for /v1/messages/count_tokens.
//
// The body is decoded once. Fields and every Raw (of a block, of a tool)
// are sub-slices of body, not copies, so a request costs little more than
// its body and its decoded text; the caller must not change body afterwards.
func ParseRequest(body []byte) (*Request, error) {
	if r, ok := walkRequest(body); ok {
		if err := checkRequest(r); err != nil {
			return nil, err
		}
		r.GatewayThinking = hasGatewayThinking(r.Messages)
		return r, nil
	}
	return decodeRequest(body)
}

// decodeRequest is ParseRequest by encoding/json alone, for what the walk
// leaves to it (and, in the tests, for any body, as the walk's reference).
func decodeRequest(body []byte) (*Request, error) {
	// Unmarshal validates the whole body before it decodes anything, so a
	// syntax error is found before any other; a separate json.Valid pass
	// would walk the body once more for nothing.
	if jsonbytes.Valid(body) {
		if err := tooMany(body); err != nil {
			return nil, err
		}
		if messagesTwice(body) {
			return nil, errMessagesTwice
		}
	}
	r := &Request{}
	decodeErr := json.Unmarshal(body, r)
	if se := (*json.SyntaxError)(nil); errors.As(decodeErr, &se) {
		return nil, InvalidRequest("request body is not valid JSON: " + jsonErrorText(decodeErr))
	}
	if t := bytes.TrimSpace(body); t[0] != '{' {
		return nil, InvalidRequest("request body must be a JSON object")
	}
	fields, ok := topLevelFields(body)
	if !ok {
		// A name jsonparser reads differently from encoding/json: decode
		// the fields as encoding/json does, copies and all.
		fields = nil
		if err := json.Unmarshal(body, &fields); err != nil {
			return nil, InvalidRequest("request body is not valid JSON: " + jsonErrorText(err))
		}
	}
	if decodeErr != nil {
		return nil, InvalidRequest("invalid request: " + jsonErrorText(decodeErr))
	}
	r.Fields = fields
	if err := checkRequest(r); err != nil {
		return nil, err
	}
	r.GatewayThinking = hasGatewayThinking(r.Messages)
	return r, nil
}

// checkRequest checks what every provider relies on in a decoded request.
func checkRequest(r *Request) error {
	if raw, ok := r.Fields["messages"]; !ok || string(bytes.TrimSpace(raw)) == "null" {
		return InvalidRequest("messages: Field required")
	}
	for i, m := range r.Messages {
		switch m.Role {
		case "user", "assistant", "system":
		default:
			return InvalidRequest(fmt.Sprintf("messages.%d.role: must be \"user\" or \"assistant\", got %q", i, m.Role))
		}
	}
	return nil
}

// topLevelFields maps each member of the JSON object body (valid JSON) to
// its raw value, a sub-slice of body. A repeated name keeps its last value,
// as encoding/json does. ok is false when a name holds what jsonparser and
// encoding/json decode differently (invalid UTF-8, a lone surrogate escape).
func topLevelFields(body []byte) (_ map[string]json.RawMessage, ok bool) {
	fields := make(map[string]json.RawMessage, 16)
	ok = true
	err := jsonparser.ObjectEach(body, func(key, value []byte, t jsonparser.ValueType, end int) error {
		if !utf8.Valid(key) {
			ok = false
		}
		if t == jsonparser.String {
			// jsonparser hands a string's contents; the raw value keeps its quotes.
			value = body[end-len(value)-2 : end]
		}
		fields[string(key)] = value
		return nil
	})
	return fields, ok && err == nil
}

// jsonErrorText says what was wrong in JSON terms, not Go's.
func jsonErrorText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "a different type"
		switch te.Type.Kind() {
		case reflect.Slice, reflect.Array:
			want = "an array"
		case reflect.Struct, reflect.Map, reflect.Pointer:
			want = "an object"
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "a boolean"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			want = "an integer"
		case reflect.Float32, reflect.Float64:
			want = "a number"
		}
		field := te.Field
		if field == "" {
			field = "body"
		}
		return field + ": expected " + want + ", got " + te.Value
	}
	return err.Error()
}

// FieldOrder returns the top-level names of the client's body in its
// order, each once, as Fields holds them, so that a body can be written
// again in that order without another walk of the client's; nil when the
// request was decoded by encoding/json, or holds a top-level name in
// another case or with escapes, repeated or null (the caller then walks
// the body).
// Fields added since are not in it.
func (r *Request) FieldOrder() []string { return r.order }

// SetField replaces a top-level field, keeping the others as sent.
func (r *Request) SetField(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.Fields[name] = b
	return nil
}

// DisplayOmitted is thinking.display's value that hides the thinking text:
// blocks keep their signature and carry an empty thinking.
const DisplayOmitted = "omitted"
