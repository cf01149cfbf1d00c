package azure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/buger/jsonparser"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers"
)

// Changes records what cleaning did to one request, for the debug log and tests.
type Changes struct {
	// Fields are the top-level fields removed.
	Fields []string
	// Thinking counts thinking blocks dropped: unsigned, or signed by the
	// gateway (GatewaySigned of them), which Azure cannot verify.
	Thinking, GatewaySigned int
	// Redacted counts redacted_thinking blocks dropped for having no data
	// or the gateway's envelope as data.
	Redacted int
	// Messages counts messages dropped for being empty.
	Messages int
	// ThinkingParam is set when the thinking parameter was removed.
	ThinkingParam bool
	// Tools counts tool definitions rewritten.
	Tools int
	// Model is set when the model name was mapped.
	Model bool
	// Betas are the anthropic-beta values removed.
	Betas []string
}

// Any reports whether anything changed.
func (c Changes) Any() bool {
	return len(c.Fields) > 0 || c.Thinking > 0 || c.Redacted > 0 || c.Messages > 0 ||
		c.ThinkingParam || c.Tools > 0 || c.Model || len(c.Betas) > 0
}

func (c Changes) fields() []zap.Field {
	return []zap.Field{
		zap.Strings("removed_fields", c.Fields),
		zap.Int("dropped_thinking", c.Thinking),
		zap.Int("dropped_gateway_signed", c.GatewaySigned),
		zap.Int("dropped_redacted_thinking", c.Redacted),
		zap.Int("dropped_messages", c.Messages),
		zap.Bool("removed_thinking_param", c.ThinkingParam),
		zap.Int("rewritten_tools", c.Tools),
		zap.Bool("mapped_model", c.Model),
		zap.Strings("removed_betas", c.Betas),
	}
}

// Clean returns the body Azure gets. It works on the raw JSON: untouched
// fields, messages and blocks keep their bytes, and a request with nothing
// to clean is forwarded byte for byte.
func (p *Provider) Clean(x *providers.Exchange) ([]byte, Changes, error) {
	var ch Changes
	fields := x.Request.Fields
	set := make(map[string]json.RawMessage) // replaced or added top-level values
	del := make(map[string]bool)

	for _, name := range p.dropFields {
		if _, ok := fields[name]; ok && !del[name] {
			del[name] = true
			ch.Fields = append(ch.Fields, name)
		}
	}
	if raw, ok := fields["messages"]; ok {
		msgs, changed, err := cleanMessages(raw, &ch)
		if err != nil {
			return nil, ch, providers.InvalidRequest("messages: " + err.Error())
		}
		if changed {
			set["messages"] = msgs
		}
	}
	// Azure demands that assistant turns start with a thinking block while
	// thinking is on, so a history that lost some cannot keep it on.
	if _, ok := fields["thinking"]; ok && ch.Thinking+ch.Redacted > 0 && !del["thinking"] {
		del["thinking"] = true
		ch.ThinkingParam = true
	}
	if raw, ok := fields["tools"]; ok && !del["tools"] {
		tools, err := cleanTools(raw, &ch)
		if err != nil {
			return nil, ch, providers.InvalidRequest("tools: " + err.Error())
		}
		if ch.Tools > 0 {
			set["tools"] = tools
		}
	}
	if x.UpstreamModel != x.ClientModel {
		set["model"] = providers.AppendJSONString(nil, x.UpstreamModel)
		ch.Model = true
	}
	if len(set) == 0 && len(del) == 0 {
		return x.Body, ch, nil
	}
	body, err := rebuildObject(x.Body, fields, set, del)
	if err != nil {
		return nil, ch, providers.InvalidRequest("request body: " + err.Error())
	}
	return body, ch, nil
}

// rebuildObject writes the top-level object again in the client's key order,
// with set values replacing (or, for new keys, following) the originals and
// del keys left out.
func rebuildObject(body []byte, fields, set map[string]json.RawMessage, del map[string]bool) ([]byte, error) {
	out := make([]byte, 0, len(body)+64)
	out = append(out, '{')
	written := make(map[string]bool, len(fields))
	member := func(k string, v []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = providers.AppendJSONString(out, k)
		out = append(out, ':')
		out = append(out, v...)
	}
	err := providers.ScanObject(body, func(key, _ []byte, _ jsonparser.ValueType, _ int) error {
		// fields is keyed as encoding/json decodes keys: unescaped, with each
		// invalid UTF-8 byte as U+FFFD; jsonparser hands over the raw key.
		k, err := jsonparser.ParseString(key)
		if err != nil {
			return err
		}
		k = jsonKey(k)
		if written[k] || del[k] {
			return nil
		}
		written[k] = true
		if v, ok := set[k]; ok {
			member(k, v)
		} else if v, ok := fields[k]; ok {
			member(k, v)
		} else {
			return fmt.Errorf("field %q: cannot be re-encoded", k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"model", "messages", "tools"} {
		if v, ok := set[k]; ok && !written[k] {
			member(k, v)
		}
	}
	return append(out, '}'), nil
}

// cleanMessages drops Azure-unacceptable thinking blocks and the messages
// left empty. Untouched messages keep their bytes. The array is written once,
// into one buffer: kept blocks are copied from the body only there.
func cleanMessages(raw []byte, ch *Changes) ([]byte, bool, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return raw, false, nil // ParseRequest let it through; Azure will say what it thinks
	}
	out := make([]byte, 0, len(raw))
	out = append(out, '[')
	changed := false
	var cbErr error
	var kept [][]byte // one message's kept blocks, reused
	err := providers.ScanArray(raw, func(msg []byte, typ jsonparser.ValueType) {
		if cbErr != nil {
			return
		}
		n := len(out)
		if n > 1 {
			out = append(out, ',')
		}
		if typ != jsonparser.Object {
			out = append(out, msg...)
			return
		}
		var keep, mChanged bool
		out, kept, keep, mChanged, cbErr = appendCleanMessage(out, kept[:0], msg, ch)
		if !keep {
			out = out[:n]
			ch.Messages++
			mChanged = true
		}
		changed = changed || mChanged
	})
	if err == nil {
		err = cbErr
	}
	if err != nil {
		return nil, false, err
	}
	return append(out, ']'), changed, nil
}

// appendCleanMessage appends the message with its content cleaned, and
// reports whether it is kept at all: a message whose content is missing,
// null, blank or an empty list goes (docs/providers/azure.md). kept is scratch space for
// the kept blocks, returned for reuse.
func appendCleanMessage(dst []byte, kept [][]byte, msg []byte, ch *Changes) (_ []byte, _ [][]byte, keep, changed bool, err error) {
	var m [1]providers.Member
	err = providers.ScanMembers(msg, contentName, m[:])
	if err != nil {
		return dst, kept, false, false, err
	}
	content, typ, end := m[0].Value, m[0].Type, m[0].End
	if typ == jsonparser.NotExist {
		return dst, kept, false, true, nil
	}
	switch typ {
	case jsonparser.Null:
		return dst, kept, false, true, nil
	case jsonparser.String:
		s, err := jsonparser.ParseString(content)
		if err != nil {
			return dst, kept, false, false, err
		}
		keep = strings.TrimSpace(s) != ""
		return append(dst, msg...), kept, keep, !keep, nil
	case jsonparser.Array:
	default:
		return append(dst, msg...), kept, true, false, nil
	}

	dropped := 0
	err = providers.ScanArray(content, func(block []byte, t jsonparser.ValueType) {
		if t == jsonparser.Object && dropBlock(block, ch) {
			dropped++
			return
		}
		kept = append(kept, block)
	})
	if err != nil {
		return dst, kept, false, false, err
	}
	if len(kept) == 0 {
		return dst, kept, false, true, nil
	}
	if dropped == 0 {
		return append(dst, msg...), kept, true, false, nil
	}
	// The content array is replaced where it stands.
	dst = append(dst, msg[:end-len(content)]...)
	dst = append(dst, '[')
	for i, b := range kept {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, b...)
	}
	dst = append(dst, ']')
	return append(dst, msg[end:]...), kept, true, true, nil
}

// The members cleaning looks up: found in one walk of a message or block,
// a string's end found a vector at a time.
var (
	contentName = []string{"content"}
	blockNames  = []string{"type", "signature", "data"}
)

// dropBlock reports whether Azure must not see a content block: a thinking
// block without a signature Azure issued (none, empty, or the gateway's own
// envelope, which only the gateway can read), or a redacted_thinking block
// without data or holding the gateway's envelope.
func dropBlock(block []byte, ch *Changes) bool {
	// Raw string bodies suffice: the values compared and the gateway's
	// envelope (base64url and dots) never need unescaping.
	var m [3]providers.Member
	_ = providers.ScanMembers(block, blockNames, m[:])
	switch string(m[0].Value) {
	case "thinking":
		sig, t := m[1].Value, m[1].Type
		if t != jsonparser.String || len(sig) == 0 {
			ch.Thinking++
			return true
		}
		if providers.IsGatewaySignature(string(sig)) {
			ch.Thinking++
			ch.GatewaySigned++
			return true
		}
	case "redacted_thinking":
		// The gateway's envelope as data: a Responses reasoning item
		// without summary, which only a Responses upstream can take.
		if data, t := m[2].Value, m[2].Type; t != jsonparser.String || len(data) == 0 || providers.IsGatewaySignature(string(data)) {
			ch.Redacted++
			return true
		}
	}
	return false
}

// cleanTools rewrites each custom tool into {name, description,
// input_schema}; server tools stay as they are.
func cleanTools(raw []byte, ch *Changes) ([]byte, error) {
	var tools []json.RawMessage
	if err := json.Unmarshal(raw, &tools); err != nil {
		return raw, nil // not a list: left for Azure to reject
	}
	out := make([]byte, 0, len(raw))
	out = append(out, '[')
	for i, t := range tools {
		if i > 0 {
			out = append(out, ',')
		}
		nt, changed, err := normalizeTool(t)
		if err != nil {
			return nil, err
		}
		if changed {
			ch.Tools++
		}
		out = append(out, nt...)
	}
	return append(out, ']'), nil
}

// emptySchema is the input_schema of an OpenAI function declared without
// parameters: it takes no arguments.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// normalizeTool returns the tool as Azure accepts it and whether it changed.
//
//	{name, description?, input_schema}                 custom tool, kept
//	{type:"custom", name, …}  {type:"custom", custom:{…}}   unwrapped
//	{type:"function", function:{name, description, parameters}}   OpenAI form, converted
//	{type:"function", name, description, parameters}   flat OpenAI form, converted
//	{type:"web_search_20250305", …} and other server tools   kept as they are
func normalizeTool(raw json.RawMessage) (json.RawMessage, bool, error) {
	var tool map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tool); err != nil || tool == nil {
		return raw, false, nil
	}
	var typ string
	if t, ok := tool["type"]; ok {
		_ = json.Unmarshal(t, &typ)
	}
	switch typ {
	case "function":
		src := tool
		if fn, ok := tool["function"]; ok {
			var inner map[string]json.RawMessage
			if json.Unmarshal(fn, &inner) == nil && inner != nil {
				src = inner
			}
		}
		schema := src["parameters"]
		if len(schema) == 0 || string(schema) == "null" {
			schema = emptySchema
		}
		return customTool(src["name"], src["description"], schema), true, nil
	case "custom":
		if c, ok := tool["custom"]; ok {
			var inner map[string]json.RawMessage
			if json.Unmarshal(c, &inner) == nil && inner != nil {
				return customTool(inner["name"], inner["description"], inner["input_schema"]), true, nil
			}
		}
	case "":
	default:
		if _, ok := tool["input_schema"]; !ok {
			return raw, false, nil // a server tool: only Anthropic's side knows its fields
		}
	}
	for k := range tool {
		if k != "name" && k != "description" && k != "input_schema" {
			return customTool(tool["name"], tool["description"], tool["input_schema"]), true, nil
		}
	}
	return raw, false, nil
}

// customTool writes {name, description, input_schema}, leaving out what the
// source did not have.
func customTool(name, description, schema json.RawMessage) json.RawMessage {
	out := []byte{'{'}
	add := func(k string, v json.RawMessage) {
		if len(v) == 0 || string(v) == "null" {
			return
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, k...)
		out = append(out, '"', ':')
		out = append(out, v...)
	}
	add("name", name)
	add("description", description)
	add("input_schema", schema)
	return append(out, '}')
}

// jsonKey normalises a decoded key the way encoding/json does: every byte
// that is not part of valid UTF-8 becomes U+FFFD.
func jsonKey(k string) string {
	if utf8.ValidString(k) {
		return k
	}
	var b strings.Builder
	for i := 0; i < len(k); {
		r, size := utf8.DecodeRuneInString(k[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(k[i : i+size])
		}
		i += size
	}
	return b.String()
}
