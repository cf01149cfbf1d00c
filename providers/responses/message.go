package responses

import (
	"bytes"
	"encoding/json"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// convertMessage converts a non-streaming response object into an
// Anthropic Message with the blocks the stream would have produced: its
// output items are fed to the same translator.
func (tr *Translator) convertMessage(body []byte) ([]byte, error) {
	x := tr.x
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, malformed("body is not a response JSON object")
	}
	if r.Status == "failed" || r.Error.Message != "" || r.Error.Code != "" {
		return nil, failure(r.Error.Code, r.Error.Message)
	}
	em := emit.NewCollector(x.Settings.Form, x.Settings.Signer)
	em.SetThinkingDisplay(x.ThinkingDisplay())
	em.MessageStart(x.MessageID, x.ClientModel, emit.Usage{})
	var t answerTranslator
	t.init(x, tr.state, em)
	for i, it := range r.Output {
		if err := t.added(it, i); err != nil {
			return nil, err
		}
		if err := t.itemDone(it, i); err != nil {
			return nil, err
		}
	}
	t.usage = r.Usage.anthropic()
	reason := ""
	if r.Status == "incomplete" {
		reason = incompleteReason(r.IncompleteDetails.Reason)
	}
	if err := t.finish(reason); err != nil {
		return nil, err
	}
	if e := em.CollectError(); e != nil {
		return nil, e
	}
	return em.MessageJSON(), nil
}

// CountTokens converts the input_tokens endpoint's answer,
// {"object":"response.input_tokens","input_tokens":N}, into {"input_tokens":N}.
func CountTokens(body []byte) ([]byte, error) {
	if body = bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' {
		return nil, malformed("input_tokens answer is not a JSON object")
	}
	n, err := jsonparser.GetInt(body, "input_tokens")
	if err != nil || n < 0 {
		return nil, malformed("input_tokens answer without input_tokens")
	}
	return append(jsonbytes.AppendJSONInt([]byte(`{"input_tokens":`), n), '}'), nil
}
