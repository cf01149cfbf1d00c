package openai

import (
	"bytes"
	"encoding/json"

	"github.com/buger/jsonparser"
)

// Mistral's reasoning models (Magistral) send content as an array of
// chunks, in deltas and in whole messages alike:
//
//	[{"type":"thinking","thinking":[{"type":"text","text":"…"}]},
//	 {"type":"text","text":"…"}]
//
// A thinking chunk is a thinking block (consecutive ones continue it), a
// text chunk is content, split for tags like any content. The shape is
// unambiguous, so it is always accepted; other chunk types (references,
// images) carry nothing the client's message can hold and are skipped.

// contentChunk takes one element of a delta's content array.
func (s *StreamTranslator) contentChunk(v []byte, typ jsonparser.ValueType, _ int, err error) {
	if err != nil || typ != jsonparser.Object {
		return
	}
	kind, _ := rawString(v, "type")
	switch string(kind) {
	case "text":
		if text, ok := rawString(v, "text"); ok {
			s.t.content(s.unescape(text))
		}
	case "thinking":
		th, ttyp, _, err := jsonparser.Get(v, "thinking")
		switch {
		case err != nil:
		case ttyp == jsonparser.String:
			s.t.reasoning(s.unescape(th))
		case ttyp == jsonparser.Array:
			_, _ = jsonparser.ArrayEach(th, s.onThink)
		}
	}
}

// thinkingChunk takes one element of a thinking chunk's array.
func (s *StreamTranslator) thinkingChunk(v []byte, typ jsonparser.ValueType, _ int, err error) {
	if err != nil || typ != jsonparser.Object {
		return
	}
	if kind, _ := rawString(v, "type"); string(kind) != "text" {
		return
	}
	if text, ok := rawString(v, "text"); ok {
		s.t.reasoning(s.unescape(text))
	}
}

// messagePart is one element of a whole message's content array: an
// OpenAI text part, or a Mistral text or thinking chunk.
type messagePart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// messageContent feeds a whole message's content to t, in order: a string,
// null, or an array of parts and chunks.
func messageContent(t *answerTranslator, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t.content([]byte(s))
		return nil
	}
	var parts []messagePart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return malformed("message content is neither a string nor an array of parts")
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			t.content([]byte(p.Text))
		case "thinking":
			var text string
			if json.Unmarshal(p.Thinking, &text) == nil {
				t.reasoning([]byte(text))
				continue
			}
			var inner []messagePart
			_ = json.Unmarshal(p.Thinking, &inner)
			for _, in := range inner {
				if in.Type == "text" {
					t.reasoning([]byte(in.Text))
				}
			}
		}
	}
	return nil
}
