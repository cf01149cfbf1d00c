package responses

import (
	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// translator turns the output items of a response — reasoning, messages,
// function calls — into emitter calls. The stream and the non-streaming
// converter both drive it, so the two modes cannot disagree.
//
// The Responses API sends its output items one after another (each item's
// events between its output_item.added and output_item.done), which is the
// Anthropic grammar's one open block at a time: an item's block opens with
// the item and closes with it.
type translator struct {
	x      *providers.Exchange
	em     *providers.Emitter
	state  *State
	parser *thinkparse.Parser // nil when split_tags is off

	open   itemKind
	itemID string
	// thought counts the thinking bytes of the open reasoning item; sep
	// is set when a summary part began after some of them.
	thought    int
	sep        bool
	sawSummary bool // the open reasoning item's text came as deltas
	sawArgs    bool // the open call's arguments came as deltas

	toolUsed, refused bool
	usage             providers.Usage
	done              bool
}

type itemKind uint8

const (
	itemNone itemKind = iota
	itemReasoning
	itemMessage
	itemCall
)

// summarySeparator goes between two summary parts of one reasoning item,
// as OpenAI separates them when it shows a summary.
const summarySeparator = "\n\n"

func (t *translator) init(x *providers.Exchange, st *State, em *providers.Emitter) {
	t.x, t.em, t.state = x, em, st
	if x.Settings.SplitTags {
		t.parser = thinkparse.New(x.Settings.Parse, em)
	}
}

// reasoningStart opens a reasoning item: one thinking block, opened by its
// first text.
func (t *translator) reasoningStart(id []byte) {
	t.endItem()
	t.open, t.itemID = itemReasoning, string(id)
	t.thought, t.sep, t.sawSummary = 0, false, false
	t.em.ThinkingStart(nil)
}

// summaryPart marks the start of a summary part of the open reasoning item.
func (t *translator) summaryPart() {
	if t.open != itemReasoning {
		t.reasoningStart(nil)
	}
	if t.thought > 0 {
		t.sep = true
	}
}

// reasoningText takes summary (or reasoning) text of the open item.
func (t *translator) reasoningText(p []byte) {
	if t.open != itemReasoning {
		t.reasoningStart(nil)
	}
	t.sawSummary = true
	if len(p) == 0 {
		return
	}
	if t.sep {
		t.em.Thinking([]byte(summarySeparator))
		t.thought += len(summarySeparator)
		t.sep = false
	}
	t.em.Thinking(p)
	t.thought += len(p)
}

// reasoningDone ends the open reasoning item with its id, encrypted_content
// and, for an upstream that sent no summary deltas, its summary parts. The
// thinking block is signed with id and encrypted_content (origin
// Responses). An item with no summary text but encrypted_content becomes a
// redacted_thinking block holding the signature alone: the reasoning is
// kept across tool calls although there is nothing to show.
func (t *translator) reasoningDone(id, encrypted []byte, summaries [][]byte) {
	if t.open != itemReasoning {
		t.reasoningStart(id)
	}
	if !t.sawSummary {
		for _, s := range summaries {
			t.summaryPart()
			t.reasoningText(s)
		}
	}
	if len(id) == 0 {
		id = []byte(t.itemID)
	}
	foreign := joinForeign(id, encrypted)
	t.open = itemNone
	if t.thought > 0 {
		t.em.Signature(providers.OriginResponses, foreign)
		t.em.ThinkingEnd()
		return
	}
	t.em.ThinkingEnd()
	signer := t.x.Settings.Signer
	if len(encrypted) == 0 || signer == nil || t.x.Settings.Form != providers.FormThinking {
		return
	}
	block := append([]byte(`{"type":"redacted_thinking","data":`), jsonbytes.AppendString(nil, signer.Sign(providers.OriginResponses, string(foreign), ""))...)
	_ = t.em.RawBlockStart(append(block, '}'))
	t.em.CloseBlock()
}

// messageStart opens a message item; its text opens a text block.
func (t *translator) messageStart(id []byte) {
	t.endItem()
	t.open, t.itemID = itemMessage, string(id)
}

// text takes answer text, which may hold thinking tags.
func (t *translator) text(p []byte) {
	if t.open != itemMessage {
		t.messageStart(nil)
	}
	if len(p) == 0 {
		return
	}
	if t.parser != nil {
		t.parser.Write(p)
	} else {
		t.em.Text(p)
	}
}

// refusal takes a refusal: plain text, and the stop reason becomes refusal.
func (t *translator) refusal(p []byte) {
	if t.open != itemMessage {
		t.messageStart(nil)
	}
	t.refused = true
	t.flushParser()
	t.em.Text(p)
}

// flushParser delivers what the tag parser holds back and closes its span.
func (t *translator) flushParser() {
	if t.parser != nil {
		t.parser.Close()
		t.parser.Reset(t.em)
	}
}

// toolStart opens a function_call item's tool_use block.
func (t *translator) toolStart(itemID, callID, name []byte) {
	t.endItem()
	t.open, t.itemID, t.sawArgs = itemCall, string(itemID), false
	t.toolUsed = true
	t.em.ToolUseStart(toolUseID(callID), t.state.Original(name))
}

// toolArgs takes a fragment of the open call's arguments; false for a
// fragment of a call that is not open.
func (t *translator) toolArgs(itemID, p []byte) bool {
	if t.open != itemCall || (len(itemID) > 0 && t.itemID != "" && string(itemID) != t.itemID) {
		return false
	}
	if len(p) > 0 {
		t.sawArgs = true
		t.em.ToolInput(p)
	}
	return true
}

// toolDone ends the open call; arguments that came whole (no deltas) are
// its input.
func (t *translator) toolDone(args []byte) {
	if t.open == itemCall && !t.sawArgs && len(args) > 0 {
		t.em.ToolInput(args)
	}
	t.endItem()
}

// endItem closes the open item's block.
func (t *translator) endItem() {
	switch t.open {
	case itemReasoning:
		t.em.ThinkingEnd()
	case itemMessage:
		t.flushParser()
		t.em.CloseBlock()
	case itemCall:
		t.em.CloseBlock()
	}
	t.open, t.itemID = itemNone, ""
}

// finish ends the message. reason is the stop reason the response's status
// implies ("" for a completed response).
func (t *translator) finish(reason string) {
	t.endItem()
	t.done = true
	t.x.Usage = t.usage
	switch {
	case reason != "":
	case t.refused:
		reason = "refusal"
	case t.toolUsed:
		reason = "tool_use"
	default:
		reason = "end_turn"
	}
	t.em.Finish(reason, "", t.usage)
}

// incompleteReason maps incomplete_details.reason to a stop reason.
func incompleteReason(reason string) string {
	if reason == "content_filter" {
		return "refusal"
	}
	return "max_tokens" // max_output_tokens, and any reason added later
}
