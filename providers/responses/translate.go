package responses

import (
	"fmt"
	"net/http"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// answerTranslator turns the output items of a response — reasoning, messages,
// function calls — into emitter calls. The stream and the non-streaming
// converter both drive it, so the two modes cannot disagree.
//
// Items are known by their identity (item_id, else output_index), not by
// the order their events arrive in: OpenAI sends one item after another,
// but some servers that speak the API open a message while a reasoning
// item is still open and send the reasoning's done events last. Anthropic's
// grammar has one open block at a time, so the rules of docs/thinking.md
// ("Items that interleave") decide:
//
//   - text and reasoning stream at once; content of another item closes
//     the block of the item that had it (a thinking block signed with what
//     its item carried so far), and later content of that item opens a new
//     block of its kind;
//   - a function call's arguments are never cut: while a call streams,
//     events of other items are held (at most providers.MaxHeld bytes)
//     and replayed in their order when the call ends;
//   - an item's done event adds only what the deltas did not carry: the
//     text of an item that had no deltas, the signature of the block still
//     open; text already sent is never sent again.
type answerTranslator struct {
	x      *providers.Exchange
	em     *emit.Emitter
	state  *State
	parser *thinkparse.Parser // nil when split_tags is off

	items []*item
	// cur is the item whose block is open (or opens with its next text).
	cur *item
	// held are events of other items that came while a call streamed.
	held providers.HeldEvents[*item]

	toolUsed, refused bool
	usage             emit.Usage
	done              bool
}

// item is one output item, as far as the translation needs it.
type item struct {
	id    string
	index int // output_index, -1 when not known
	kind  itemKind
	ended bool // its output_item.done arrived
	shown bool // some of its content went out
	// thought counts the thinking bytes of the reasoning item's open
	// block; sep is set when a summary part began after some of them.
	thought   int
	sep       bool
	encrypted []byte // a reasoning item's encrypted_content, as far as known
	callID    string
	name      string
}

type itemKind uint8

const (
	itemReasoning itemKind = iota + 1
	itemMessage
	itemCall
)

// kindOf returns the kind of an output item of type typ, 0 for the items
// of hosted tools.
func kindOf(typ string) itemKind {
	switch typ {
	case "reasoning":
		return itemReasoning
	case "message":
		return itemMessage
	case "function_call":
		return itemCall
	}
	return 0
}

// MaxItems bounds the output items one response may announce: each is
// remembered until the response ends, so that a late done event finds it.
const MaxItems = 4096

var (
	errTooManyItems = malformed(fmt.Sprintf("more than %d output items in one response", MaxItems))
	errHeld         = wire.APIError(http.StatusBadGateway,
		fmt.Sprintf("malformed upstream response: more than %d bytes of other items arrived while a function call was open", providers.MaxHeld))
	errCallNotOpen = malformed("function call arguments for an item that is not open")
)

// summarySeparator goes between two summary parts of one reasoning item,
// as OpenAI separates them when it shows a summary.
const summarySeparator = "\n\n"

func (t *answerTranslator) init(x *providers.Exchange, st *State, em *emit.Emitter) {
	t.x, t.em, t.state = x, em, st
	if x.Settings.SplitTags {
		t.parser = thinkparse.New(x.Settings.Parse, em)
	}
}

// find returns the item with id (or, without id, at index), nil when none
// is known.
func (t *answerTranslator) find(id []byte, index int) *item {
	if len(id) > 0 {
		for _, it := range t.items {
			if it.id == string(id) {
				return it
			}
		}
		return nil
	}
	if index >= 0 {
		for _, it := range t.items {
			if it.index == index {
				return it
			}
		}
		return nil
	}
	// Neither: a compatible server's event of the item open now.
	if t.cur != nil {
		return t.cur
	}
	if n := len(t.items); n > 0 && !t.items[n-1].ended {
		return t.items[n-1]
	}
	return nil
}

// lookup returns the item find returns, or a new one of kind: a server
// that sends deltas without output_item.added.
func (t *answerTranslator) lookup(id []byte, index int, kind itemKind) (*item, error) {
	if it := t.find(id, index); it != nil && it.kind == kind {
		return it, nil
	}
	return t.add(id, index, kind)
}

func (t *answerTranslator) add(id []byte, index int, kind itemKind) (*item, error) {
	if len(t.items) >= MaxItems {
		return nil, errTooManyItems
	}
	it := &item{id: string(id), index: index, kind: kind}
	t.items = append(t.items, it)
	return it, nil
}

// added registers an item announced by output_item.added. Its block opens
// with its first content.
func (t *answerTranslator) added(s streamItem, index int) error {
	kind := kindOf(s.Type)
	if kind == 0 {
		return nil // hosted tools' items carry nothing the client gets
	}
	if t.find([]byte(s.ID), index) != nil && (s.ID != "" || index >= 0) {
		return nil // announced twice
	}
	it, err := t.add([]byte(s.ID), index, kind)
	if err != nil {
		return err
	}
	it.encrypted = []byte(s.EncryptedContent)
	it.callID, it.name = s.CallID, s.Name
	return nil
}

// deliver applies an event of it, or holds it while another item's call
// streams (its arguments must not be cut by another block).
func (t *answerTranslator) deliver(it *item, size int, apply func() error) error {
	if !t.streaming(it) {
		return apply()
	}
	if !t.held.Hold(it, size, apply) {
		return errHeld
	}
	return nil
}

// streaming reports whether a function call other than it streams its
// arguments.
func (t *answerTranslator) streaming(it *item) bool {
	return t.cur != nil && t.cur.kind == itemCall && t.cur != it
}

// release replays the held events that no streaming call holds back. The
// stream calls it after each event (never from an event being applied).
func (t *answerTranslator) release() error {
	return t.held.Release(t.streaming, func() *item { return t.cur })
}

// enter makes it the item whose block is open, closing another's.
func (t *answerTranslator) enter(it *item) {
	if t.cur == it {
		return
	}
	t.closeCur()
	t.cur = it
	if it.kind == itemReasoning {
		it.thought, it.sep = 0, false
		t.em.ThinkingStart(nil)
	}
}

// closeCur closes the open item's block. A reasoning block is signed with
// what its item carried so far: its id, and encrypted_content if
// output_item.added had it.
func (t *answerTranslator) closeCur() { t.closeBlock(true) }

// closeBlock is closeCur; upstream false leaves the upstream's item out of
// a reasoning block's signature: the response ended inside the item, which
// the upstream never completed, so the block is the gateway's alone.
func (t *answerTranslator) closeBlock(upstream bool) {
	it := t.cur
	if it == nil {
		return
	}
	t.cur = nil
	switch it.kind {
	case itemReasoning:
		if upstream && it.thought > 0 {
			t.em.Signature(emit.OriginResponses, joinForeign([]byte(it.id), it.encrypted))
		}
		t.em.ThinkingEnd()
	case itemMessage:
		t.flushParser()
		t.em.CloseBlock()
	case itemCall:
		t.em.CloseBlock()
	}
}

// summaryPart marks the start of a summary part of a reasoning item.
func (t *answerTranslator) summaryPart(id []byte, index int) error {
	it, err := t.lookup(id, index, itemReasoning)
	if err != nil {
		return err
	}
	return t.deliver(it, 0, func() error {
		if t.cur == it && it.thought > 0 {
			it.sep = true
		}
		return nil
	})
}

// reasoningDelta takes summary (or reasoning) text of a reasoning item.
func (t *answerTranslator) reasoningDelta(id []byte, index int, p []byte) error {
	it, err := t.lookup(id, index, itemReasoning)
	if err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	p = t.keep(it, p)
	return t.deliver(it, len(p), func() error {
		t.reasoningText(it, p)
		return nil
	})
}

func (t *answerTranslator) reasoningText(it *item, p []byte) {
	t.enter(it)
	it.shown = true
	if it.sep {
		t.em.Thinking([]byte(summarySeparator))
		it.thought += len(summarySeparator)
		it.sep = false
	}
	t.em.Thinking(p)
	it.thought += len(p)
}

// keep returns p itself when it is applied now, a copy when it may be held
// (the decoder reuses its buffers).
func (t *answerTranslator) keep(it *item, p []byte) []byte {
	if !t.streaming(it) {
		return p
	}
	return append([]byte(nil), p...)
}

// textDelta takes answer text of a message item, which may hold thinking
// tags; refusal is a refusal's text, and makes the stop reason refusal.
func (t *answerTranslator) textDelta(id []byte, index int, p []byte, refusal bool) error {
	it, err := t.lookup(id, index, itemMessage)
	if err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	p = t.keep(it, p)
	return t.deliver(it, len(p), func() error {
		t.text(it, p, refusal)
		return nil
	})
}

func (t *answerTranslator) text(it *item, p []byte, refusal bool) {
	t.enter(it)
	it.shown = true
	if refusal {
		t.refused = true
		t.flushParser()
		t.em.Text(p)
		return
	}
	if t.parser != nil {
		t.parser.Write(p)
	} else {
		t.em.Text(p)
	}
}

// argsDelta takes a fragment of a function call's arguments. A call that
// was never announced, or has ended, is a malformed stream.
func (t *answerTranslator) argsDelta(id []byte, index int, p []byte) error {
	it := t.find(id, index)
	if it == nil || it.kind != itemCall || it.ended {
		return errCallNotOpen
	}
	if len(p) == 0 {
		return nil
	}
	p = t.keep(it, p)
	return t.deliver(it, len(p), func() error {
		t.startCall(it)
		it.shown = true
		t.em.ToolInput(p)
		return nil
	})
}

// startCall opens the call's tool_use block.
func (t *answerTranslator) startCall(it *item) {
	if t.cur == it {
		return
	}
	t.closeCur()
	t.cur = it
	t.toolUsed = true
	t.em.ToolUseStart(toolUseID([]byte(it.callID)), t.state.Original([]byte(it.name)))
}

// itemDone ends an item with what output_item.done carries.
func (t *answerTranslator) itemDone(s streamItem, index int) error {
	kind := kindOf(s.Type)
	if kind == 0 {
		return nil
	}
	it := t.find([]byte(s.ID), index)
	if it == nil || it.kind != kind {
		// An item whose added event never came: it arrives whole.
		var err error
		if it, err = t.add([]byte(s.ID), index, kind); err != nil {
			return err
		}
		it.callID, it.name = s.CallID, s.Name
	}
	if it.ended {
		return nil // a repeated done adds nothing
	}
	it.ended = true
	var size int
	switch kind {
	case itemReasoning:
		for _, p := range s.Summary {
			size += len(p.Text)
		}
	case itemMessage:
		for _, p := range s.Content {
			size += len(p.Text) + len(p.Refusal)
		}
	case itemCall:
		size = len(s.Arguments)
	}
	return t.deliver(it, size+len(s.EncryptedContent), func() error {
		switch kind {
		case itemReasoning:
			t.reasoningDone(it, []byte(s.EncryptedContent), summaryTexts(s))
		case itemMessage:
			t.messageDone(it, s.Content)
		case itemCall:
			t.callDone(it, s)
		}
		return nil
	})
}

// reasoningDone ends a reasoning item. Its block, when still open, is
// signed with the item's id and encrypted_content (origin Responses). An
// item that showed no text (no deltas) shows its summary parts now; one
// with no summary text but encrypted_content becomes a redacted_thinking
// block holding the signature alone: the reasoning is kept across tool
// calls although there is nothing to show. An item whose block another
// item closed earlier adds nothing: its text went out, and its signature
// with it.
func (t *answerTranslator) reasoningDone(it *item, encrypted []byte, summaries [][]byte) {
	if len(encrypted) > 0 {
		it.encrypted = encrypted
	}
	if t.cur != it && it.shown {
		return
	}
	if !it.shown {
		for i, s := range summaries {
			if len(s) == 0 {
				continue
			}
			t.enter(it)
			if i > 0 && it.thought > 0 {
				it.sep = true
			}
			t.reasoningText(it, s)
		}
	}
	if t.cur == it {
		t.closeCur()
		if it.shown {
			return
		}
	}
	signer := t.x.Settings.Signer
	if len(it.encrypted) == 0 || signer == nil || t.x.Settings.Form != emit.FormThinking {
		return
	}
	t.closeCur()
	it.shown = true
	foreign := joinForeign([]byte(it.id), it.encrypted)
	block := append([]byte(`{"type":"redacted_thinking","data":`), jsonbytes.AppendString(nil, signer.Sign(emit.OriginResponses, string(foreign), ""))...)
	_ = t.em.RawBlockStart(append(block, '}'))
	t.em.CloseBlock()
}

// messageDone ends a message item; one that showed no text (no deltas)
// shows its content parts now.
func (t *answerTranslator) messageDone(it *item, content []contentPart) {
	if !it.shown {
		for _, p := range content {
			switch {
			case p.Type == "output_text" && p.Text != "":
				t.text(it, []byte(p.Text), false)
			case p.Type == "refusal" && p.Refusal != "":
				t.text(it, []byte(p.Refusal), true)
			}
		}
	}
	if t.cur == it {
		t.closeCur()
	}
}

// callDone ends a function call; arguments that came whole (no deltas)
// are its input.
func (t *answerTranslator) callDone(it *item, s streamItem) {
	if !it.shown {
		t.startCall(it)
		it.shown = true
		if s.Arguments != "" {
			t.em.ToolInput([]byte(s.Arguments))
		}
	}
	if t.cur == it {
		t.closeCur()
	}
}

// end closes the open block and delivers what is held: the response ended
// (completed, failed, or cut short) with a call still open.
func (t *answerTranslator) end() error {
	if t.cur != nil && t.cur.kind == itemCall {
		t.closeCur()
	}
	err := t.release()
	t.closeBlock(t.cur != nil && t.cur.ended)
	return err
}

// flushParser delivers what the tag parser holds back and closes its span.
func (t *answerTranslator) flushParser() {
	if t.parser != nil {
		t.parser.Close()
		t.parser.Reset(t.em)
	}
}

// finish ends the message. reason is the stop reason the response's status
// implies ("" for a completed response).
func (t *answerTranslator) finish(reason string) error {
	err := t.end()
	t.done = true
	t.x.Usage = t.usage
	if err != nil {
		return err
	}
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
	return nil
}

// incompleteReason maps incomplete_details.reason to a stop reason.
func incompleteReason(reason string) string {
	if reason == "content_filter" {
		return "refusal"
	}
	return "max_tokens" // max_output_tokens, and any reason added later
}
