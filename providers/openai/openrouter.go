package openai

import (
	"encoding/json"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// openRouterReasoning is OpenRouter's reasoning request object.
type openRouterReasoning struct {
	MaxTokens int    `json:"max_tokens,omitempty"`
	Effort    string `json:"effort,omitempty"`
	Exclude   bool   `json:"exclude,omitempty"`
}

// openRouterRequest maps the request's thinking to OpenRouter's reasoning
// object: a budget becomes max_tokens (OpenRouter turns it into an effort
// for models that take one), thinking without a budget an effort, display
// "omitted" exclude. Thinking off sends nothing: the model's own default.
func openRouterRequest(x *providers.Exchange, efforts []providers.EffortStep) *openRouterReasoning {
	if !x.Thinking {
		return nil
	}
	r := &openRouterReasoning{Exclude: x.Request.Thinking.Display == "omitted"}
	if b := x.ThinkingBudget(); b > 0 {
		r.MaxTokens = b
	} else {
		r.Effort = providers.ReasoningEffort(0, true, efforts)
	}
	return r
}

// Kinds of OpenRouter reasoning detail.
const (
	detailText      = "reasoning.text"
	detailSummary   = "reasoning.summary"
	detailEncrypted = "reasoning.encrypted"
)

// openRouterDetail is one entry of OpenRouter's reasoning_details. As the
// foreign part of a block's signature it is kept without its text or
// summary (the block's thinking is that text); it goes back to OpenRouter
// with them restored. Fields OpenRouter may add are not kept.
type openRouterDetail struct {
	Type      string  `json:"type"`
	Text      *string `json:"text,omitempty"`
	Summary   *string `json:"summary,omitempty"`
	Data      string  `json:"data,omitempty"`
	Signature *string `json:"signature,omitempty"`
	ID        string  `json:"id,omitempty"`
	Format    string  `json:"format,omitempty"`
	Index     *int64  `json:"index,omitempty"`
}

// detailState is the detail the open reasoning block comes from: in a
// stream one detail arrives in pieces sharing its index and type, its text
// spread over them and its signature usually in the last.
type detailState struct {
	open bool
	d    openRouterDetail
}

// detailDelta takes one element of reasoning_details (a delta's or a whole
// message's). A reasoning.text or reasoning.summary detail is a thinking
// block whose signature wraps the detail; a reasoning.encrypted one a
// redacted_thinking block wrapping it. Other types are skipped.
func (t *answerTranslator) detailDelta(v []byte, unescape func([]byte) []byte) {
	typ, _ := jsonparser.GetString(v, "type")
	var index *int64
	if n, err := jsonparser.GetInt(v, "index"); err == nil {
		index = &n
	}
	id, _ := jsonparser.GetString(v, "id")
	format, _ := jsonparser.GetString(v, "format")
	switch typ {
	case detailEncrypted:
		data, _ := jsonparser.GetString(v, "data")
		if data == "" {
			return
		}
		t.endDetail()
		foreign, _ := json.Marshal(openRouterDetail{Type: typ, Data: data, ID: id, Format: format, Index: index})
		t.redacted(foreign)
		return
	case detailText, detailSummary:
	default:
		return
	}
	cur := &t.detail
	if cur.open && (cur.d.Type != typ || !sameIndex(cur.d.Index, index) || (id != "" && cur.d.ID != "" && id != cur.d.ID)) {
		t.endDetail()
	}
	changed := !cur.open
	if !cur.open {
		cur.open = true
		cur.d = openRouterDetail{Type: typ, Index: index}
	}
	if id != "" && cur.d.ID != id {
		cur.d.ID, changed = id, true
	}
	if format != "" && cur.d.Format != format {
		cur.d.Format, changed = format, true
	}
	if sig, vt, _, err := jsonparser.Get(v, "signature"); err == nil && vt == jsonparser.String && len(sig) > 0 {
		s := string(unescape(sig))
		cur.d.Signature, changed = &s, true
	}
	if changed {
		foreign, _ := json.Marshal(cur.d)
		t.setDetailSig(foreign)
	}
	key := "text"
	if typ == detailSummary {
		key = "summary"
	}
	if text, vt, _, err := jsonparser.Get(v, key); err == nil && vt == jsonparser.String {
		t.reasoning(unescape(text))
	}
}

func sameIndex(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// endDetail ends the detail under way: its reasoning block closes, so the
// next detail is a block of its own.
func (t *answerTranslator) endDetail() {
	if !t.detail.open {
		return
	}
	t.detail.open = false
	if t.open >= 0 {
		t.enqueue(itemDetailBreak, -1, nil)
		return
	}
	t.emitDetailBreak()
}

func (t *answerTranslator) emitDetailBreak() {
	if t.src == srcReasoning {
		t.em.ThinkingEnd()
		t.src = srcNone
	}
	t.detailSig = t.detailSig[:0]
}

// setDetailSig sets the foreign part of the reasoning block's signature.
func (t *answerTranslator) setDetailSig(foreign []byte) {
	if t.open >= 0 {
		t.enqueue(itemDetailSig, -1, foreign)
		return
	}
	t.emitDetailSig(foreign)
}

func (t *answerTranslator) emitDetailSig(foreign []byte) {
	t.detailSig = append(t.detailSig[:0], foreign...)
	if t.src == srcReasoning {
		t.em.Signature(emit.OriginOpenRouter, t.detailSig)
	}
}

// redacted emits a redacted_thinking block whose data wraps an encrypted
// detail. The text form has no such block: there it is dropped.
func (t *answerTranslator) redacted(foreign []byte) {
	if t.open >= 0 {
		t.enqueue(itemRedacted, -1, foreign)
		return
	}
	t.emitRedacted(foreign)
}

func (t *answerTranslator) emitRedacted(foreign []byte) {
	t.endContent()
	if t.src == srcReasoning {
		t.em.ThinkingEnd()
	}
	t.src = srcNone
	if t.x.Settings.Form == emit.FormText {
		return
	}
	data := string(foreign)
	if s := t.x.Settings.Signer; s != nil {
		data = s.Sign(emit.OriginOpenRouter, data, "")
	}
	block := append([]byte(`{"type":"redacted_thinking","data":`), jsonbytes.AppendString(nil, data)...)
	block = append(block, '}')
	if err := t.em.RawBlockStart(block); err == nil {
		t.em.CloseBlock()
	}
}

// openRouterHistory returns what a history block the gateway made from an
// OpenRouter detail goes back as: that detail, its text restored. ok is
// false for any other block, which the other history rules handle.
func (c *converter) openRouterHistory(b wire.Block) (d openRouterDetail, ok bool) {
	s := c.x.Settings
	var foreign string
	switch b.Type {
	case "thinking":
		var origin emit.Origin
		if origin, foreign, ok = s.ThinkingOrigin(b); !ok || origin != emit.OriginOpenRouter {
			return d, false
		}
	case "redacted_thinking":
		var origin emit.Origin
		if origin, foreign, ok = s.Signer.Open(b.Data, ""); !ok || origin != emit.OriginOpenRouter {
			return d, false
		}
	default:
		return d, false
	}
	if json.Unmarshal([]byte(foreign), &d) != nil {
		return d, false
	}
	switch {
	case b.Type == "redacted_thinking" && d.Type == detailEncrypted:
	case b.Type == "thinking" && d.Type == detailText:
		text := b.Thinking
		d.Text = &text
	case b.Type == "thinking" && d.Type == detailSummary:
		text := b.Thinking
		d.Summary = &text
	default:
		return d, false
	}
	return d, true
}
