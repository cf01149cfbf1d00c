package amazonq

import (
	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/tokencount"
)

// CountTokens answers count_tokens without the upstream, which has no
// counting endpoint: the request is converted as it would be sent and
// its conversationState counted (CountConversationTokens). The models
// behind Amazon Q are Claude models, whose tokenizer is not o200k: the
// count is an estimate.
func (p *Provider) CountTokens(x *providers.Exchange) (int64, error) {
	body, _, err := p.convert(x)
	if err != nil {
		return 0, err
	}
	return int64(CountConversationTokens(body)), nil
}

// CountConversationTokens returns the input tokens of a
// generateAssistantResponse body with tokencount's framing: each history
// message and the current message as a message (its content, tool uses'
// names and inputs, tool results' text and JSON; an image at tokencount's
// estimate), the tool specifications as functions.
func CountConversationTokens(body []byte) int {
	var c tokencount.Counter
	cs, typ, _, err := jsonparser.Get(body, "conversationState")
	if err != nil || typ != jsonparser.Object {
		return 0
	}
	if h, typ, _, err := jsonparser.Get(cs, "history"); err == nil && typ == jsonparser.Array {
		_ = jsonbytes.ScanArray(h, func(m []byte, _ jsonparser.ValueType) { countEntry(&c, m) })
	}
	if m, typ, _, err := jsonparser.Get(cs, "currentMessage"); err == nil && typ == jsonparser.Object {
		countEntry(&c, m)
	}
	c.N += tokencount.ReplyPrime
	return c.N
}

// countEntry adds one history entry ({"userInputMessage":…} or
// {"assistantResponseMessage":…}).
func countEntry(c *tokencount.Counter, entry []byte) {
	_ = jsonbytes.ScanObject(entry, func(_, m []byte, typ jsonparser.ValueType, _ int) error {
		if typ != jsonparser.Object {
			return nil
		}
		c.N += tokencount.PerMessage
		_ = jsonbytes.ScanObject(m, func(key, v []byte, typ jsonparser.ValueType, _ int) error {
			switch string(key) {
			case "content":
				c.Value(v, typ)
			case "images":
				_ = jsonbytes.ScanArray(v, func([]byte, jsonparser.ValueType) { c.N += tokencount.Image })
			case "toolUses":
				_ = jsonbytes.ScanArray(v, func(u []byte, _ jsonparser.ValueType) {
					if name, ntyp, _, err := jsonparser.Get(u, "name"); err == nil {
						c.Value(name, ntyp)
					}
					if in, ityp, _, err := jsonparser.Get(u, "input"); err == nil {
						c.Value(in, ityp)
					}
				})
			case "userInputMessageContext":
				countContext(c, v)
			}
			return nil
		})
		return nil
	})
}

// countContext adds a user message's tool results and tool specifications.
func countContext(c *tokencount.Counter, ctx []byte) {
	if rs, typ, _, err := jsonparser.Get(ctx, "toolResults"); err == nil && typ == jsonparser.Array {
		_ = jsonbytes.ScanArray(rs, func(r []byte, _ jsonparser.ValueType) {
			c.N += tokencount.PerMessage
			content, ctyp, _, err := jsonparser.Get(r, "content")
			if err != nil || ctyp != jsonparser.Array {
				return
			}
			_ = jsonbytes.ScanArray(content, func(part []byte, _ jsonparser.ValueType) {
				_ = jsonbytes.ScanObject(part, func(_, v []byte, typ jsonparser.ValueType, _ int) error {
					c.Value(v, typ) // {"text":…} or {"json":…}
					return nil
				})
			})
		})
	}
	if ts, typ, _, err := jsonparser.Get(ctx, "tools"); err == nil && typ == jsonparser.Array {
		n := 0
		_ = jsonbytes.ScanArray(ts, func(t []byte, _ jsonparser.ValueType) {
			spec, styp, _, err := jsonparser.Get(t, "toolSpecification")
			if err != nil || styp != jsonparser.Object {
				return
			}
			name, _, _, _ := jsonparser.Get(spec, "name")
			desc, _, _, _ := jsonparser.Get(spec, "description")
			schema, _, _, _ := jsonparser.Get(spec, "inputSchema", "json")
			c.Function(name, desc, schema)
			n++
		})
		if n > 0 {
			c.ToolsEnd()
		}
	}
}
