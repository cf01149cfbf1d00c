package providers

import (
	"encoding/json"
	"strconv"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// collector builds a non-streaming Message from the same emitter calls that
// produce a stream, so a provider converts content once for both modes.
type collector struct {
	id, model    string
	blocks       []collected
	stopReason   string
	stopSequence string
	usage        Usage
	err          *Error
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

// NewCollector returns an emitter in collect mode: call MessageJSON after Finish.
func NewCollector(form BlockForm, signer *Signer) *Emitter {
	e := NewEmitter(form, signer)
	e.Buf = nil
	e.collect = &collector{}
	return e
}

// CollectError returns the error a collected stream ended with, if any.
func (e *Emitter) CollectError() *Error {
	if e.collect == nil {
		return nil
	}
	return e.collect.err
}

// MessageJSON returns the collected Message.
func (e *Emitter) MessageJSON() []byte {
	c := e.collect
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
