package openai

import (
	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/tokencount"
)

// CountTokens answers count_tokens without the upstream, which has no
// counting endpoint: the request is converted as it would be sent and its
// Chat Completions body counted (CountChatTokens).
func (p *Provider) CountTokens(x *providers.Exchange) (int64, error) {
	body, _, err := ConvertRequest(x, p.cfg)
	if err != nil {
		return 0, err
	}
	return int64(CountChatTokens(body)), nil
}

// CountChatTokens returns the prompt tokens of a Chat Completions request
// body, as OpenAI's o200k models count them (package tokencount): each
// message's framing, role, name and content (text parts; an image or a
// file at tokencount's fixed estimates), an assistant message's reasoning
// and tool calls (name and arguments), and the tool list.
func CountChatTokens(body []byte) int {
	var c tokencount.Counter
	if msgs, typ, _, err := jsonparser.Get(body, "messages"); err == nil && typ == jsonparser.Array {
		_ = jsonbytes.ScanArray(msgs, func(m []byte, mtyp jsonparser.ValueType) {
			if mtyp == jsonparser.Object {
				countMessage(&c, m)
			}
		})
	}
	c.N += tokencount.ReplyPrime
	if tools, typ, _, err := jsonparser.Get(body, "tools"); err == nil && typ == jsonparser.Array {
		n := 0
		_ = jsonbytes.ScanArray(tools, func(t []byte, ttyp jsonparser.ValueType) {
			fn, ftyp, _, err := jsonparser.Get(t, "function")
			if err != nil || ftyp != jsonparser.Object {
				return
			}
			name, _, _, _ := jsonparser.Get(fn, "name")
			desc, _, _, _ := jsonparser.Get(fn, "description")
			params, _, _, _ := jsonparser.Get(fn, "parameters")
			c.Function(name, desc, params)
			n++
		})
		if n > 0 {
			c.ToolsEnd()
		}
	}
	return c.N
}

// countMessage adds one message of a Chat Completions body.
func countMessage(c *tokencount.Counter, m []byte) {
	c.N += tokencount.PerMessage
	_ = jsonbytes.ScanObject(m, func(key, v []byte, typ jsonparser.ValueType, _ int) error {
		switch string(key) {
		case "role", "reasoning_content", "reasoning":
			if typ == jsonparser.String {
				c.Raw(v)
			}
		case "name":
			c.N += tokencount.PerName
			c.Value(v, typ)
		case "content":
			switch typ {
			case jsonparser.String:
				c.Raw(v)
			case jsonparser.Array:
				_ = jsonbytes.ScanArray(v, func(part []byte, _ jsonparser.ValueType) { countPart(c, part) })
			}
		case "tool_calls":
			_ = jsonbytes.ScanArray(v, func(call []byte, _ jsonparser.ValueType) {
				if name, ntyp, _, err := jsonparser.Get(call, "function", "name"); err == nil {
					c.Value(name, ntyp)
				}
				if args, atyp, _, err := jsonparser.Get(call, "function", "arguments"); err == nil {
					c.Value(args, atyp)
				}
			})
		}
		return nil
	})
}

// countPart adds one content part.
func countPart(c *tokencount.Counter, part []byte) {
	typ, _ := jsonparser.GetString(part, "type")
	switch typ {
	case "text":
		if t, ttyp, _, err := jsonparser.Get(part, "text"); err == nil {
			c.Value(t, ttyp)
		}
	case "image_url":
		c.N += tokencount.Image
	case "file":
		c.N += tokencount.File
	case "thinking": // a Mistral thinking chunk
		if t, ttyp, _, err := jsonparser.Get(part, "thinking"); err == nil && ttyp == jsonparser.Array {
			_ = jsonbytes.ScanArray(t, func(p []byte, _ jsonparser.ValueType) { countPart(c, p) })
		}
	}
}
