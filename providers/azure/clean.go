package azure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/buger/jsonparser"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
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
	if raw, ok := fields["tools"]; ok && !del["tools"] {
		tools, err := cleanTools(raw, &ch)
		if err != nil {
			return nil, ch, wire.InvalidRequest("tools: " + err.Error())
		}
		if ch.Tools > 0 {
			set["tools"] = tools
		}
	}
	if x.UpstreamModel != x.ClientModel {
		set["model"] = jsonbytes.AppendString(nil, x.UpstreamModel)
		ch.Model = true
	}
	raw, hasMessages := fields["messages"]
	if hasMessages && keepHistory && x.Request.SignedHistory() {
		// The scan saw nothing to drop: the messages go as they are,
		// without a walk.
		hasMessages = false
	}
	if oneBuffer && hasMessages && !del["messages"] {
		order := x.Request.FieldOrder()
		if order == nil {
			var err error
			if order, err = readOrder(x.Body); err != nil {
				return nil, ch, wire.InvalidRequest("request body: " + err.Error())
			}
		}
		return cleanInto(x, order, fields, set, del, &ch)
	}
	if hasMessages {
		msgs, changed, err := appendCleanMessages(make([]byte, 0, len(raw)), raw, &ch)
		if err != nil {
			return nil, ch, wire.InvalidRequest("messages: " + err.Error())
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
	if len(set) == 0 && len(del) == 0 {
		return x.Body, ch, nil
	}
	body, err := rebuildObject(x.NewBody, x.Body, x.Request.FieldOrder(), fields, set, del)
	if err != nil {
		return nil, ch, wire.InvalidRequest("request body: " + err.Error())
	}
	return body, ch, nil
}

// keepHistory lets Clean take the scan's word that a history has nothing
// to drop (Request.SignedHistory); the differential test turns it off to
// compare with the walk.
var keepHistory = true

// oneBuffer lets Clean write the cleaned messages straight into the body it
// returns; the differential test turns it off to compare with cleaning
// into a buffer of their own.
var oneBuffer = true

// readOrder returns the top-level names of body in its order, each once,
// as Request.Fields holds them: what FieldOrder gives when the scan knew
// it.
func readOrder(body []byte) ([]string, error) {
	var order []string
	seen := make(map[string]bool)
	err := jsonbytes.ScanObject(body, func(key, _ []byte, _ jsonparser.ValueType, _ int) error {
		// Fields is keyed as encoding/json decodes keys: unescaped, with
		// each invalid UTF-8 byte as U+FFFD; jsonparser hands over the
		// raw key.
		k, err := jsonparser.ParseString(key)
		if err != nil {
			return err
		}
		if k = jsonKey(k); !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
		return nil
	})
	return order, err
}

// cleanInto writes the body Azure gets in one buffer, the cleaned messages
// straight into it: the top-level members in the client's order (order).
// A thinking member before messages is written, and taken out again when
// the messages lose a block. It writes what rebuildObject would write from
// the messages cleaned apart, and returns body itself when nothing changed.
func cleanInto(x *providers.Exchange, order []string, fields, set map[string]json.RawMessage, del map[string]bool, ch *Changes) ([]byte, Changes, error) {
	body := x.Body
	out := x.NewBody(len(body) + 64)
	out = append(out, '{')
	changed := false
	// thinkingAt and thinkingEnd span the thinking member written before
	// messages, with the comma before it.
	thinkingAt, thinkingEnd := -1, -1
	for _, k := range order {
		if del[k] {
			continue
		}
		// Azure demands that assistant turns start with a thinking block
		// while thinking is on, so a history that lost some cannot keep it on.
		if k == "thinking" && ch.Thinking+ch.Redacted > 0 {
			del[k] = true
			ch.ThinkingParam = true
			continue
		}
		if k == "thinking" {
			thinkingAt = len(out)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = jsonbytes.AppendString(out, k)
		out = append(out, ':')
		if k == "messages" {
			at := len(out)
			var err error
			if out, changed, err = appendCleanMessages(out, fields[k], ch); err != nil {
				return nil, *ch, wire.InvalidRequest("messages: " + err.Error())
			}
			if !changed {
				// The client's array, spacing and all, as rebuildObject
				// writes it.
				out = append(out[:at], fields[k]...)
			}
			if thinkingAt >= 0 && ch.Thinking+ch.Redacted > 0 {
				out = cut(out, thinkingAt, thinkingEnd)
				del["thinking"] = true
				ch.ThinkingParam = true
			}
		} else if v, ok := set[k]; ok {
			out = append(out, v...)
		} else {
			out = append(out, fields[k]...)
		}
		if k == "thinking" {
			thinkingEnd = len(out)
		}
	}
	if !changed && len(set) == 0 && len(del) == 0 {
		return body, *ch, nil
	}
	for _, k := range []string{"model", "tools"} {
		if _, ok := fields[k]; !ok {
			if v, ok := set[k]; ok {
				out = append(out, ',')
				out = jsonbytes.AppendString(out, k)
				out = append(out, ':')
				out = append(out, v...)
			}
		}
	}
	return append(out, '}'), *ch, nil
}

// cut takes the member out[at:end] (with the comma before it, or the one
// after it when it is the object's first) out of the object written in
// out.
func cut(out []byte, at, end int) []byte {
	if at == 1 && end < len(out) && out[end] == ',' {
		end++
	}
	return append(out[:at], out[end:]...)
}

// rebuildObject writes the top-level object again in the client's key order,
// with set values replacing (or, for new keys, following) the originals and
// del keys left out. order, when known (Request.FieldOrder), spares a walk
// of the body.
func rebuildObject(newBody func(int) []byte, body []byte, order []string, fields, set map[string]json.RawMessage, del map[string]bool) ([]byte, error) {
	out := newBody(len(body) + 64)
	out = append(out, '{')
	written := make(map[string]bool, len(fields))
	member := func(k string, v []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = jsonbytes.AppendString(out, k)
		out = append(out, ':')
		out = append(out, v...)
	}
	write := func(k string) error {
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
	}
	var err error
	if order != nil {
		for _, k := range order {
			if err = write(k); err != nil {
				break
			}
		}
	} else {
		err = jsonbytes.ScanObject(body, func(key, _ []byte, _ jsonparser.ValueType, _ int) error {
			// fields is keyed as encoding/json decodes keys: unescaped, with
			// each invalid UTF-8 byte as U+FFFD; jsonparser hands over the
			// raw key.
			k, err := jsonparser.ParseString(key)
			if err != nil {
				return err
			}
			return write(jsonKey(k))
		})
	}
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
// into one buffer: kept blocks are copied from the body only there. Each
// byte of the history is read once: messages, their content and its blocks
// are walked into, not found and then walked again.
func cleanMessages(raw []byte, ch *Changes) ([]byte, bool, error) {
	return appendCleanMessages(make([]byte, 0, len(raw)), raw, ch)
}

// appendCleanMessages is cleanMessages appending to dst.
func appendCleanMessages(dst, raw []byte, ch *Changes) ([]byte, bool, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return append(dst, raw...), false, nil // ParseRequest let it through; Azure will say what it thinks
	}
	c := cleaner{data: raw, ch: ch, out: dst, start: len(dst)}
	c.out = append(c.out, '[')
	_, err := jsonbytes.ScanArrayAt(raw, 0, c.message)
	if err != nil {
		return nil, false, err
	}
	return append(c.out, ']'), c.changed, nil
}

// cleaner writes the cleaned messages array.
type cleaner struct {
	data    []byte
	ch      *Changes
	out     []byte
	changed bool
	// start is where the array starts in out.
	start int
}

// message appends the message at i with its content cleaned, or nothing
// when it is dropped: a message whose content is missing, null, blank or
// an empty list goes (docs/providers/azure.md). A content list is written
// as it is walked, its kept blocks straight into out, so that the walk
// holds nothing per block; a message that loses no block is then written
// again from its own bytes over what was written, and one that loses
// every block is taken back.
func (c *cleaner) message(i int) (int, error) {
	n := len(c.out)
	if n > c.start+1 {
		c.out = append(c.out, ',')
	}
	at0 := len(c.out)
	data := c.data
	if data[i] != '{' {
		v, _, end, err := jsonbytes.SkipValue(data, i)
		c.out = append(c.out, v...)
		return end, err
	}
	// The first member named content, as jsonparser.Get finds it.
	var content []byte
	typ := jsonparser.NotExist
	contentEnd := -1
	dropped, kept := 0, 0
	looking := true
	end, err := jsonbytes.ScanObjectAt(data, i, func(key []byte, at int) (int, error) {
		if looking {
			switch name, ok := memberName(key); {
			case !ok:
				looking = false
			case string(name) == "content":
				looking = false
				if data[at] == '[' {
					c.out = append(c.out, data[i:at]...)
					c.out = append(c.out, '[')
					end, err := jsonbytes.ScanArrayAt(data, at, func(at int) (int, error) {
						block, btyp, end, err := c.block(at)
						if err == nil {
							if btyp == jsonparser.Object && dropBlock(block.m, c.ch) {
								dropped++
							} else {
								if kept > 0 {
									c.out = append(c.out, ',')
								}
								kept++
								c.out = append(c.out, block.value...)
							}
						}
						return end, err
					})
					c.out = append(c.out, ']')
					content, typ, contentEnd = data[at:max(end, at)], jsonparser.Array, end
					return end, err
				}
				v, t, end, err := jsonbytes.SkipValue(data, at)
				content, typ, contentEnd = v, t, end
				return end, err
			}
		}
		_, _, end, err := jsonbytes.SkipValue(data, at)
		return end, err
	})
	if err != nil {
		return -1, err
	}
	keep := true
	switch typ {
	case jsonparser.NotExist, jsonparser.Null:
		keep = false
	case jsonparser.String:
		if bytes.IndexByte(content, '\\') < 0 {
			// Read where it stands: no copy of every turn's text.
			keep = len(bytes.TrimSpace(content)) > 0
			break
		}
		s, err := jsonparser.ParseString(content)
		if err != nil {
			return -1, err
		}
		keep = strings.TrimSpace(s) != ""
	case jsonparser.Array:
		switch {
		case kept == 0:
			keep = false
		case dropped > 0:
			// The content array is replaced where it stands.
			c.out = append(c.out, data[contentEnd:end]...)
			c.changed = true
			return end, nil
		}
	}
	if !keep {
		c.out = c.out[:n]
		c.ch.Messages++
		c.changed = true
	} else {
		c.out = append(c.out[:at0], data[i:end]...)
	}
	return end, nil
}

// scannedBlock is one element of a content array: its value as ScanArray
// hands it, and for an object the members cleaning looks up.
type scannedBlock struct {
	value []byte
	m     [3]jsonbytes.Member
}

// block walks the content element at i, finding its type, signature and
// data as jsonparser.Get finds them.
func (c *cleaner) block(i int) (b scannedBlock, typ jsonparser.ValueType, end int, err error) {
	data := c.data
	if data[i] != '{' {
		b.value, typ, end, err = jsonbytes.SkipValue(data, i)
		return b, typ, end, err
	}
	looking, left := true, len(blockNames)
	end, err = jsonbytes.ScanObjectAt(data, i, func(key []byte, at int) (int, error) {
		v, t, end, err := jsonbytes.SkipValue(data, at)
		if err != nil || !looking {
			return end, err
		}
		name, ok := memberName(key)
		if !ok {
			looking = false
			return end, nil
		}
		for k, want := range blockNames {
			if b.m[k].Type == jsonparser.NotExist && string(name) == want {
				b.m[k] = jsonbytes.Member{Value: v, Type: t, End: end - i}
				if left--; left == 0 {
					looking = false
				}
			}
		}
		return end, nil
	})
	if err != nil {
		return b, jsonparser.Object, -1, err
	}
	b.value = data[i:end]
	return b, jsonparser.Object, end, nil
}

// memberName is a member's name as jsonparser.Get matches it (unescaped);
// ok is false for one it cannot unescape, past which Get finds nothing.
func memberName(key []byte) ([]byte, bool) {
	if bytes.IndexByte(key, '\\') < 0 {
		return key, true
	}
	k, err := jsonparser.Unescape(key, nil)
	return k, err == nil
}

// The members cleaning looks up in a block.
var blockNames = []string{"type", "signature", "data"}

// dropBlock reports whether Azure must not see a content block, given its
// type, signature and data members (m, as jsonparser.Get finds them): a
// thinking block without a signature Azure issued (none, empty, or the
// gateway's own envelope, which only the gateway can read), or a
// redacted_thinking block without data or holding the gateway's envelope.
func dropBlock(m [3]jsonbytes.Member, ch *Changes) bool {
	// Raw string bodies suffice: the values compared and the gateway's
	// envelope (base64url and dots) never need unescaping.
	switch string(m[0].Value) {
	case "thinking":
		sig, t := m[1].Value, m[1].Type
		if t != jsonparser.String || len(sig) == 0 {
			ch.Thinking++
			return true
		}
		if wire.IsGatewaySignature(sig) {
			ch.Thinking++
			ch.GatewaySigned++
			return true
		}
	case "redacted_thinking":
		// The gateway's envelope wraps another upstream's encrypted
		// reasoning (OpenRouter's, or a Responses reasoning item), which
		// Azure cannot read either.
		if data, t := m[2].Value, m[2].Type; t != jsonparser.String || len(data) == 0 || wire.IsGatewaySignature(data) {
			ch.Redacted++
			return true
		}
	}
	return false
}

// cleanTools rewrites each custom tool into {name, description,
// input_schema}; server tools stay as they are.
func cleanTools(raw []byte, ch *Changes) ([]byte, error) {
	if out, n, ok := cleanToolsBytes(raw); ok {
		ch.Tools += n
		return out, nil
	}
	return cleanToolsDecoded(raw, ch)
}

// cleanToolsDecoded is cleanTools through encoding/json: the reference
// cleanToolsBytes is held to, and the path for what it leaves.
func cleanToolsDecoded(raw []byte, ch *Changes) ([]byte, error) {
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

// cleanToolsBytes is cleanTools read from the list's bytes, without
// decoding it: a dozen tools with their JSON Schemas are tens of KB that
// encoding/json would walk four times over on every request. It returns
// the list and how many tools changed, or !ok for what it leaves to
// cleanTools: anything but a list of objects whose member names have no
// escapes and are not repeated, and a type that is not a plain string.
// A list with nothing to change is only read (the list is returned as it
// is, and Clean sends the client's): thousands of tools are not copied
// into a list nobody sends.
func cleanToolsBytes(raw []byte) (out []byte, changed int, ok bool) {
	if _, changed, ok = walkTools(raw, false); !ok || changed == 0 {
		return raw, 0, ok
	}
	return walkTools(raw, true)
}

// walkTools is cleanToolsBytes' walk; write says whether it writes the
// list, or only counts the tools that change.
func walkTools(raw []byte, write bool) (out []byte, changed int, ok bool) {
	if write {
		out = make([]byte, 0, len(raw))
		out = append(out, '[')
	}
	first := true
	end, err := jsonbytes.ScanArrayAt(raw, 0, func(at int) (int, error) {
		_, typ, end, err := jsonbytes.SkipValue(raw, at)
		if err != nil {
			return -1, err
		}
		if write && !first {
			out = append(out, ',')
		}
		first = false
		tool := raw[at:end]
		if typ != jsonparser.Object {
			out = appendIf(write, out, tool) // not a tool: left for Azure to reject
			return end, nil
		}
		m, ok := readMembers(tool)
		if !ok {
			return -1, errLeaveToDecoder
		}
		nt, ok := normalizeToolMembers(m)
		if !ok {
			return -1, errLeaveToDecoder
		}
		if nt == nil {
			nt = tool
		} else {
			changed++
		}
		out = appendIf(write, out, nt)
		return end, nil
	})
	if err != nil || jsonbytes.SkipSpace(raw, end) != len(raw) {
		return nil, 0, false
	}
	return appendIf(write, out, []byte{']'}), changed, true
}

// appendIf appends b to out when write is set.
func appendIf(write bool, out, b []byte) []byte {
	if write {
		return append(out, b...)
	}
	return out
}

// errLeaveToDecoder stops a byte-level walk that leaves the value to
// encoding/json.
var errLeaveToDecoder = errors.New("left to encoding/json")

// toolMembers are a tool object's members as encoding/json's map decoding
// sees them: the raw value of each name.
type toolMembers []struct{ name, value []byte }

func (m toolMembers) get(name string) ([]byte, bool) {
	for _, kv := range m {
		if string(kv.name) == name {
			return kv.value, true
		}
	}
	return nil, false
}

// readMembers reads the members of the object obj, or !ok for a name with
// an escape or a repeated one (whose decoding encoding/json decides).
func readMembers(obj []byte) (m toolMembers, ok bool) {
	_, err := jsonbytes.ScanObjectAt(obj, 0, func(name []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(obj, at)
		if err != nil {
			return -1, err
		}
		if bytes.IndexByte(name, '\\') >= 0 {
			return -1, errLeaveToDecoder
		}
		if _, dup := m.get(string(name)); dup {
			return -1, errLeaveToDecoder
		}
		m = append(m, struct{ name, value []byte }{name, obj[at:end]})
		return end, nil
	})
	return m, err == nil
}

// normalizeToolMembers is normalizeTool for a tool whose members are read:
// the tool Azure accepts, nil if it is the same, or !ok for what it leaves
// to normalizeTool.
func normalizeToolMembers(tool toolMembers) (_ []byte, ok bool) {
	var typ string
	if t, ok := tool.get("type"); ok && len(t) > 0 && t[0] == '"' {
		if bytes.IndexByte(t, '\\') >= 0 {
			return nil, false
		}
		typ = string(t[1 : len(t)-1])
	}
	inner := func(name string) (toolMembers, bool, bool) {
		v, ok := tool.get(name)
		if !ok || len(v) == 0 || v[0] != '{' {
			return nil, false, true // absent, null or not an object
		}
		m, ok := readMembers(v)
		return m, ok, ok
	}
	switch typ {
	case "function":
		src := tool
		fn, isObject, ok := inner("function")
		if !ok {
			return nil, false
		}
		if isObject {
			src = fn
		}
		schema, _ := src.get("parameters")
		if len(schema) == 0 || string(schema) == "null" {
			schema = emptySchema
		}
		return customToolMembers(src, schema), true
	case "custom":
		c, isObject, ok := inner("custom")
		if !ok {
			return nil, false
		}
		if isObject {
			schema, _ := c.get("input_schema")
			return customToolMembers(c, schema), true
		}
	case "":
	default:
		if _, ok := tool.get("input_schema"); !ok {
			return nil, true // a server tool: only Anthropic's side knows its fields
		}
	}
	for _, kv := range tool {
		if k := string(kv.name); k != "name" && k != "description" && k != "input_schema" {
			schema, _ := tool.get("input_schema")
			return customToolMembers(tool, schema), true
		}
	}
	return nil, true
}

func customToolMembers(src toolMembers, schema []byte) []byte {
	name, _ := src.get("name")
	description, _ := src.get("description")
	return customTool(name, description, schema)
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
