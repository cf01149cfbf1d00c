package converse

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Message converts a whole 2xx answer: a Converse response into an
// Anthropic Message, a CountTokens answer into {"input_tokens":N}. An
// event stream (a streaming answer to a client that did not ask for one)
// is collected into the Message the stream would have made.
func (t *Translator) Message(body []byte) ([]byte, error) {
	if t.x.CountTokens {
		return CountTokens(body)
	}
	x := t.x
	em := emit.NewCollector(x.Settings.Form, x.Settings.Signer)
	em.SetThinkingDisplay(x.ThinkingDisplay())
	if len(body) > 0 && body[0] <= 1 {
		s := t.NewStream(em)
		if err := s.Write(body); err != nil {
			return nil, err
		}
		if err := s.Close(); err != nil {
			return nil, err
		}
	} else if err := t.convertMessage(em, body); err != nil {
		return nil, err
	}
	if e := em.CollectError(); e != nil {
		return nil, e
	}
	return em.MessageJSON(), nil
}

// response is the Converse answer.
type response struct {
	Output *struct {
		Message *struct {
			Content []contentBlock `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason                    string          `json:"stopReason"`
	AdditionalModelResponseFields *responseFields `json:"additionalModelResponseFields"`
	Usage                         usage           `json:"usage"`
}

type contentBlock struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ReasoningContent *struct {
		ReasoningText *struct {
			Text      string `json:"text"`
			Signature string `json:"signature"`
		} `json:"reasoningText"`
		RedactedContent *string `json:"redactedContent"`
	} `json:"reasoningContent"`
}

// convertMessage feeds a Converse response's blocks to the translator.
func (t *Translator) convertMessage(em *emit.Emitter, body []byte) error {
	var r response
	if err := json.Unmarshal(body, &r); err != nil || r.Output == nil || r.Output.Message == nil {
		var aws struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &aws) == nil && (aws.Type != "" || aws.Message != "") {
			return awsstream.BodyError(body) // an AWS error document
		}
		return malformed("Converse answer without output.message: " + quote(body))
	}
	var tr answerTranslator
	tr.init(t.x, em)
	tr.start()
	for i, b := range r.Output.Message.Content {
		switch {
		case b.Text != nil:
			tr.text(i, []byte(*b.Text))
		case b.ToolUse != nil:
			tr.toolStart(i, b.ToolUse.ToolUseID, b.ToolUse.Name)
			in := bytes.TrimSpace(b.ToolUse.Input)
			if len(in) == 0 || string(in) == "null" {
				in = []byte("{}")
			}
			tr.toolInput(i, in)
		case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText != nil:
			rt := b.ReasoningContent.ReasoningText
			tr.reasoningText(i, []byte(rt.Text))
			if rt.Signature != "" {
				if err := tr.reasoningSignature(i, []byte(rt.Signature)); err != nil {
					return err
				}
			}
		case b.ReasoningContent != nil && b.ReasoningContent.RedactedContent != nil:
			if err := tr.redactedContent(i, []byte(*b.ReasoningContent.RedactedContent)); err != nil {
				return err
			}
		}
		tr.blockStop(i)
	}
	tr.usage = r.Usage.anthropic()
	tr.stop(r.StopReason, r.AdditionalModelResponseFields)
	tr.finish()
	return nil
}

// CountTokens converts CountTokens' answer, {"inputTokens":N}, into
// {"input_tokens":N}.
func CountTokens(body []byte) ([]byte, error) {
	if body = bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' {
		return nil, malformed("count-tokens answer is not a JSON object")
	}
	n, err := jsonparser.GetInt(body, "inputTokens")
	if err != nil || n < 0 {
		return nil, malformed("count-tokens answer without inputTokens")
	}
	return append(jsonbytes.AppendJSONInt([]byte(`{"input_tokens":`), n), '}'), nil
}

func malformed(msg string) *wire.Error {
	return wire.APIError(http.StatusBadGateway, "malformed upstream response: "+msg)
}
