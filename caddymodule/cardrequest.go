package caddymodule

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// applyCard holds a request to its model's card before any provider
// converts it, so that every provider sees the same checked request:
//
//   - max_tokens above the card's is lowered to it, and an enabled
//     thinking budget lowered below it (Anthropic requires budget_tokens <
//     max_tokens); the response's usage and stop_reason stay the upstream's;
//   - output_config.effort must be a level the card lists; max becomes the
//     highest level it lists;
//   - output_config.format needs structured_outputs;
//   - image blocks need input image, PDF documents input pdf.
//
// It returns the body the exchange works from: body itself when the
// request is unchanged, else a copy with the changed members, written into
// a buffer from newBody. The request's typed fields and Fields follow the
// copy. A model without a card, and every request when there are no
// cards, is passed as it is at no cost.
func (h *Handler) applyCard(req *wire.Request, body []byte, newBody func(int) []byte) ([]byte, *wire.Error) {
	if len(h.ModelInfo) == 0 {
		return body, nil
	}
	c := h.cardFor(req.Model)
	if c == nil {
		return body, nil
	}
	var edits []memberEdit
	if oc := req.Fields["output_config"]; len(oc) > 0 && oc[0] == '{' {
		newOC, e := c.checkOutputConfig(req.Model, oc)
		if e != nil {
			return nil, e
		}
		if newOC != nil {
			edits = append(edits, memberEdit{name: "output_config", value: newOC})
		}
	}
	if e := c.checkInput(req.Model, body); e != nil {
		return nil, e
	}
	maxTokens, budget := req.MaxTokens, req.Thinking.BudgetTokens
	if int64(req.MaxTokens) > c.MaxTokens {
		maxTokens = int(c.MaxTokens)
		edits = append(edits, memberEdit{name: "max_tokens", value: strconv.AppendInt(nil, c.MaxTokens, 10)})
		if t := req.Thinking; t.Present && t.Type == "enabled" && t.BudgetTokens >= maxTokens {
			thinking := spliceMembers(nil, req.Fields["thinking"], []memberEdit{
				{name: "budget_tokens", value: strconv.AppendInt(nil, int64(maxTokens-1), 10)},
			})
			if thinking != nil {
				budget = maxTokens - 1
				edits = append(edits, memberEdit{name: "thinking", value: thinking})
			}
		}
	}
	if len(edits) == 0 {
		return body, nil
	}
	out := spliceFields(req, body, edits, newBody)
	if out == nil {
		// Not an object the walk can read: ParseRequest accepted it, so
		// this does not happen; the request goes as it came.
		return body, nil
	}
	req.MaxTokens, req.Thinking.BudgetTokens = maxTokens, budget
	return out, nil
}

// spliceFields writes body with each edit's member replaced into a buffer
// from newBody, and points the request's Fields at the new values. The
// members are found where Fields holds them, sub-slices of body, so that
// the body is copied once and not walked; a member Fields does not hold
// under its own name (a name encoding/json folded) is found by a walk of
// the body's top level.
func spliceFields(req *wire.Request, body []byte, edits []memberEdit, newBody func(int) []byte) []byte {
	type span struct {
		from, to int
		edit     memberEdit
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		at, ok := offsetIn(body, req.Fields[e.name])
		if !ok {
			return spliceWalked(req, body, edits, newBody)
		}
		spans = append(spans, span{at, at + len(req.Fields[e.name]), e})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	out := newBody(len(body) + 64)
	from := 0
	for _, s := range spans {
		out = append(out, body[from:s.from]...)
		out = append(out, s.edit.value...)
		from = s.to
	}
	out = append(out, body[from:]...)
	// Fields follows out once it has stopped growing: each value where its
	// member's moved to.
	shift := 0
	for _, s := range spans {
		at := s.from + shift
		req.Fields[s.edit.name] = out[at : at+len(s.edit.value) : at+len(s.edit.value)]
		shift += len(s.edit.value) - (s.to - s.from)
	}
	return out
}

// spliceWalked is spliceFields for a request whose members are found by
// a walk: every member whose name encoding/json folds to an edit's is
// replaced, and Fields follows.
func spliceWalked(req *wire.Request, body []byte, edits []memberEdit, newBody func(int) []byte) []byte {
	out := spliceMembers(newBody(len(body)+64), body, edits)
	if out == nil {
		return nil
	}
	_, _ = jsonbytes.ScanObjectAt(out, 0, func(key []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(out, at)
		if err != nil {
			return 0, err
		}
		for _, e := range edits {
			if _, ok := req.Fields[string(key)]; ok && strings.EqualFold(string(key), e.name) {
				req.Fields[string(key)] = out[at:end:end]
			}
		}
		return end, nil
	})
	return out
}

// offsetIn returns where v starts in body, when v is a sub-slice of it,
// as the values of Request.Fields are (ParseRequest's and ScanRequest's
// guarantee, which providers' tests hold them to).
func offsetIn(body, v []byte) (int, bool) {
	if len(v) == 0 || len(body) == 0 {
		return 0, false
	}
	at := int(uintptr(unsafe.Pointer(&v[0])) - uintptr(unsafe.Pointer(&body[0])))
	if at < 0 || at > len(body)-len(v) || &body[at] != &v[0] {
		return 0, false
	}
	return at, true
}

// checkOutputConfig checks output_config (an object) against the card; a
// changed output_config is returned when effort max became the card's
// highest level, nil when it stays as sent.
func (c *ModelCard) checkOutputConfig(model string, raw []byte) ([]byte, *wire.Error) {
	oc, err := providers.ParseOutputConfig(raw)
	if err != nil {
		return nil, wire.AsError(err)
	}
	if oc.Schema != nil && !c.StructuredOutputs {
		return nil, wire.InvalidRequest(fmt.Sprintf(
			"output_config.format: model %s does not support structured outputs on this gateway (its model card does not list structured_outputs)", model))
	}
	switch level := oc.Effort; {
	case level == "" || has(c.Effort, level):
		return nil, nil
	case len(c.Effort) == 0:
		return nil, wire.InvalidRequest(fmt.Sprintf(
			"output_config.effort: model %s does not support effort on this gateway (its model card lists no effort levels)", model))
	case level == providers.EffortMax:
		top := c.highestEffort()
		return spliceMembers(nil, raw, []memberEdit{{name: "effort", value: strconv.AppendQuote(nil, top)}}), nil
	default:
		return nil, wire.InvalidRequest(fmt.Sprintf(
			"output_config.effort: %q is not supported by model %s; allowed levels: %s", level, model, strings.Join(c.Effort, ", ")))
	}
}

// checkInput refuses an image block when the card's input lacks image,
// and a PDF document (a base64 application/pdf or a URL source) when it
// lacks pdf, in the messages and in their tool results' content. The
// messages are read from the client's bytes only when they hold what could
// be such a block.
func (c *ModelCard) checkInput(model string, body []byte) *wire.Error {
	images, pdfs := has(c.Input, "image"), has(c.Input, "pdf")
	if images && pdfs {
		return nil
	}
	// The searches start at a letter rather than at the quote, which JSON
	// is full of, so that they skip along the body rather than stop often.
	// A type spelt with escapes (\u0069mage) has no such letters: a body
	// with a backslash-u is read in full.
	if !bytes.Contains(body, []byte(`\u`)) && (images || !bytes.Contains(body, []byte(`mage"`))) &&
		(pdfs || !bytes.Contains(body, []byte(`cument"`))) {
		return nil
	}
	h, err := wire.NewHistoryReader(body)
	if err != nil {
		return nil // ParseRequest accepted the body; nothing to refuse here
	}
	var refused *wire.Error
	var outer, inner wire.HistoryBlock
	check := func(path string, b *wire.HistoryBlock) {
		switch {
		case b.Type.Is("image") && !images:
			refused = wire.InvalidRequest(fmt.Sprintf(
				"%s: model %s does not take image input on this gateway (its model card's input lists %s)",
				path, model, inputList(c.Input)))
		case b.Type.Is("document") && !pdfs &&
			(b.Source.Type.Is("url") || b.Source.Type.Is("base64") && b.Source.MediaType.Is("application/pdf")):
			refused = wire.InvalidRequest(fmt.Sprintf(
				"%s: model %s does not take PDF input on this gateway (its model card's input lists %s)",
				path, model, inputList(c.Input)))
		}
	}
	errRefused := errors.New("refused")
	_ = h.EachMessage(func(i int, m *wire.HistoryMessage) error {
		path := "messages." + strconv.Itoa(i) + ".content"
		return h.EachBlock(m.Content, &outer, func(j int, b *wire.HistoryBlock) error {
			at := path + "." + strconv.Itoa(j)
			if check(at, b); refused != nil {
				return errRefused
			}
			if !b.Type.Is("tool_result") || len(b.ContentRaw) == 0 || b.ContentRaw[0] != '[' {
				return nil
			}
			return h.EachBlock(b.ContentRaw, &inner, func(k int, nb *wire.HistoryBlock) error {
				if check(at+".content."+strconv.Itoa(k), nb); refused != nil {
					return errRefused
				}
				return nil
			})
		})
	})
	return refused
}

// inputList says what a card's input lists, for an error.
func inputList(input []string) string {
	if len(input) == 0 {
		return "text only"
	}
	return strings.Join(input, ", ")
}

// memberEdit replaces the value of an object's members named name (as
// encoding/json matches names: case folded, so that the member the typed
// decode read is the one replaced) with value, raw JSON.
type memberEdit struct {
	name  string
	value []byte
}

// spliceMembers appends to dst the JSON object obj with edits applied,
// every other byte as it was; nil when obj is not an object it can read.
// A member is located by one walk of obj that steps over each value.
func spliceMembers(dst, obj []byte, edits []memberEdit) []byte {
	type span struct {
		from, to int
		value    []byte
	}
	var spans []span
	_, err := jsonbytes.ScanObjectAt(obj, 0, func(key []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(obj, at)
		if err != nil {
			return 0, err
		}
		for _, e := range edits {
			if strings.EqualFold(string(key), e.name) {
				spans = append(spans, span{at, end, e.value})
			}
		}
		return end, nil
	})
	if err != nil {
		return nil
	}
	from := 0
	for _, s := range spans {
		dst = append(dst, obj[from:s.from]...)
		dst = append(dst, s.value...)
		from = s.to
	}
	return append(dst, obj[from:]...)
}
