package openai

import (
	"bytes"
	"encoding/json"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// completion is a non-streaming chat.completion body.
type completion struct {
	Choices []struct {
		Message struct {
			Content          json.RawMessage `json:"content"`
			ReasoningContent *string         `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ReasoningDetails json.RawMessage `json:"reasoning_details"`
			Refusal          *string         `json:"refusal"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string         `json:"finish_reason"`
		StopReason   json.RawMessage `json:"stop_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// Message converts a chat.completion into an Anthropic Message, splitting
// thinking the same way as the stream: tags in the content, the reasoning
// fields, tool calls with their arguments parsed.
func (tr *Translator) Message(body []byte) ([]byte, error) {
	x := tr.x
	var c completion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, malformed("body is not a chat.completion JSON object")
	}
	if e := bytes.TrimSpace(c.Error); len(e) > 0 && string(e) != "null" {
		return nil, streamError(e)
	}
	if len(c.Choices) == 0 {
		return nil, malformed("chat.completion without choices")
	}
	em := emit.NewCollector(x.Settings.Form, x.Settings.Signer)
	em.SetThinkingDisplay(x.ThinkingDisplay())
	em.MessageStart(x.MessageID, x.ClientModel, emit.Usage{})
	var t answerTranslator
	t.init(x, tr.state, em)

	ch := c.Choices[0]
	m := ch.Message
	details := bytes.TrimSpace(m.ReasoningDetails)
	switch {
	case len(details) > 0 && details[0] == '[' && string(details) != "[]":
		// OpenRouter's details carry the reasoning text with what must go
		// back; the plain fields repeat the text.
		_, _ = jsonparser.ArrayEach(details, func(v []byte, typ jsonparser.ValueType, _ int, err error) {
			if err == nil && typ == jsonparser.Object {
				t.detailDelta(v, unescapeString)
			}
		})
	case m.ReasoningContent != nil && *m.ReasoningContent != "":
		t.reasoning([]byte(*m.ReasoningContent))
	case len(m.Reasoning) > 0:
		var r string
		if json.Unmarshal(m.Reasoning, &r) == nil {
			t.reasoning([]byte(r))
		}
	}
	if err := messageContent(&t, m.Content); err != nil {
		return nil, err
	}
	if m.Refusal != nil {
		t.refusal([]byte(*m.Refusal))
	}
	for i, tc := range m.ToolCalls {
		args := tc.Function.Arguments
		var s string
		if json.Unmarshal(args, &s) == nil {
			args = []byte(s)
		}
		// The whole call at once: its block opens, takes the arguments and
		// closes when they are complete JSON (endAll closes it otherwise).
		t.toolDelta(int64(i), true, []byte(tc.ID), []byte(tc.Function.Name), args)
		if t.open >= 0 {
			t.closeTool()
		}
	}
	if ch.FinishReason != nil {
		t.setFinish([]byte(*ch.FinishReason))
	}
	var stop string
	if json.Unmarshal(ch.StopReason, &stop) == nil {
		t.matchStop([]byte(stop))
	}
	if u := bytes.TrimSpace(c.Usage); len(u) > 0 && u[0] == '{' {
		t.usage = parseUsage(u)
	}
	t.finish()
	if e := em.CollectError(); e != nil {
		return nil, e
	}
	return em.MessageJSON(), nil
}

// unescapeString returns a raw JSON string's value; one with a bad escape
// is taken as it stands.
func unescapeString(raw []byte) []byte {
	out, err := jsonbytes.AppendUnescaped(nil, raw)
	if err != nil {
		return raw
	}
	return out
}
