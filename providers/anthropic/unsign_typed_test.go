package anthropic

import (
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The typed rewrite: the history decoded into Go (Request.Complete),
// rewritten as Go values and encoded. It was RewriteBody's path for what
// the byte rewrite (unsign.go) left to it; it stays here as the reference
// FuzzUnsignBytesMatchesTyped holds unsign.go to.

// typedRewriteBody is RewriteBody with the typed history rewrite.
func typedRewriteBody(x *providers.Exchange) ([]byte, error) {
	req := x.Request
	changed := false
	if x.UpstreamModel != x.ClientModel {
		if err := req.SetField("model", x.UpstreamModel); err != nil {
			return nil, err
		}
		changed = true
	}
	if req.GatewayThinking {
		if err := req.Complete(); err != nil {
			return nil, err
		}
		if msgs, histChanged := unsignHistory(x.Settings, req.Messages); histChanged {
			req.Messages = msgs
			req.SetMessages(msgs)
			changed = true
			if _, ok := req.Fields["thinking"]; ok && req.Thinking.Enabled(false) && toolTurnLacksThinking(msgs) {
				delete(req.Fields, "thinking")
			}
		}
	}
	if !changed {
		return x.Body, nil
	}
	body, _, err := x.MarshalRequest(nil)
	return body, err
}

// toolTurnLacksThinking reports whether the last assistant turn calls a tool
// without opening with a thinking block.
func toolTurnLacksThinking(msgs []wire.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "assistant" {
			continue
		}
		blocks := msgs[i].Content.Blocks
		hasTool := false
		for _, b := range blocks {
			hasTool = hasTool || b.Type == "tool_use"
		}
		return hasTool && (len(blocks) == 0 || (blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking"))
	}
	return false
}

// unsignHistory rewrites the assistant turns that hold gateway-signed
// thinking. Each such block is replaced in place, so the turn reads as the
// model wrote it: text before the span, the span in its tags, text after.
// A gateway envelope that does not verify is dropped.
func unsignHistory(s *providers.Settings, msgs []wire.Message) ([]wire.Message, bool) {
	var out []wire.Message // nil until the first change
	for i, m := range msgs {
		blocks, touched := unsignBlocks(s, m)
		if !touched {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]wire.Message, 0, len(msgs)), msgs[:i]...)
		}
		if len(blocks) == 0 {
			continue
		}
		m.Content = wire.Content{Blocks: blocks, Present: true}
		out = append(out, m)
	}
	return out, out != nil
}

func unsignBlocks(s *providers.Settings, m wire.Message) ([]wire.Block, bool) {
	if m.Role != "assistant" {
		return nil, false
	}
	var kept []wire.Block
	touched := false
	for i, b := range m.Content.Blocks {
		origin, _, ok := s.ThinkingOrigin(b)
		if !ok && !staleEnvelope(b) {
			if touched {
				kept = append(kept, b)
			}
			continue
		}
		if !touched {
			touched = true
			kept = append(make([]wire.Block, 0, len(m.Content.Blocks)), m.Content.Blocks[:i]...)
		}
		if ok && origin == emit.OriginTags {
			kept = append(kept, wire.Block{Type: "text", Text: "<thinking>" + b.Thinking + "</thinking>"})
		}
	}
	return kept, touched
}

// staleEnvelope reports a thinking block whose signature has the gateway's
// envelope shape but does not verify: signed under another key (a restart
// without signing_key, another instance) or altered. Anthropic would reject
// the whole request for it, so it is dropped as Azure drops it; its text is
// not kept, since nothing vouches for it.
func staleEnvelope(b wire.Block) bool {
	// A redacted_thinking block whose data is the gateway's envelope wraps
	// another upstream's encrypted reasoning (OpenRouter's, or a Responses
	// reasoning item, which goes back only to a Responses upstream): never
	// Anthropic's.
	return b.Type == "thinking" && wire.IsGatewaySignature(b.Signature) ||
		b.Type == "redacted_thinking" && wire.IsGatewaySignature(b.Data)
}
