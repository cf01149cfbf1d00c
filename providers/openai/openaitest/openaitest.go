// Package openaitest builds Chat Completions event streams the way real
// OpenAI-compatible servers write them, for tests of the openai provider.
package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Chunks builds a stream of chat.completion.chunk events. Every chunk has the
// fields OpenAI sends with stream_options.include_usage, "usage":null among them.
type Chunks struct {
	buf   bytes.Buffer
	ID    string
	Model string
}

// New returns a builder whose first chunk is OpenAI's opening one (role
// assistant, empty content).
func New() *Chunks {
	c := &Chunks{ID: "chatcmpl-AbC123", Model: "gpt-4o-2024-08-06"}
	return c.Delta(`{"role":"assistant","content":"","refusal":null}`)
}

// Delta adds a chunk whose choice carries delta (a JSON object).
func (c *Chunks) Delta(delta string) *Chunks {
	return c.Data(fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":1730000000,"model":%q,"system_fingerprint":"fp_50cad350e4","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":null}],"usage":null}`,
		c.ID, c.Model, delta))
}

// Data adds an event with a raw data payload.
func (c *Chunks) Data(data string) *Chunks {
	c.buf.WriteString("data: ")
	c.buf.WriteString(data)
	c.buf.WriteString("\n\n")
	return c
}

// Content adds content deltas of at most runes runes each (0: one delta).
func (c *Chunks) Content(s string, runes int) *Chunks { return c.pieces("content", s, runes) }

// ReasoningContent adds DeepSeek-style reasoning_content deltas.
func (c *Chunks) ReasoningContent(s string, runes int) *Chunks {
	return c.pieces("reasoning_content", s, runes)
}

// Reasoning adds vLLM/OpenRouter-style reasoning deltas.
func (c *Chunks) Reasoning(s string, runes int) *Chunks { return c.pieces("reasoning", s, runes) }

func (c *Chunks) pieces(field, s string, runes int) *Chunks {
	r := []rune(s)
	if runes <= 0 {
		runes = len(r)
	}
	for i := 0; i < len(r); i += runes {
		c.Delta(fmt.Sprintf(`{%q:%s}`, field, quote(string(r[i:min(i+runes, len(r))]))))
	}
	return c
}

// ToolStart adds a call's first fragment: index, id, type, name, empty arguments.
func (c *Chunks) ToolStart(index int, id, name string) *Chunks {
	return c.Delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, index, id, name))
}

// ToolArgs adds an arguments fragment of call index.
func (c *Chunks) ToolArgs(index int, args string) *Chunks {
	return c.Delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, index, quote(args)))
}

// Finish adds the chunk carrying finish_reason.
func (c *Chunks) Finish(reason string) *Chunks {
	return c.Data(fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":1730000000,"model":%q,"system_fingerprint":"fp_50cad350e4","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":%q}],"usage":null}`,
		c.ID, c.Model, reason))
}

// Usage adds include_usage's last chunk: no choices, the usage.
func (c *Chunks) Usage(prompt, completion, cached int) *Chunks {
	return c.Data(fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":1730000000,"model":%q,"system_fingerprint":"fp_50cad350e4","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`,
		c.ID, c.Model, prompt, completion, prompt+completion, cached))
}

// Done adds the terminating data: [DONE].
func (c *Chunks) Done() *Chunks { return c.Data("[DONE]") }

// Bytes returns the stream so far.
func (c *Chunks) Bytes() []byte { return bytes.Clone(c.buf.Bytes()) }

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
