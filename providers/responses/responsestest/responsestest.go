// Package responsestest writes OpenAI Responses API event streams as the
// API sends them (typed events with sequence_number, output_index,
// item_id …), for the responses provider's unit and integration tests.
package responsestest

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Builder accumulates a stream's events.
type Builder struct {
	buf    []byte
	seq    int
	index  int // output_index of the next item
	id     string
	model  string
	output []any
}

// New starts a stream with response.created and response.in_progress.
func New(id, model string) *Builder {
	b := &Builder{id: id, model: model}
	b.Event("response.created", map[string]any{"response": b.response("in_progress", nil, nil)})
	b.Event("response.in_progress", map[string]any{"response": b.response("in_progress", nil, nil)})
	return b
}

func (b *Builder) response(status string, usage, extra map[string]any) map[string]any {
	r := map[string]any{"id": b.id, "object": "response", "created_at": 1750000000, "status": status,
		"model": b.model, "output": b.output, "usage": usage, "error": nil, "incomplete_details": nil,
		"store": false, "reasoning": map[string]any{"effort": "medium", "summary": "auto"}}
	if b.output == nil {
		r["output"] = []any{}
	}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

// Event appends one event of type typ; fields are its other fields.
func (b *Builder) Event(typ string, fields map[string]any) *Builder {
	m := map[string]any{"type": typ, "sequence_number": b.seq}
	for k, v := range fields {
		m[k] = v
	}
	b.seq++
	data, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b.Raw(fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data))
}

// Raw appends bytes as they are.
func (b *Builder) Raw(s string) *Builder {
	b.buf = append(b.buf, s...)
	return b
}

// Bytes returns the stream.
func (b *Builder) Bytes() []byte { return b.buf }

// Chunks cuts s into pieces of n runes (n <= 0: one piece).
func Chunks(s string, n int) []string {
	if n <= 0 || s == "" {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		i, k := 0, 0
		for i < len(s) && k < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// Reasoning appends a reasoning item: its summary parts streamed in deltas
// of n runes, then output_item.done with encrypted_content (omitted when "").
func (b *Builder) Reasoning(id, encrypted string, parts []string, n int) *Builder {
	oi := b.index
	b.index++
	b.Event("response.output_item.added", map[string]any{"output_index": oi, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
	var summary []any
	for si, text := range parts {
		part := map[string]any{"type": "summary_text", "text": ""}
		b.Event("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": oi, "summary_index": si, "part": part})
		for _, d := range Chunks(text, n) {
			b.Event("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": oi, "summary_index": si, "delta": d, "obfuscation": "xyz"})
		}
		b.Event("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": oi, "summary_index": si, "text": text})
		done := map[string]any{"type": "summary_text", "text": text}
		b.Event("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": oi, "summary_index": si, "part": done})
		summary = append(summary, done)
	}
	if summary == nil {
		summary = []any{}
	}
	item := map[string]any{"id": id, "type": "reasoning", "summary": summary}
	if encrypted != "" {
		item["encrypted_content"] = encrypted
	}
	b.output = append(b.output, item)
	return b.Event("response.output_item.done", map[string]any{"output_index": oi, "item": item})
}

// Message appends an assistant message item whose text streams in deltas
// of n runes.
func (b *Builder) Message(id, text string, n int) *Builder {
	oi := b.index
	b.index++
	b.Event("response.output_item.added", map[string]any{"output_index": oi, "item": map[string]any{"id": id, "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}})
	b.Event("response.content_part.added", map[string]any{"item_id": id, "output_index": oi, "content_index": 0, "part": map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": ""}})
	for _, d := range Chunks(text, n) {
		b.Event("response.output_text.delta", map[string]any{"item_id": id, "output_index": oi, "content_index": 0, "delta": d, "logprobs": []any{}})
	}
	b.Event("response.output_text.done", map[string]any{"item_id": id, "output_index": oi, "content_index": 0, "text": text, "logprobs": []any{}})
	part := map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": text}
	b.Event("response.content_part.done", map[string]any{"item_id": id, "output_index": oi, "content_index": 0, "part": part})
	item := map[string]any{"id": id, "type": "message", "status": "completed", "content": []any{part}, "role": "assistant"}
	b.output = append(b.output, item)
	return b.Event("response.output_item.done", map[string]any{"output_index": oi, "item": item})
}

// Call appends a function_call item whose arguments stream in the pieces given.
func (b *Builder) Call(id, callID, name string, args ...string) *Builder {
	oi := b.index
	b.index++
	b.Event("response.output_item.added", map[string]any{"output_index": oi, "item": map[string]any{"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": callID, "name": name}})
	full := ""
	for _, a := range args {
		full += a
		b.Event("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": oi, "delta": a})
	}
	b.Event("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": oi, "arguments": full})
	item := map[string]any{"id": id, "type": "function_call", "status": "completed", "arguments": full, "call_id": callID, "name": name}
	b.output = append(b.output, item)
	return b.Event("response.output_item.done", map[string]any{"output_index": oi, "item": item})
}

// Usage is a response's usage.
func Usage(in, cached, out, reasoning int) map[string]any {
	return map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": cached},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": reasoning}, "total_tokens": in + out}
}

// Completed ends the stream with response.completed.
func (b *Builder) Completed(usage map[string]any) *Builder {
	return b.Event("response.completed", map[string]any{"response": b.response("completed", usage, nil)})
}

// Incomplete ends the stream with response.incomplete for reason.
func (b *Builder) Incomplete(reason string, usage map[string]any) *Builder {
	return b.Event("response.incomplete", map[string]any{"response": b.response("incomplete", usage,
		map[string]any{"incomplete_details": map[string]any{"reason": reason}})})
}

// Failed ends the stream with response.failed.
func (b *Builder) Failed(code, message string) *Builder {
	return b.Event("response.failed", map[string]any{"response": b.response("failed", nil,
		map[string]any{"error": map[string]any{"code": code, "message": message}})})
}

// Error appends an error event.
func (b *Builder) Error(code, message string) *Builder {
	return b.Event("error", map[string]any{"code": code, "message": message, "param": nil})
}

// Response returns the response object the stream describes, as a
// non-streaming answer with status and usage.
func (b *Builder) Response(status string, usage map[string]any) []byte {
	data, err := json.Marshal(b.response(status, usage, nil))
	if err != nil {
		panic(err)
	}
	return data
}
