package converse

import (
	"encoding/json"
	"mime"
	"net/http"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// Translator is the request's providers.Translator; the answer's blocks go
// through an answerTranslator.
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
	case t.x.Streaming && !t.x.CountTokens && isEventStream(header.Get("Content-Type")):
		return providers.Handling{NewStream: t.NewStream}
	}
	return providers.Handling{Body: t.Message}
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == EventStreamType
}

// Interface guard
var _ providers.Translator = (*Translator)(nil)

// answerTranslator turns Converse content blocks — text, reasoning, tool calls —
// into emitter calls. The stream and the non-streaming answer both drive
// it, so the two cannot disagree.
//
// Converse numbers its blocks (contentBlockIndex), and blocks are known by
// that number, not by the order their events arrive in. Bedrock sends one
// block's deltas after another's, but Anthropic's grammar has one open
// block at a time whatever the upstream does, so the rules of
// docs/thinking.md ("Items that interleave") decide: text and reasoning
// stream at once, and a delta of another block closes the open one (a
// reasoning block signed with what it carried so far); a tool call's input
// is never cut: while it streams, other blocks' events are held (at most
// providers.MaxHeld bytes) and replayed in their order at its
// contentBlockStop.
type answerTranslator struct {
	x      *providers.Exchange
	em     *emit.Emitter
	parser *thinkparse.Parser // nil when split_tags is off

	started bool
	blocks  []*block
	cur     *block // the block open on the emitter
	// held are events of other blocks that came while a tool call's
	// input streamed.
	held providers.HeldEvents[*block]

	toolUsed     bool
	stopReason   string
	stopSequence string
	stopped      bool // messageStop arrived
	usage        emit.Usage
	done         bool
}

// block is one content block of the answer, by its contentBlockIndex.
type block struct {
	index   int
	kind    blockKind
	stopped bool // its contentBlockStop arrived
	shown   bool // some of its content went out
	// signature and redacted collect a reasoning block's signature and
	// redactedContent.
	signature []byte
	redacted  []byte
	toolID    string
	name      string
}

type blockKind uint8

const (
	blockText blockKind = iota + 1
	blockReasoning
	blockRedacted
	blockTool
)

// MaxBlocks bounds the content blocks of one answer: each is remembered
// until the answer ends, so that a late event finds it.
const MaxBlocks = 4096

var (
	errTooManyBlocks = awsstream.Malformed("more than 4096 content blocks in one answer")
	errHeld          = wire.APIError(http.StatusBadGateway,
		"malformed upstream response: more than 4 MiB of other blocks arrived while a tool call was open")
	errToolInput = awsstream.Malformed("tool input for a content block that is not a tool call")
)

func (t *answerTranslator) init(x *providers.Exchange, em *emit.Emitter) {
	t.x, t.em = x, em
	if x.Settings.SplitTags {
		t.parser = thinkparse.New(x.Settings.Parse, em)
	}
}

// start sends message_start with the first content, so that an exception
// before it is still an HTTP error for the client.
func (t *answerTranslator) start() {
	if !t.started {
		t.started = true
		t.em.MessageStart(t.x.MessageID, t.x.ClientModel, emit.Usage{})
	}
}

func (t *answerTranslator) find(index int) *block {
	for i := len(t.blocks) - 1; i >= 0; i-- {
		if t.blocks[i].index == index {
			return t.blocks[i]
		}
	}
	return nil
}

// lookup returns block index, made of kind if it is new. ok is false for
// a block of another kind (a block is text, reasoning, redacted or a tool
// call, never two of them).
func (t *answerTranslator) lookup(index int, kind blockKind) (b *block, ok bool, err error) {
	if b = t.find(index); b != nil {
		return b, b.kind == kind, nil
	}
	if len(t.blocks) >= MaxBlocks {
		return nil, false, errTooManyBlocks
	}
	b = &block{index: index, kind: kind}
	t.blocks = append(t.blocks, b)
	return b, true, nil
}

// streaming reports whether a tool call other than b streams its input.
func (t *answerTranslator) streaming(b *block) bool {
	return t.cur != nil && t.cur.kind == blockTool && t.cur != b
}

// keep returns p when it is used now, a copy when it may be held (the
// decoder reuses its buffers).
func (t *answerTranslator) keep(b *block, p []byte) []byte {
	if !t.streaming(b) {
		return p
	}
	return append([]byte(nil), p...)
}

// deliver applies an event of b, or holds it while another block's tool
// call streams.
func (t *answerTranslator) deliver(b *block, size int, apply func() error) error {
	if !t.streaming(b) {
		return apply()
	}
	if !t.held.Hold(b, size, apply) {
		return errHeld
	}
	return nil
}

// release replays the held events that no streaming call holds back. The
// stream calls it after each event (never from an event being applied).
func (t *answerTranslator) release() error {
	return t.held.Release(t.streaming, func() *block { return t.cur })
}

// enter makes b the block open on the emitter, closing another.
func (t *answerTranslator) enter(b *block) {
	t.start()
	if t.cur == b {
		return
	}
	t.closeCur()
	t.cur = b
	switch b.kind {
	case blockReasoning:
		// Bedrock's reasoning, signature or not (DeepSeek-R1 sends none):
		// it goes back to Bedrock as reasoningContent.
		t.em.ThinkingStart(nil)
		t.em.Signature(emit.OriginBedrock, b.signature)
	case blockTool:
		t.toolUsed = true
		t.em.ToolUseStart(b.toolID, b.name)
	}
}

// text takes answer text, which may hold thinking tags.
func (t *answerTranslator) text(index int, p []byte) error {
	b, ok, err := t.lookup(index, blockText)
	if err != nil || !ok || len(p) == 0 {
		return err
	}
	p = t.keep(b, p)
	return t.deliver(b, len(p), func() error {
		t.enter(b)
		b.shown = true
		if t.parser != nil {
			t.parser.Write(p)
		} else {
			t.em.Text(p)
		}
		return nil
	})
}

// reasoningText takes reasoning text.
func (t *answerTranslator) reasoningText(index int, p []byte) error {
	b, ok, err := t.lookup(index, blockReasoning)
	if err != nil || !ok || len(p) == 0 {
		return err
	}
	p = t.keep(b, p)
	return t.deliver(b, len(p), func() error {
		t.enter(b)
		b.shown = true
		t.em.Thinking(p)
		return nil
	})
}

// MaxForeign bounds what one reasoning block's signature or redacted
// content collects: both are held whole until the block closes, and go
// back to the client inside its signature. Bedrock's are a few kilobytes.
const MaxForeign = 4 << 20

var errForeignTooLarge = wire.APIError(http.StatusBadGateway,
	"malformed upstream response: a reasoning block's signature or redacted content passed 4 MiB")

// reasoningSignature takes (a piece of) a reasoning block's signature,
// which the block's signature_delta wraps (origin Bedrock). A signature
// that comes after another block closed this one cannot reach it: its
// signature_delta went out when it closed.
func (t *answerTranslator) reasoningSignature(index int, p []byte) error {
	b, ok, err := t.lookup(index, blockReasoning)
	if err != nil || !ok {
		return err
	}
	return t.collect(b, &b.signature, p, func() {
		if t.cur == b {
			t.em.Signature(emit.OriginBedrock, b.signature)
		}
	})
}

// redactedContent takes (a piece of) a redacted reasoning block's
// content, as its base64 text.
func (t *answerTranslator) redactedContent(index int, p []byte) error {
	b, ok, err := t.lookup(index, blockRedacted)
	if err != nil || !ok {
		return err
	}
	return t.collect(b, &b.redacted, p, func() {})
}

// collect appends p, a piece of what block b collects whole (its
// signature, its redacted content), to *dst when its event is applied,
// then runs then. The pieces together may not pass MaxForeign.
func (t *answerTranslator) collect(b *block, dst *[]byte, p []byte, then func()) error {
	if len(*dst)+len(p) > MaxForeign {
		return errForeignTooLarge
	}
	p = t.keep(b, p)
	return t.deliver(b, len(p), func() error {
		*dst = append(*dst, p...)
		then()
		return nil
	})
}

// toolStart opens a tool call's tool_use block (once another call's has
// ended).
func (t *answerTranslator) toolStart(index int, id, name string) error {
	b, ok, err := t.lookup(index, blockTool)
	if err != nil {
		return err
	}
	if !ok || b.shown || b.toolID != "" {
		return nil // a second start adds nothing
	}
	b.toolID, b.name = id, name
	return t.deliver(b, len(id)+len(name), func() error {
		t.enter(b)
		b.shown = true
		return nil
	})
}

// toolInput takes a fragment of a call's input; a block that is not a
// started tool call is a malformed stream.
func (t *answerTranslator) toolInput(index int, p []byte) error {
	b := t.find(index)
	if b == nil || b.kind != blockTool || b.stopped {
		return errToolInput
	}
	if len(p) == 0 {
		return nil
	}
	p = t.keep(b, p)
	return t.deliver(b, len(p), func() error {
		t.enter(b)
		b.shown = true
		t.em.ToolInput(p)
		return nil
	})
}

// blockStop ends block index.
func (t *answerTranslator) blockStop(index int) error {
	b := t.find(index)
	if b == nil || b.stopped {
		return nil
	}
	b.stopped = true
	return t.deliver(b, 0, func() error {
		switch {
		case t.cur == b:
			t.closeCur()
		case b.kind == blockTool && !b.shown:
			t.enter(b) // a call without input
			b.shown = true
			t.closeCur()
		case b.kind == blockRedacted && !b.shown:
			t.closeCur()
			t.redactedBlock(b)
		}
		return nil
	})
}

// closeCur closes the open block.
func (t *answerTranslator) closeCur() {
	b := t.cur
	if b == nil {
		return
	}
	t.cur = nil
	switch b.kind {
	case blockText:
		t.flushParser()
		t.em.CloseBlock()
	case blockReasoning:
		t.em.ThinkingEnd()
	case blockTool:
		t.em.CloseBlock()
	}
}

// redactedBlock emits a redacted reasoning block as a redacted_thinking
// block whose data is the gateway's envelope around the redactedContent
// (origin Bedrock), so that it can go back to Bedrock; a client without a
// signer or one that takes thinking as text gets none.
func (t *answerTranslator) redactedBlock(b *block) {
	b.shown = true
	signer := t.x.Settings.Signer
	if len(b.redacted) > 0 && signer != nil && t.x.Settings.Form == emit.FormThinking {
		t.start()
		data := signer.Sign(emit.OriginBedrock, string(b.redacted), "")
		raw := append([]byte(`{"type":"redacted_thinking","data":`), jsonbytes.AppendString(nil, data)...)
		_ = t.em.RawBlockStart(append(raw, '}'))
		t.em.CloseBlock()
	}
	b.redacted = nil
}

// end closes every block, delivering what is held: the answer ended (or
// failed) with blocks open.
func (t *answerTranslator) end() error {
	if t.cur != nil && t.cur.kind == blockTool {
		t.closeCur()
	}
	err := t.release()
	t.closeCur()
	for _, b := range t.blocks {
		if b.kind == blockRedacted && !b.shown {
			t.redactedBlock(b)
		}
	}
	return err
}

// flushParser delivers what the tag parser holds back and closes its span.
func (t *answerTranslator) flushParser() {
	if t.parser != nil {
		t.parser.Close()
		t.parser.Reset(t.em)
	}
}

// stop records messageStop's stop reason, and the stop sequence that
// matched where the model said (Claude, asked for /stop_sequence).
func (t *answerTranslator) stop(reason string, fields *responseFields) error {
	err := t.end()
	t.stopped = true
	t.stopReason = stopReason(reason)
	if t.stopReason != "stop_sequence" {
		return err
	}
	if fields != nil {
		// Anything but a string (null, a field of a newer shape) says nothing.
		_ = json.Unmarshal(fields.StopSequence, &t.stopSequence)
	}
	if req := t.x.Request; t.stopSequence == "" && req != nil && len(req.StopSequences) == 1 {
		t.stopSequence = req.StopSequences[0] // the one there was
	}
	return err
}

// responseFields are the additionalModelResponseFields the gateway asks for.
type responseFields struct {
	StopSequence json.RawMessage `json:"stop_sequence"`
}

// finish ends the message.
func (t *answerTranslator) finish() {
	t.start()
	_ = t.end() // messageStop ended every block; nothing is held
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

func (u usage) anthropic() emit.Usage {
	return emit.Usage{
		InputTokens:              u.InputTokens,
		OutputTokens:             u.OutputTokens,
		CacheCreationInputTokens: u.CacheWriteInputTokens,
		CacheReadInputTokens:     u.CacheReadInputTokens,
	}
}
