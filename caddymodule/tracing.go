package caddymodule

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/buger/jsonparser"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/caddyserver/caddy/v2"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// The span attributes follow the OpenTelemetry GenAI semantic conventions
// v1.41.0 (docs/operations.md#traces); thinkgate's own are under thinkgate.*.
const (
	attrOperationName     = attribute.Key("gen_ai.operation.name")
	attrProviderName      = attribute.Key("gen_ai.provider.name")
	attrRequestModel      = attribute.Key("gen_ai.request.model")
	attrResponseModel     = attribute.Key("gen_ai.response.model")
	attrRequestMaxTokens  = attribute.Key("gen_ai.request.max_tokens")
	attrRequestStream     = attribute.Key("gen_ai.request.stream")
	attrInputTokens       = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens      = attribute.Key("gen_ai.usage.output_tokens")
	attrCacheReadTokens   = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	attrCacheCreateTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	attrFinishReasons     = attribute.Key("gen_ai.response.finish_reasons")
	attrResponseID        = attribute.Key("gen_ai.response.id")
	attrTimeToFirstChunk  = attribute.Key("gen_ai.response.time_to_first_chunk")
	attrInputMessages     = attribute.Key("gen_ai.input.messages")
	attrOutputMessages    = attribute.Key("gen_ai.output.messages")
	attrSystemInstr       = attribute.Key("gen_ai.system_instructions")
	attrErrorType         = attribute.Key("error.type")

	attrThinkgateProvider       = attribute.Key("thinkgate.provider")
	attrThinkgateClient         = attribute.Key("thinkgate.client")
	attrThinkgateFallbackStep   = attribute.Key("thinkgate.fallback.step")
	attrThinkgateThinkingBlocks = attribute.Key("thinkgate.thinking_blocks")
	attrThinkgateTruncated      = attribute.Key("thinkgate.content.truncated")
	attrThinkgateFailure        = attribute.Key("thinkgate.fallback.failure")

	// eventFirstContent marks the first content delta sent to the client.
	eventFirstContent = "thinkgate.first_content"
	// eventContent is the conventions' opt-in event for message content.
	eventContent = "gen_ai.client.inference.operation.details"
	// eventFallbackStepFailed marks a fallback step that failed over.
	eventFallbackStepFailed = "thinkgate.fallback.step_failed"
)

// maxObservedLine bounds one event-stream line kept across writes while
// reading a stream for the span; a longer line (a huge delta) is skipped.
const maxObservedLine = 64 << 10

// maxTraceContent bounds trace_content.
const maxTraceContent = 16 << 20

// exchangeTrace is what one exchange tells its request's span. It exists
// only while the span records (Caddy's tracing directive, sampled), so an
// untraced request pays one IsRecording check.
type exchangeTrace struct {
	span trace.Span

	// What the handler tells it: x is nil when the request failed before
	// it was parsed, m when it was no Messages API call.
	x       *providers.Exchange
	m       *exchangeMetrics
	client  string
	errType string // the Anthropic error type the client got, if any

	// What the response the client gets says.
	responseReading
}

// responseReading is what a client-facing Anthropic response says: read
// from a stream's events or a whole Message, for the span and, for a
// response passed through, a named client's usage (passthroughReader).
type responseReading struct {
	contentCap int // trace_content; 0 collects no content

	id, model, stopReason string
	usage                 emit.Usage
	sawUsage              bool
	thinkingBlocks        int
	// line is a stream line split across writes, up to maxObservedLine;
	// skip: the current line is over it, and is not read.
	line []byte
	skip bool
	// Content the client got, collected when trace_content is set.
	parts    []contentPart
	partsLen int
	partIdx  int
}

// contentPart is one part of the conventions' output message.
type contentPart struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// newExchangeTrace returns the trace of r's exchange, or nil when r's span
// does not record.
func newExchangeTrace(r *http.Request, contentCap int64) *exchangeTrace {
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return nil
	}
	return &exchangeTrace{span: span, responseReading: responseReading{contentCap: int(contentCap), partIdx: -1}}
}

// observeEvents reads client-facing Anthropic events (a stream's bytes,
// split anywhere) for the message id, model, stop reason, usage, thinking
// blocks and, with trace_content, the text. A line over maxObservedLine (a
// huge delta) is skipped whole, never read from its middle.
func (t *responseReading) observeEvents(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.keep(p)
			return
		}
		line := p[:i]
		if len(t.line) > 0 || t.skip {
			t.keep(line)
			line = t.line
		}
		if data, ok := bytes.CutPrefix(line, dataPrefix); ok {
			t.observeEvent(bytes.TrimSpace(data))
		}
		t.line, t.skip = t.line[:0], false
		p = p[i+1:]
	}
}

// keep adds p to the current stream line, within maxObservedLine.
func (t *responseReading) keep(p []byte) {
	if t.skip || len(t.line)+len(p) > maxObservedLine {
		t.skip, t.line = true, t.line[:0]
		return
	}
	t.line = append(t.line, p...)
}

var dataPrefix = []byte("data:")

func (t *responseReading) observeEvent(data []byte) {
	if t.contentCap == 0 && bytes.HasPrefix(data, contentDeltaData) {
		return // the bulk of a stream, and nothing the span needs
	}
	typ, _ := jsonparser.GetUnsafeString(data, "type")
	switch typ {
	case "content_block_delta":
		if t.contentCap > 0 {
			idx, _ := jsonparser.GetInt(data, "index")
			dtyp, _ := jsonparser.GetUnsafeString(data, "delta", "type")
			switch dtyp {
			case "text_delta":
				t.addContent(int(idx), "text", data, "delta", "text")
			case "thinking_delta":
				t.addContent(int(idx), "reasoning", data, "delta", "thinking")
			}
		}
	case "content_block_start":
		if btyp, _ := jsonparser.GetUnsafeString(data, "content_block", "type"); btyp == "thinking" {
			t.thinkingBlocks++
		}
	case "message_start":
		if m, _, _, err := jsonparser.Get(data, "message"); err == nil {
			t.observeMessageFields(m)
		}
	case "message_delta":
		if s, err := jsonparser.GetString(data, "delta", "stop_reason"); err == nil && s != "" {
			t.stopReason = s
		}
		if u, _, _, err := jsonparser.Get(data, "usage"); err == nil {
			t.observeUsage(u)
		}
	}
}

// contentDeltaData starts the data of every content delta the emitter
// writes (and of Anthropic's own).
var contentDeltaData = []byte(`{"type":"content_block_delta"`)

// observeMessage reads a whole Message the client gets.
func (t *responseReading) observeMessage(msg []byte) {
	t.observeMessageFields(msg)
	if s, err := jsonparser.GetString(msg, "stop_reason"); err == nil && s != "" {
		t.stopReason = s
	}
	idx := 0
	_, _ = jsonparser.ArrayEach(msg, func(block []byte, _ jsonparser.ValueType, _ int, _ error) {
		switch typ, _ := jsonparser.GetUnsafeString(block, "type"); typ {
		case "thinking":
			t.thinkingBlocks++
			if t.contentCap > 0 {
				t.addContent(idx, "reasoning", block, "thinking")
			}
		case "text":
			if t.contentCap > 0 {
				t.addContent(idx, "text", block, "text")
			}
		}
		idx++
	}, "content")
}

func (t *responseReading) observeMessageFields(msg []byte) {
	if s, err := jsonparser.GetString(msg, "id"); err == nil && s != "" {
		t.id = s
	}
	if s, err := jsonparser.GetString(msg, "model"); err == nil && s != "" {
		t.model = s
	}
	if u, _, _, err := jsonparser.Get(msg, "usage"); err == nil {
		t.observeUsage(u)
	}
}

// observeUsage reads an Anthropic usage object; message_delta's fields are
// whole-message totals that replace message_start's.
func (t *responseReading) observeUsage(u []byte) {
	read := func(key string, v *int64) {
		if n, err := jsonparser.GetInt(u, key); err == nil {
			*v = n
			t.sawUsage = true
		}
	}
	read("input_tokens", &t.usage.InputTokens)
	read("output_tokens", &t.usage.OutputTokens)
	read("cache_read_input_tokens", &t.usage.CacheReadInputTokens)
	read("cache_creation_input_tokens", &t.usage.CacheCreationInputTokens)
}

// addContent appends the string at keys of data to the output part of
// block idx, within trace_content.
func (t *responseReading) addContent(idx int, typ string, data []byte, keys ...string) {
	room := t.contentCap - t.partsLen
	if room <= 0 {
		return
	}
	s, err := jsonparser.GetString(data, keys...)
	if err != nil || s == "" {
		return
	}
	s = truncateUTF8(s, room)
	t.partsLen += len(s)
	if idx == t.partIdx && len(t.parts) > 0 && t.parts[len(t.parts)-1].Type == typ {
		t.parts[len(t.parts)-1].Content += s
		return
	}
	t.partIdx = idx
	t.parts = append(t.parts, contentPart{Type: typ, Content: s})
}

// finish sets the span's attributes once the exchange is done.
func (t *exchangeTrace) finish(h *Handler, r *http.Request) {
	x, m, client := t.x, t.m, t.client
	if m == nil {
		return // not a Messages API call
	}
	attempt := upstreamAttemptFrom(r.Context())
	attrs := make([]attribute.KeyValue, 0, 24)
	attrs = append(attrs,
		attrOperationName.String("chat"),
		attrProviderName.String(h.genAIName),
		attrThinkgateProvider.String(h.providerName))
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl != nil {
		if s, _ := repl.GetString("http.thinkgate.client"); s != "" {
			client = s
		}
	}
	if client != "" {
		attrs = append(attrs, attrThinkgateClient.String(client))
	}
	if x != nil {
		attrs = append(attrs,
			attrRequestModel.String(x.ClientModel),
			attrRequestStream.Bool(x.Streaming),
			attrThinkgateThinkingBlocks.Int(t.thinkingBlocks))
		if x.Request != nil && x.Request.MaxTokens > 0 {
			attrs = append(attrs, attrRequestMaxTokens.Int(x.Request.MaxTokens))
		}
		model := x.UpstreamModel
		if t.model != "" && t.model != x.ClientModel {
			model = t.model // the upstream's own name, where the client sees it unchanged
		}
		attrs = append(attrs, attrResponseModel.String(model))
		usage := x.Usage
		if usage == (emit.Usage{}) && t.sawUsage {
			usage = t.usage // a passthrough: the upstream's usage as the client got it
		}
		if m.status < 300 || usage != (emit.Usage{}) {
			attrs = append(attrs,
				attrInputTokens.Int64(usage.InputTokens),
				attrOutputTokens.Int64(usage.OutputTokens),
				attrCacheReadTokens.Int64(usage.CacheReadInputTokens),
				attrCacheCreateTokens.Int64(usage.CacheCreationInputTokens))
		}
	}
	if t.id != "" {
		attrs = append(attrs, attrResponseID.String(t.id))
	}
	if t.stopReason != "" {
		attrs = append(attrs, attrFinishReasons.StringSlice([]string{t.stopReason}))
	}
	if !m.firstContent.IsZero() {
		attrs = append(attrs, attrTimeToFirstChunk.Float64(m.firstContent.Sub(m.start).Seconds()))
		t.span.AddEvent(eventFirstContent, trace.WithTimestamp(m.firstContent))
	}
	errType := t.errType
	if errType == "" && m.status >= 400 {
		errType = strconv.Itoa(m.status)
	}
	if attempt != nil {
		attempt.errType = errType
	}
	if errType != "" && attempt == nil {
		// Under a fallback the step's failure may be failed over: the
		// fallback marks the span for the step that answers.
		attrs = append(attrs, attrErrorType.String(errType))
	}
	t.span.SetAttributes(attrs...)
	if errType != "" && attempt == nil {
		t.span.SetStatus(codes.Error, errType)
	}
	if t.contentCap > 0 && x != nil {
		t.addContentEvent(x)
	}
}

// addContentEvent records the request's messages and the response's
// content as the conventions' opt-in event, each within trace_content.
func (t *exchangeTrace) addContentEvent(x *providers.Exchange) {
	in, sys, truncated := inputMessages(x.Body, t.contentCap)
	out := []struct {
		Role         string        `json:"role"`
		Parts        []contentPart `json:"parts"`
		FinishReason string        `json:"finish_reason,omitempty"`
	}{{Role: "assistant", Parts: t.parts, FinishReason: t.stopReason}}
	if out[0].Parts == nil {
		out[0].Parts = []contentPart{}
	}
	outJSON, _ := json.Marshal(out)
	attrs := []attribute.KeyValue{
		attrInputMessages.String(string(in)),
		attrOutputMessages.String(string(outJSON)),
		attrThinkgateTruncated.Bool(truncated || t.partsLen >= t.contentCap),
	}
	if sys != nil {
		attrs = append(attrs, attrSystemInstr.String(string(sys)))
	}
	t.span.AddEvent(eventContent, trace.WithAttributes(attrs...))
}

// inputMessages converts the client's system prompt and messages into the
// conventions' JSON forms, the text within limit bytes in all.
func inputMessages(body []byte, limit int) (messages, system []byte, truncated bool) {
	type part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	room := limit
	text := func(s string) string {
		if len(s) > room {
			s, truncated = truncateUTF8(s, room), true
		}
		room -= len(s)
		return s
	}
	blockParts := func(content []byte, typ jsonparser.ValueType) []part {
		parts := []part{}
		if typ == jsonparser.String {
			s, _ := jsonparser.ParseString(content)
			return append(parts, part{Type: "text", Content: text(s)})
		}
		_, _ = jsonparser.ArrayEach(content, func(b []byte, _ jsonparser.ValueType, _ int, _ error) {
			if room <= 0 {
				truncated = true
				return
			}
			btyp, _ := jsonparser.GetString(b, "type")
			switch btyp {
			case "text":
				s, _ := jsonparser.GetString(b, "text")
				parts = append(parts, part{Type: "text", Content: text(s)})
			case "thinking":
				s, _ := jsonparser.GetString(b, "thinking")
				parts = append(parts, part{Type: "reasoning", Content: text(s)})
			case "tool_use":
				id, _ := jsonparser.GetString(b, "id")
				name, _ := jsonparser.GetString(b, "name")
				args, _, _, _ := jsonparser.Get(b, "input")
				if len(args) > room {
					args, truncated = nil, true
				}
				room -= len(args)
				parts = append(parts, part{Type: "tool_call", ID: id, Name: name, Arguments: args})
			case "tool_result":
				id, _ := jsonparser.GetString(b, "tool_use_id")
				c, ctyp, _, _ := jsonparser.Get(b, "content")
				s := string(c)
				if ctyp == jsonparser.String {
					s, _ = jsonparser.ParseString(c)
				}
				parts = append(parts, part{Type: "tool_call_response", ID: id, Content: text(s)})
			default:
				parts = append(parts, part{Type: btyp})
			}
		})
		return parts
	}
	if c, typ, _, err := jsonparser.Get(body, "system"); err == nil {
		system, _ = json.Marshal(blockParts(c, typ))
	}
	msgs := []message{}
	_, _ = jsonparser.ArrayEach(body, func(m []byte, _ jsonparser.ValueType, _ int, _ error) {
		if room <= 0 {
			truncated = true
			return
		}
		role, _ := jsonparser.GetString(m, "role")
		c, typ, _, _ := jsonparser.Get(m, "content")
		msgs = append(msgs, message{Role: role, Parts: blockParts(c, typ)})
	}, "messages")
	messages, _ = json.Marshal(msgs)
	return messages, system, truncated
}

// truncateUTF8 cuts s to at most n bytes at a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// traceFallbackStepFailed marks on r's span a fallback step that failed over.
func traceFallbackStepFailed(r *http.Request, step int, provider, failure string) {
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return
	}
	span.AddEvent(eventFallbackStepFailed, trace.WithAttributes(
		attrThinkgateFallbackStep.Int(step),
		attrThinkgateProvider.String(provider),
		attrThinkgateFailure.String(failure)))
}

// traceFallbackAnswered sets the span's step and, when the answering
// step's thinkgate failed, the span's error status.
func traceFallbackAnswered(r *http.Request, step int, a *upstreamAttempt) {
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrThinkgateFallbackStep.Int(step))
	if a.errType != "" {
		span.SetAttributes(attrErrorType.String(a.errType))
		span.SetStatus(codes.Error, a.errType)
	}
}
