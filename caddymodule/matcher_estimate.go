package caddymodule

import (
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The input-token estimate errs high: routing a request to a long-context
// upstream too early costs less than sending it to one that rejects it.
// No tokenizer of the models behind the gateway is public, so it counts
// bytes, which every tokenizer of these models packs at least three to a
// token in English and code, and about one character to a token in CJK
// text (three bytes in UTF-8).
const (
	// bytesPerToken divides the bytes of the text the model reads.
	bytesPerToken = 3
	// imageTokens is an image's cost: Anthropic scales an image down to
	// about 1.15 megapixels, some 1,600 tokens, at most.
	imageTokens = 1600
	// unseenDocumentTokens is a document whose content the request does not
	// carry (a URL or a file id).
	unseenDocumentTokens = 3000
	// messageTokens is each message's framing (role, turn markers).
	messageTokens = 8
	// toolUseTokens is the tool-use instructions an upstream adds once
	// when the request defines tools.
	toolUseTokens = 400
)

// requestStats is what the matcher's conditions need beyond the parse's
// own fields, gathered in one walk of the messages.
type requestStats struct {
	inputTokens     int64
	image, document bool
}

// summary returns the request's stats, walking it on first use.
func (p *ParsedRequest) summary() *requestStats {
	if p.stats == nil {
		p.stats = gatherStats(p.Request, p.Body)
	}
	return p.stats
}

// gatherStats reads the stats from the client's body, a block at a time
// (wire.HistoryReader): however long the history, it holds one block.
func gatherStats(req *wire.Request, body []byte) *requestStats {
	s := new(requestStats)
	var textBytes, tokens int64
	h, err := wire.NewHistoryReader(body)
	if err != nil {
		return s // not reached: the request parse accepted the body
	}
	// One block per level of tool_result nesting.
	var levels []*wire.HistoryBlock
	var walk func(content []byte, depth int)
	walk = func(content []byte, depth int) {
		if content == nil {
			return
		}
		if depth == len(levels) {
			levels = append(levels, new(wire.HistoryBlock))
		}
		_ = h.EachBlock(content, levels[depth], func(_ int, b *wire.HistoryBlock) error {
			switch string(b.Type.Text(nil)) {
			case "text":
				textBytes += int64(b.Text.TextLen())
			case "thinking":
				textBytes += int64(b.Thinking.TextLen())
			case "redacted_thinking":
				textBytes += int64(b.Data.TextLen())
			case "tool_use", "server_tool_use":
				textBytes += int64(b.Name.TextLen() + len(b.Input))
			case "tool_result":
				walk(b.ContentRaw, depth+1)
			case "image":
				s.image = true
				tokens += imageTokens
			case "document":
				s.document = true
				tokens += documentTokens(&b.RawBlock)
			default:
				// A block the gateway does not read: all of it, markup
				// included, which errs high.
				textBytes += int64(len(b.Raw))
			}
			return nil
		})
	}
	walk(h.System(), 0)
	_ = h.EachMessage(func(_ int, m *wire.HistoryMessage) error {
		tokens += messageTokens
		walk(m.Content, 0)
		return nil
	})
	for _, t := range req.Tools {
		textBytes += int64(len(t.Raw))
	}
	if len(req.Tools) > 0 {
		tokens += toolUseTokens
	}
	s.inputTokens = tokens + (textBytes+bytesPerToken-1)/bytesPerToken
	return s
}

// documentTokens estimates one document block. A base64 document (a PDF)
// counts a token per byte of its data: a PDF's text is compressed, and
// each of its pages is also read as an image. A text document counts its
// text, one made of content blocks those blocks.
func documentTokens(b *wire.RawBlock) int64 {
	src := &b.Source
	if !src.Present {
		return unseenDocumentTokens
	}
	typ := "string"
	if !src.IsString {
		typ = src.Type.TextString()
	}
	switch typ {
	case "base64":
		return int64(src.Data.TextLen()) * 3 / 4
	case "text":
		return int64(src.Data.TextLen()+bytesPerToken-1) / bytesPerToken
	case "content":
		// The blocks are in the raw source; count them as sent.
		return int64(len(b.Raw)+bytesPerToken-1) / bytesPerToken
	}
	return unseenDocumentTokens
}
