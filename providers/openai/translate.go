package openai

import (
	"bytes"
	"unsafe"

	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// answerTranslator turns the parts of a Chat Completions answer — reasoning,
// content, tool-call fragments, finish reason, usage — into emitter calls.
// The stream and the non-streaming converter both drive it, so the two
// modes cannot disagree.
//
// The Anthropic grammar allows one open block at a time, while an upstream
// may interleave several tool calls by index, and even text, before a call's
// arguments are complete. The translator keeps a call's block open until its
// arguments form a complete JSON value (or the answer ends) and queues
// whatever arrives for anything else meanwhile, in arrival order; nothing is
// ever reordered within one kind, and text is never moved ahead of text.
type answerTranslator struct {
	x      *providers.Exchange
	em     *emit.Emitter
	state  *State
	parser *thinkparse.Parser // nil when split_tags is off

	src   source
	calls []toolCall
	open  int // index in calls of the open tool_use block, -1 if none

	queue    []pending
	qbuf     []byte
	draining bool
	// maxQueued bounds what the queue holds (0: DefaultMaxQueued); past it
	// nothing more is queued and overflow is set, which fails the stream.
	maxQueued int
	overflow  bool

	toolUsed   bool
	refused    bool
	stopReason string // mapped finish_reason, "" if none came
	stopSeq    string
	usage      emit.Usage
	done       bool

	// OpenRouter's reasoning details (openrouter.go). Once one came, the
	// plain reasoning fields, which repeat their text, are ignored.
	sawDetails bool
	detail     detailState
	// detailSig is the foreign part of the signature of the reasoning block
	// under way: the JSON of the detail it came from (empty: none).
	detailSig []byte
}

// source is what fed the emitter's open block.
type source uint8

const (
	srcNone source = iota
	srcReasoning
	srcContent
	srcTool
)

type itemKind uint8

const (
	itemReasoning itemKind = iota
	itemContent
	itemRefusal
	itemTool
	// OpenRouter's reasoning details (openrouter.go).
	itemDetailBreak // a new detail: the reasoning block ends
	itemDetailSig   // the open detail's JSON, the foreign part of its signature
	itemRedacted    // a reasoning.encrypted detail's JSON
)

// pending is a queued piece; its bytes are qbuf[start:end].
type pending struct {
	kind       itemKind
	call       int
	start, end int
	done       bool
}

type callState uint8

const (
	callWaiting callState = iota
	callOpen
	callClosed
)

type toolCall struct {
	index int64
	upID  string // the upstream's id, to match fragments without an index
	id    string
	name  []byte
	state callState
	args  jsonEnd
}

func (t *answerTranslator) init(x *providers.Exchange, st *State, em *emit.Emitter) {
	t.x, t.em, t.open, t.state = x, em, -1, st
	if x.Settings.SplitTags {
		t.parser = thinkparse.New(x.Settings.Parse, em)
	}
}

// reasoning takes text from a reasoning field: a thinking block of its own.
func (t *answerTranslator) reasoning(p []byte) {
	if len(p) == 0 {
		return
	}
	if t.open >= 0 {
		t.enqueue(itemReasoning, -1, p)
		return
	}
	t.emitReasoning(p)
}

func (t *answerTranslator) emitReasoning(p []byte) {
	if t.src != srcReasoning {
		t.endContent()
		t.em.ThinkingStart(nil)
		t.src = srcReasoning
		if len(t.detailSig) > 0 {
			t.em.Signature(emit.OriginOpenRouter, t.detailSig)
		}
	}
	t.em.Thinking(p)
}

// content takes the answer text, which may hold thinking tags.
func (t *answerTranslator) content(p []byte) {
	if len(p) == 0 {
		return
	}
	if t.open >= 0 {
		t.enqueue(itemContent, -1, p)
		return
	}
	t.emitContent(p)
}

func (t *answerTranslator) emitContent(p []byte) {
	if t.src == srcReasoning {
		t.em.ThinkingEnd()
	}
	t.src = srcContent
	if t.parser != nil {
		t.parser.Write(p)
	} else {
		t.em.Text(p)
	}
}

// refusal takes OpenAI's refusal text: plain text, and the stop reason
// becomes refusal.
func (t *answerTranslator) refusal(p []byte) {
	if len(p) == 0 {
		return
	}
	t.refused = true
	if t.open >= 0 {
		t.enqueue(itemRefusal, -1, p)
		return
	}
	t.emitRefusal(p)
}

func (t *answerTranslator) emitRefusal(p []byte) {
	t.endContent()
	if t.src == srcReasoning {
		t.em.ThinkingEnd()
	}
	t.src = srcNone
	t.em.Text(p)
}

// endContent delivers what the tag parser holds back and closes its span,
// before a block of another kind opens: text is never moved behind it.
func (t *answerTranslator) endContent() {
	if t.src == srcContent && t.parser != nil {
		t.parser.Close()
		t.parser.Reset(t.em)
	}
	if t.src == srcContent {
		t.src = srcNone
	}
}

// toolDelta takes one tool_calls fragment. id and name come with a call's
// first fragment.
func (t *answerTranslator) toolDelta(index int64, hasIndex bool, id, name, args []byte) {
	c := t.findCall(index, hasIndex, id)
	if c < 0 {
		t.calls = append(t.calls, toolCall{index: index, upID: string(id), id: wire.ToolUseID(id), name: append([]byte(nil), name...)})
		c = len(t.calls) - 1
	} else if call := &t.calls[c]; call.state == callWaiting && len(call.name) == 0 {
		call.name = append(call.name, name...)
	}
	if t.open >= 0 && t.open != c {
		t.enqueue(itemTool, c, args)
		return
	}
	t.emitTool(c, args)
}

func (t *answerTranslator) findCall(index int64, hasIndex bool, id []byte) int {
	if hasIndex {
		// The latest call with this index; a new id under a used index is a
		// new call (a few servers number every call 0).
		for i := len(t.calls) - 1; i >= 0; i-- {
			if c := &t.calls[i]; c.index == index {
				if len(id) > 0 && c.upID != "" && c.upID != string(id) {
					return -1
				}
				return i
			}
		}
		return -1
	}
	// No index (a few servers omit it): a new id starts a call, anything
	// else continues the last one.
	n := len(t.calls)
	if n == 0 || (len(id) > 0 && t.calls[n-1].upID != string(id)) {
		return -1
	}
	return n - 1
}

func (t *answerTranslator) emitTool(c int, args []byte) {
	call := &t.calls[c]
	switch call.state {
	case callClosed:
		// The call's arguments were already a complete JSON value.
		if len(bytes.TrimSpace(args)) > 0 {
			t.x.Logger.Warn("dropped tool-call arguments after the complete JSON value",
				zap.String("tool", string(call.name)), zap.ByteString("fragment", args))
		}
		return
	case callWaiting:
		t.endContent()
		if call.id == "" {
			call.id = providers.NewID("toolu_")
		}
		t.em.ToolUseStart(call.id, t.state.original(call.name))
		call.state = callOpen
		t.open, t.src, t.toolUsed = c, srcTool, true
	}
	if len(args) == 0 {
		return
	}
	t.em.ToolInput(args)
	call.args.feed(args)
	if call.args.complete {
		t.closeTool()
	}
}

// closeTool closes the open tool_use block and lets the queue through.
func (t *answerTranslator) closeTool() {
	t.em.CloseBlock()
	t.calls[t.open].state = callClosed
	t.open, t.src = -1, srcNone
	t.drain()
}

// DefaultMaxQueued is what a stream may hold back while a tool call's
// arguments are incomplete, when the provider sets no other bound.
const DefaultMaxQueued = 16 << 20

// queuedItemCost is what one queued piece costs beside its bytes, counted
// against the bound so that many tiny pieces cannot pass it unseen.
const queuedItemCost = int(unsafe.Sizeof(pending{}))

func (t *answerTranslator) enqueue(kind itemKind, call int, p []byte) {
	max := t.maxQueued
	if max <= 0 {
		max = DefaultMaxQueued
	}
	if t.overflow || len(t.qbuf)+len(p)+(len(t.queue)+1)*queuedItemCost > max {
		t.overflow = true
		return
	}
	start := len(t.qbuf)
	t.qbuf = append(t.qbuf, p...)
	if n := len(t.queue); n > 0 && kind < itemTool {
		// Text that continues the last piece joins it: the parser and
		// the emitter give the same output for it split or not. (A tool
		// call's fragments stay apart: what follows its complete JSON
		// value is dropped, fragment by fragment.)
		if last := &t.queue[n-1]; !last.done && last.kind == kind && last.end == start {
			last.end = len(t.qbuf)
			return
		}
	}
	t.queue = append(t.queue, pending{kind: kind, call: call, start: start, end: len(t.qbuf)})
}

// drain delivers queued pieces in arrival order, up to the first that must
// wait for the open tool call; fragments of the open call itself go through.
func (t *answerTranslator) drain() {
	if t.draining || len(t.queue) == 0 {
		return
	}
	t.draining = true
restart:
	for i := range t.queue {
		it := &t.queue[i]
		if it.done || (t.open >= 0 && (it.kind != itemTool || it.call != t.open)) {
			continue
		}
		it.done = true
		wasOpen := t.open >= 0
		p := t.qbuf[it.start:it.end]
		switch it.kind {
		case itemReasoning:
			t.emitReasoning(p)
		case itemContent:
			t.emitContent(p)
		case itemRefusal:
			t.emitRefusal(p)
		case itemTool:
			t.emitTool(it.call, p)
		case itemDetailBreak:
			t.emitDetailBreak()
		case itemDetailSig:
			t.emitDetailSig(p)
		case itemRedacted:
			t.emitRedacted(p)
		}
		if wasOpen && t.open < 0 {
			goto restart // a call closed: what waited for it goes first
		}
	}
	n := 0
	for _, it := range t.queue {
		if !it.done {
			t.queue[n] = it
			n++
		}
	}
	t.queue = t.queue[:n]
	if n == 0 {
		t.qbuf = t.qbuf[:0]
	}
	t.draining = false
}

// endAll closes every open or queued block in order.
func (t *answerTranslator) endAll() {
	for t.open >= 0 {
		t.closeTool()
	}
	t.endContent()
	if t.src == srcReasoning {
		t.em.ThinkingEnd()
	}
	t.src = srcNone
}

// setFinish records the choice's finish_reason.
func (t *answerTranslator) setFinish(reason []byte) {
	switch string(reason) {
	case "stop":
		t.stopReason = "end_turn"
	case "length":
		t.stopReason = "max_tokens"
	case "tool_calls", "function_call":
		t.stopReason = "tool_use"
	case "content_filter":
		t.stopReason = "refusal"
	default:
		t.stopReason = "end_turn"
	}
}

// matchStop takes the stop string vLLM reports in choice.stop_reason: when it
// is one of the request's stop_sequences the answer stopped on it.
func (t *answerTranslator) matchStop(s []byte) {
	for _, seq := range t.x.Request.StopSequences {
		if seq == string(s) {
			t.stopSeq = seq
			return
		}
	}
}

func (t *answerTranslator) finalStopReason() (string, string) {
	switch {
	case t.refused && t.stopReason != "max_tokens":
		return "refusal", ""
	case t.stopReason != "" && t.stopReason != "end_turn":
		return t.stopReason, ""
	case t.toolUsed:
		// OpenAI says "stop" after a call forced by tool_choice; Anthropic
		// clients run tools on tool_use.
		return "tool_use", ""
	case t.stopSeq != "":
		return "stop_sequence", t.stopSeq
	}
	return "end_turn", ""
}

// finish ends the message.
func (t *answerTranslator) finish() {
	t.endAll()
	t.done = true
	t.x.Usage = t.usage
	reason, seq := t.finalStopReason()
	t.em.Finish(reason, seq, t.usage)
}

// jsonEnd follows a streamed JSON value far enough to see where it ends.
type jsonEnd struct {
	depth               int
	inStr, esc, started bool
	complete            bool
}

func (j *jsonEnd) feed(p []byte) {
	for _, c := range p {
		if j.complete {
			return
		}
		if j.inStr {
			switch {
			case j.esc:
				j.esc = false
			case c == '\\':
				j.esc = true
			case c == '"':
				j.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			j.inStr = true
		case '{', '[':
			j.depth++
			j.started = true
		case '}', ']':
			j.depth--
			if j.started && j.depth <= 0 {
				j.complete = true
			}
		}
	}
}
