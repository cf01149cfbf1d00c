package emit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// collector is the emitter's output as one non-streaming Message: the same
// calls that produce a stream build it, so a provider converts content
// once for both modes.
type collector struct {
	id, model    string
	blocks       []collected
	stopReason   string
	stopSequence string
	usage        Usage
	err          *wire.Error
}

type collected struct {
	kind        blockKind
	text        []byte // text, thinking, tool input, or a raw block
	citations   []json.RawMessage
	signature   string
	id, name    string
	meta        bool
	thoughtType string
	confidence  float64
}

func (c *collector) add(kind blockKind) *collected {
	c.blocks = append(c.blocks, collected{kind: kind})
	return &c.blocks[len(c.blocks)-1]
}

func (c *collector) cur() *collected { return &c.blocks[len(c.blocks)-1] }

// NewCollector returns an emitter that builds one Message: call MessageJSON
// after Finish.
func NewCollector(form BlockForm, signer *Signer) *Emitter {
	e := new(Emitter)
	e.init(form, signer, &collector{})
	return e
}

// CollectError returns the error a collected stream ended with, if any.
func (e *Emitter) CollectError() *wire.Error {
	if c, ok := e.out.(*collector); ok {
		return c.err
	}
	return nil
}

// A Message holds upstream JSON as it came: nothing needs framing.
func (c *collector) frame(data []byte) ([]byte, error) { return data, nil }

func (c *collector) messageStart(id, model string, usage Usage) {
	c.id, c.model, c.usage = id, model, usage
}

func (c *collector) messageStartRaw([]byte) {}

func (c *collector) blockStart(_ int, kind blockKind, meta *blockMeta) {
	b := c.add(kind)
	if meta != nil && meta.set {
		b.meta, b.thoughtType, b.confidence = true, string(meta.thoughtType), meta.confidence
	}
}

func (c *collector) toolUseStart(_ int, id, name string) {
	b := c.add(blockToolUse)
	b.id, b.name = id, name
}

func (c *collector) rawBlockStart(_ int, block []byte) {
	b := c.add(blockRaw)
	b.text = append(b.text, block...)
}

// delta replaces invalid UTF-8 in thinking text call by call, as the
// stream's deltas do, and reports it: the signature covers the text the
// client holds.
func (c *collector) delta(_ int, _ deltaKind, p []byte) bool {
	b := c.cur()
	if (b.kind == blockThinking || b.kind == blockThinkingText) && !utf8.Valid(p) {
		b.text = appendValidUTF8(b.text, p)
		return true
	}
	b.text = append(b.text, p...)
	return false
}

func (c *collector) citation(_ int, citation []byte) {
	b := c.cur()
	b.citations = append(b.citations, json.RawMessage(bytes.Clone(citation)))
}

func (c *collector) rawDelta(int, []byte) {}

func (c *collector) blockStop(_ int, sig []byte) {
	if sig != nil {
		c.cur().signature = string(sig)
	}
}

func (c *collector) messageDelta(stopReason, stopSequence string, usage Usage) {
	c.stopReason, c.stopSequence, c.usage = stopReason, stopSequence, usage
}

func (c *collector) messageDeltaRaw([]byte) {}
func (c *collector) messageStop()           {}

func (c *collector) fail(typ, msg string) {
	c.err = &wire.Error{Status: 502, Type: typ, Message: msg}
}

func (c *collector) failRaw(data []byte) {
	var body struct {
		Error struct{ Type, Message string }
	}
	_ = json.Unmarshal(data, &body)
	c.err = &wire.Error{Status: 502, Type: body.Error.Type, Message: body.Error.Message}
}

func (c *collector) rawEvent(string, []byte) error { return nil }
func (c *collector) ping()                         {}

// MessageJSON returns the collected Message.
func (e *Emitter) MessageJSON() []byte {
	c, ok := e.out.(*collector)
	if !ok {
		return nil
	}
	b := []byte(`{"id":`)
	b = jsonbytes.AppendString(b, c.id)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = jsonbytes.AppendString(b, c.model)
	b = append(b, `,"content":[`...)
	for i, blk := range c.blocks {
		if i > 0 {
			b = append(b, ',')
		}
		switch blk.kind {
		case blockText, blockThinkingText:
			b = append(b, `{"type":"text","text":`...)
			b = jsonbytes.AppendString(b, blk.text)
			if len(blk.citations) > 0 {
				b = append(b, `,"citations":[`...)
				for i, c := range blk.citations {
					if i > 0 {
						b = append(b, ',')
					}
					b = append(b, c...)
				}
				b = append(b, ']')
			}
			b = append(b, '}')
		case blockThinking:
			b = append(b, `{"type":"thinking","thinking":`...)
			b = jsonbytes.AppendString(b, blk.text)
			b = append(b, `,"signature":`...)
			b = jsonbytes.AppendString(b, blk.signature)
			if blk.meta {
				b = append(b, `,"metadata":{`...)
				if blk.thoughtType != "" {
					b = append(b, `"thought_type":`...)
					b = jsonbytes.AppendString(b, blk.thoughtType)
					b = append(b, ',')
				}
				b = append(b, `"confidence":`...)
				b = strconv.AppendFloat(b, blk.confidence, 'f', -1, 64)
				b = append(b, '}')
			}
			b = append(b, '}')
		case blockToolUse:
			b = append(b, `{"type":"tool_use","id":`...)
			b = jsonbytes.AppendString(b, blk.id)
			b = append(b, `,"name":`...)
			b = jsonbytes.AppendString(b, blk.name)
			b = append(b, `,"input":`...)
			if len(blk.text) == 0 || !json.Valid(blk.text) {
				b = append(b, "{}"...)
			} else {
				b = append(b, blk.text...)
			}
			b = append(b, '}')
		case blockRaw:
			b = append(b, blk.text...)
		}
	}
	b = append(b, `],"stop_reason":`...)
	b = appendNullable(b, c.stopReason)
	b = append(b, `,"stop_sequence":`...)
	b = appendNullable(b, c.stopSequence)
	b = append(b, `,"usage":`...)
	b = appendUsage(b, c.usage)
	return append(b, '}')
}
