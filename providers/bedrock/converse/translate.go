package converse

import (
	"encoding/json"
	"mime"
	"net/http"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// Translator translates the answer to one converted request.
type Translator struct {
	x  *providers.Exchange
	st *State
}

// EventStreamType is the media type ConverseStream answers with.
const EventStreamType = "application/vnd.amazon.eventstream"

// Handle says how the upstream's answer is handled: an event stream is
// translated as it arrives, a JSON answer (Converse, CountTokens) whole,
// an AWS error document mapped.
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	switch {
	case status >= 300:
		return providers.Handling{Error: awsstream.UpstreamError}
	case t.x.Stream && !t.x.CountTokens && isEventStream(header.Get("Content-Type")):
		return providers.Handling{Stream: providers.NewEventStream(t.x, func(em *providers.Emitter) providers.Stream {
			return t.NewStream(em)
		})}
	}
	return providers.Handling{Body: t.Message}
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == EventStreamType
}

// Interface guard
var _ providers.Translator = (*Translator)(nil)

// translator turns Converse content blocks — text, reasoning, tool calls —
// into emitter calls. The stream and the non-streaming answer both drive
// it, so the two cannot disagree.
//
// Converse numbers its blocks (contentBlockIndex) and sends one block's
// deltas after another's: a block opens with its first delta (a tool call
// with its contentBlockStart) and closes at its contentBlockStop, or when
// a delta of another block arrives.
type translator struct {
	x      *providers.Exchange
	em     *providers.Emitter
	parser *thinkparse.Parser // nil when split_tags is off

	started bool
	open    blockKind
	index   int // the open block's contentBlockIndex
	// signature and redacted collect the open reasoning block's signature
	// and redactedContent.
	signature []byte
	redacted  []byte

	toolUsed     bool
	stopReason   string
	stopSequence string
	stopped      bool // messageStop arrived
	usage        providers.Usage
	done         bool
}

type blockKind uint8

const (
	blockNone blockKind = iota
	blockText
	blockReasoning
	blockRedacted
	blockTool
)

func (t *translator) init(x *providers.Exchange, em *providers.Emitter) {
	t.x, t.em = x, em
	if x.Settings.SplitTags {
		t.parser = thinkparse.New(x.Settings.Parse, em)
	}
}

// start sends message_start with the first content, so that an exception
// before it is still an HTTP error for the client.
func (t *translator) start() {
	if !t.started {
		t.started = true
		t.em.MessageStart(t.x.MessageID, t.x.ClientModel, providers.Usage{})
	}
}

// enter makes block index of kind the open one, closing another.
func (t *translator) enter(index int, kind blockKind) {
	t.start()
	if t.open == kind && t.index == index {
		return
	}
	t.endBlock()
	t.open, t.index = kind, index
	if kind == blockReasoning {
		// Bedrock's reasoning, signature or not (DeepSeek-R1 sends none):
		// it goes back to Bedrock as reasoningContent.
		t.em.ThinkingStart(nil)
		t.em.Signature(providers.OriginBedrock, nil)
	}
}

// text takes answer text, which may hold thinking tags.
func (t *translator) text(index int, p []byte) {
	t.enter(index, blockText)
	if len(p) == 0 {
		return
	}
	if t.parser != nil {
		t.parser.Write(p)
	} else {
		t.em.Text(p)
	}
}

// reasoningText takes reasoning text.
func (t *translator) reasoningText(index int, p []byte) {
	if t.open == blockRedacted && t.index == index {
		return // a block is text or redacted, never both
	}
	t.enter(index, blockReasoning)
	t.em.Thinking(p)
}

// MaxForeign bounds what one reasoning block's signature or redacted
// content collects: both are held whole until the block closes, and go
// back to the client inside its signature. Bedrock's are a few kilobytes.
const MaxForeign = 4 << 20

var errForeignTooLarge = providers.APIError(http.StatusBadGateway,
	"malformed upstream response: a reasoning block's signature or redacted content passed 4 MiB")

// reasoningSignature takes (a piece of) the open reasoning block's
// signature, which the block's signature_delta wraps (origin Bedrock).
func (t *translator) reasoningSignature(index int, p []byte) error {
	if t.open == blockRedacted && t.index == index {
		return nil
	}
	t.enter(index, blockReasoning)
	if len(t.signature)+len(p) > MaxForeign {
		return errForeignTooLarge
	}
	t.signature = append(t.signature, p...)
	t.em.Signature(providers.OriginBedrock, t.signature)
	return nil
}

// redactedContent takes (a piece of) a redacted reasoning block's
// content, as its base64 text.
func (t *translator) redactedContent(index int, p []byte) error {
	if t.open == blockReasoning && t.index == index {
		return nil
	}
	t.enter(index, blockRedacted)
	if len(t.redacted)+len(p) > MaxForeign {
		return errForeignTooLarge
	}
	t.redacted = append(t.redacted, p...)
	return nil
}

// toolStart opens a tool call's tool_use block.
func (t *translator) toolStart(index int, id, name string) {
	t.start()
	t.endBlock()
	t.open, t.index = blockTool, index
	t.toolUsed = true
	t.em.ToolUseStart(id, name)
}

// toolInput takes a fragment of the open call's input; false when no call
// is open at index.
func (t *translator) toolInput(index int, p []byte) bool {
	if t.open != blockTool || t.index != index {
		return false
	}
	t.em.ToolInput(p)
	return true
}

// blockStop closes block index if it is the open one.
func (t *translator) blockStop(index int) {
	if t.index == index {
		t.endBlock()
	}
}

// endBlock closes the open block. A redacted reasoning block becomes a
// redacted_thinking block whose data is the gateway's envelope around the
// redactedContent (origin Bedrock), so that it can go back to Bedrock; a
// client without a signer or one that takes thinking as text gets none.
func (t *translator) endBlock() {
	switch t.open {
	case blockText:
		t.flushParser()
		t.em.CloseBlock()
	case blockReasoning:
		t.em.ThinkingEnd()
		t.signature = t.signature[:0]
	case blockTool:
		t.em.CloseBlock()
	case blockRedacted:
		signer := t.x.Settings.Signer
		if len(t.redacted) > 0 && signer != nil && t.x.Settings.Form == providers.FormThinking {
			data := signer.Sign(providers.OriginBedrock, string(t.redacted), "")
			block := append([]byte(`{"type":"redacted_thinking","data":`), jsonbytes.AppendString(nil, data)...)
			_ = t.em.RawBlockStart(append(block, '}'))
			t.em.CloseBlock()
		}
		t.redacted = t.redacted[:0]
	}
	t.open, t.index = blockNone, -1
}

// flushParser delivers what the tag parser holds back and closes its span.
func (t *translator) flushParser() {
	if t.parser != nil {
		t.parser.Close()
		t.parser.Reset(t.em)
	}
}

// stop records messageStop's stop reason, and the stop sequence that
// matched where the model said (Claude, asked for /stop_sequence).
func (t *translator) stop(reason string, fields *responseFields) {
	t.endBlock()
	t.stopped = true
	t.stopReason = stopReason(reason)
	if t.stopReason != "stop_sequence" {
		return
	}
	if fields != nil {
		// Anything but a string (null, a field of a newer shape) says nothing.
		_ = json.Unmarshal(fields.StopSequence, &t.stopSequence)
	}
	if req := t.x.Request; t.stopSequence == "" && req != nil && len(req.StopSequences) == 1 {
		t.stopSequence = req.StopSequences[0] // the one there was
	}
}

// responseFields are the additionalModelResponseFields the gateway asks for.
type responseFields struct {
	StopSequence json.RawMessage `json:"stop_sequence"`
}

// finish ends the message.
func (t *translator) finish() {
	t.start()
	t.endBlock()
	t.done = true
	t.x.Usage = t.usage
	t.em.Finish(t.stopReason, t.stopSequence, t.usage)
}

// stopReason maps Converse's stopReason. Guardrails and content filters
// stopped the answer: refusal. A reason Anthropic has no word for
// (malformed_model_output, malformed_tool_use, one added later) ends the
// turn.
func stopReason(r string) string {
	switch r {
	case "end_turn", "tool_use", "max_tokens", "stop_sequence", "model_context_window_exceeded":
		return r
	case "guardrail_intervened", "content_filtered":
		return "refusal"
	}
	return "end_turn"
}

// usage is Converse's token usage. Its inputTokens leaves out cache reads
// and writes, as Anthropic's input_tokens does.
type usage struct {
	InputTokens           int64 `json:"inputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	CacheReadInputTokens  int64 `json:"cacheReadInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
}

func (u usage) anthropic() providers.Usage {
	return providers.Usage{
		InputTokens:              u.InputTokens,
		OutputTokens:             u.OutputTokens,
		CacheCreationInputTokens: u.CacheWriteInputTokens,
		CacheReadInputTokens:     u.CacheReadInputTokens,
	}
}
