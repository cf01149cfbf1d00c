package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// The emitter is what a thinkparse.Parser writes into.
var _ thinkparse.Sink = (*Emitter)(nil)

// checkGolden compares got with testdata/name; UPDATE_GOLDEN=1 rewrites the file.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

const testMessageID = "msg_01XFDUDYJgAACzvnptvVoYEL"

var (
	startUsage = Usage{InputTokens: 25, CacheReadInputTokens: 3}
	endUsage   = Usage{InputTokens: 25, OutputTokens: 12, CacheReadInputTokens: 3}
)

func startMessage(e *Emitter) { e.MessageStart(testMessageID, "claude-sonnet-4-5", startUsage) }

// tsig is the signature the gateway must put on a thinking block (computed
// by the independent envelope function, not by signature.go).
func tsig(origin Origin, foreign, thinking string) string {
	return envelope(testKey, origin, foreign, thinking)
}

type emitterScenario struct {
	name   string
	form   BlockForm
	signed bool
	run    func(e *Emitter)

	// What anthropic-sdk-go accumulates from the stream: one line per block
	// (see blockSummary), stop reason and sequence, usage, and the stream's error.
	content      []string
	stopReason   string
	stopSequence string
	usage        Usage
	streamErr    string

	collectErr *wire.Error
	// collectDiffers: collect mode legitimately builds another message
	// (RawBlockStart takes the whole block there, so deltas are not replayed).
	collectDiffers bool
}

func textBlock(s string) string { return "text " + strconv.Quote(s) }
func thinkingBlock(s, sig string) string {
	return "thinking " + strconv.Quote(s) + " sig=" + sig
}
func thinkingMetaBlock(s, meta, sig string) string {
	return "thinking " + strconv.Quote(s) + " meta=" + meta + " sig=" + sig
}

var emitterScenarios = []emitterScenario{
	{
		name: "text_only",
		run: func(e *Emitter) {
			startMessage(e)
			e.MessageStart("msg_second", "ignored", Usage{}) // only one message_start
			e.Text([]byte("Hello"))
			e.Text(nil)
			e.Text([]byte(", \"world\" <b> & ünï\n\ttab\u2028"))
			e.Finish("end_turn", "", endUsage)
		},
		content:    []string{textBlock("Hello, \"world\" <b> & ünï\n\ttab\u2028")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name: "thinking_signed", signed: true,
		run:        textThinkingText,
		content:    []string{textBlock("Before. "), thinkingBlock("Let me think.", tsig(OriginTags, "", "Let me think.")), textBlock("Answer.")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name: "thinking_text_form", form: FormText, signed: true,
		run:        textThinkingText,
		content:    []string{textBlock("Before. "), textBlock("Let me think."), textBlock("Answer.")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name:       "thinking_unsigned",
		run:        textThinkingText,
		content:    []string{textBlock("Before. "), thinkingBlock("Let me think.", ""), textBlock("Answer.")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name: "empty_thinking_span", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(&thinkparse.Meta{})
			e.ThinkingEnd()
			e.Text([]byte("A"))
			e.ThinkingStart(nil)
			e.ThinkingEnd()
			e.Text([]byte("B"))
			e.ThinkingStart(&thinkparse.Meta{Attrs: true, Confidence: 0.9})
			e.Thinking(nil)
			e.ThinkingEnd()
			e.Text([]byte("C"))
			e.Finish("end_turn", "", endUsage)
		},
		content:    []string{textBlock("ABC")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name: "thinking_metadata", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(&thinkparse.Meta{Attrs: true, ThoughtType: []byte("reflection"), Confidence: 0.7})
			e.Thinking([]byte("Check the units."))
			e.ThinkingEnd()
			e.ThinkingStart(&thinkparse.Meta{Attrs: true, Confidence: 0.5})
			e.Thinking([]byte("Fine."))
			e.ThinkingEnd()
			e.ThinkingStart(&thinkparse.Meta{Attrs: true, ThoughtType: []byte(`"q" <&>`), Confidence: -1.25})
			e.Thinking([]byte("Odd."))
			e.ThinkingStart(&thinkparse.Meta{}) // closes the open span
			e.Thinking([]byte("Plain."))
			e.ThinkingEnd()
			e.Text([]byte("Done."))
			e.Finish("end_turn", "", endUsage)
		},
		content: []string{
			thinkingMetaBlock("Check the units.", `{"thought_type":"reflection","confidence":0.7}`, tsig(OriginTags, "", "Check the units.")),
			thinkingMetaBlock("Fine.", `{"confidence":0.5}`, tsig(OriginTags, "", "Fine.")),
			thinkingMetaBlock("Odd.", `{"thought_type":"\"q\" \u003c\u0026\u003e","confidence":-1.25}`, tsig(OriginTags, "", "Odd.")),
			thinkingBlock("Plain.", tsig(OriginTags, "", "Plain.")),
			textBlock("Done."),
		},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name: "signature_gemini", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(nil)
			e.Thinking([]byte("Plan: "))
			e.Signature(OriginGemini, []byte("abc"))
			e.Thinking([]byte("call the tool."))
			e.ThinkingEnd()
			e.Text([]byte("Calling."))
			e.Finish("end_turn", "", endUsage)
		},
		content:    []string{thinkingBlock("Plan: call the tool.", tsig(OriginGemini, "abc", "Plan: call the tool.")), textBlock("Calling.")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		// Without a signer the upstream's own signature goes out as is; the
		// last one given for the block wins.
		name: "signature_unsigned",
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(nil)
			e.Thinking([]byte("Plan."))
			e.Signature(OriginAmazonQ, []byte("first"))
			e.Signature(OriginGemini, []byte("abc"))
			e.ThinkingEnd()
			e.Finish("end_turn", "", endUsage)
		},
		content:    []string{thinkingBlock("Plan.", "abc")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		// A foreign signature belongs to one block: the next thinking block,
		// opened lazily without ThinkingStart, is the gateway's own.
		name: "signature_per_block", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(nil)
			e.Thinking([]byte("first"))
			e.Signature(OriginGemini, []byte("abc"))
			e.Text([]byte("between"))
			e.Thinking([]byte("second"))
			e.Finish("end_turn", "", endUsage)
		},
		content: []string{
			thinkingBlock("first", tsig(OriginGemini, "abc", "first")),
			textBlock("between"),
			thinkingBlock("second", tsig(OriginTags, "", "second")),
		},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		// A reasoning-field provider may write thinking without ThinkingStart.
		name: "thinking_without_span", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.Thinking([]byte("reasoning"))
			e.Text([]byte("answer"))
			e.Finish("end_turn", "", endUsage)
		},
		content:    []string{thinkingBlock("reasoning", tsig(OriginTags, "", "reasoning")), textBlock("answer")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		// The client gets invalid UTF-8 as U+FFFD, one per byte, delta by
		// delta; the signature must cover that text, the one it sends back.
		name: "thinking_invalid_utf8", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(nil)
			e.Thinking([]byte("bad \xff\xfe bytes, split "))
			e.Thinking([]byte("\xc3"))
			e.Thinking([]byte("\xa9 rune"))
			e.ThinkingEnd()
			e.Finish("end_turn", "", endUsage)
		},
		content: []string{thinkingBlock("bad \uFFFD\uFFFD bytes, split \uFFFD\uFFFD rune",
			tsig(OriginTags, "", "bad \uFFFD\uFFFD bytes, split \uFFFD\uFFFD rune"))},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name: "tool_use", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ToolInput([]byte(`{"no":"block"}`)) // nothing open: dropped
			e.ThinkingStart(nil)
			e.Thinking([]byte("I should call the tool."))
			e.ThinkingEnd()
			e.Text([]byte("Let me look."))
			e.ToolInput([]byte(`"text block"`)) // a text block is open: dropped
			e.ToolUseStart("toolu_01A", "get_weather")
			e.ToolInput([]byte(`{"city": `))
			e.ToolInput(nil)
			e.ToolInput([]byte(`"Paris", "unit": "°C <&>"}`))
			e.ToolUseStart("toolu_01B", "get_time")
			e.Finish("tool_use", "", endUsage)
		},
		content: []string{
			thinkingBlock("I should call the tool.", tsig(OriginTags, "", "I should call the tool.")),
			textBlock("Let me look."),
			`tool_use toolu_01A get_weather {"city": "Paris", "unit": "°C <&>"}`,
			`tool_use toolu_01B get_time {}`,
		},
		stopReason: "tool_use", usage: endUsage,
	},
	{
		name: "raw_passthrough",
		run: func(e *Emitter) {
			startMessage(e)
			e.RawBlockStart([]byte(`{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}`))
			e.RawDelta([]byte(`{"type":"input_json_delta","partial_json":"{\"query\": \"caddy\"}"}`))
			e.CloseBlock()
			e.CloseBlock() // nothing open: no event
			e.RawBlockStart([]byte(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[]}`))
			e.RawBlockStart([]byte(`{"type":"thinking","thinking":"","signature":""}`)) // closes the previous one
			e.RawDelta([]byte(`{"type":"thinking_delta","thinking":"upstream thought"}`))
			e.RawDelta([]byte(`{"type":"signature_delta","signature":"EqQBCkgIBhAB"}`))
			e.Text([]byte("native"))
			e.RawDelta([]byte(`{"type":"text_delta","text":"dropped"}`)) // not a raw block: dropped
			e.Finish("end_turn", "", endUsage)
		},
		content: []string{
			`server_tool_use {"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{"query": "caddy"}}`,
			`web_search_tool_result {"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[]}`,
			thinkingBlock("upstream thought", "EqQBCkgIBhAB"),
			textBlock("native"),
		},
		stopReason: "end_turn", usage: endUsage,
		collectDiffers: true,
	},
	{
		name: "fail_mid_block",
		run: func(e *Emitter) {
			startMessage(e)
			e.Text([]byte("partial answer"))
			e.Fail("overloaded_error", "Overloaded")
			e.Text([]byte("ignored"))
			e.ThinkingStart(nil)
			e.Thinking([]byte("ignored"))
			e.ToolUseStart("toolu_x", "ignored")
			e.RawBlockStart([]byte(`{"type":"text","text":""}`))
			e.Ping()
			e.Finish("end_turn", "", endUsage)
			e.MessageStop()
			e.Fail("api_error", "second failure")
		},
		content:    []string{textBlock("partial answer")},
		usage:      startUsage,
		streamErr:  `received error while streaming: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n",
		collectErr: &wire.Error{Status: 502, Type: "overloaded_error", Message: "Overloaded"},
	},
	{
		name: "fail_in_thinking", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(nil)
			e.Thinking([]byte("half a thought"))
			e.Fail("api_error", "upstream \"connection\" cut <eof>")
		},
		content:    []string{thinkingBlock("half a thought", tsig(OriginTags, "", "half a thought"))},
		usage:      startUsage,
		streamErr:  `received error while streaming: {"type":"error","error":{"type":"api_error","message":"upstream \"connection\" cut \u003ceof\u003e"}}` + "\n",
		collectErr: &wire.Error{Status: 502, Type: "api_error", Message: "upstream \"connection\" cut <eof>"},
	},
	{
		name: "fail_raw",
		run: func(e *Emitter) {
			startMessage(e)
			e.Text([]byte("partial"))
			e.FailRaw([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
			e.FailRaw([]byte(`{"type":"error","error":{"type":"api_error","message":"second"}}`))
		},
		content:    []string{textBlock("partial")},
		usage:      startUsage,
		streamErr:  `received error while streaming: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n",
		collectErr: &wire.Error{Status: 502, Type: "overloaded_error", Message: "Overloaded"},
	},
	{
		name: "finish_stop_sequence",
		run: func(e *Emitter) {
			startMessage(e)
			e.Text([]byte("1, 2, 3"))
			e.Finish("stop_sequence", "\n4", Usage{InputTokens: 100, OutputTokens: 42, CacheCreationInputTokens: 5, CacheReadInputTokens: 7})
			e.Finish("end_turn", "", endUsage) // ignored
		},
		content:    []string{textBlock("1, 2, 3")},
		stopReason: "stop_sequence", stopSequence: "\n4",
		usage: Usage{InputTokens: 100, OutputTokens: 42, CacheCreationInputTokens: 5, CacheReadInputTokens: 7},
	},
	{
		name: "ping",
		run: func(e *Emitter) {
			e.Ping()
			startMessage(e)
			e.Ping()
			e.Text([]byte("a"))
			e.Ping()
			e.Text([]byte("b"))
			e.Finish("end_turn", "", endUsage)
			e.Ping() // after the end: nothing
		},
		content:    []string{textBlock("ab")},
		stopReason: "end_turn", usage: endUsage,
	},
	{
		name: "thinking_unclosed", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.Text([]byte("x"))
			e.ThinkingStart(nil)
			e.Thinking([]byte("never closed"))
			e.Finish("max_tokens", "", endUsage)
		},
		content:    []string{textBlock("x"), thinkingBlock("never closed", tsig(OriginTags, "", "never closed"))},
		stopReason: "max_tokens", usage: endUsage,
	},
	{
		name: "empty_message", signed: true,
		run: func(e *Emitter) {
			startMessage(e)
			e.ThinkingStart(nil)
			e.ThinkingEnd()
			e.Finish("end_turn", "", Usage{InputTokens: 25, OutputTokens: 1})
		},
		content:    []string{},
		stopReason: "end_turn", usage: Usage{InputTokens: 25, OutputTokens: 1},
	},
}

// textThinkingText: text, a thinking span written in two pieces, text.
func textThinkingText(e *Emitter) {
	startMessage(e)
	e.Text([]byte("Before. "))
	e.ThinkingStart(&thinkparse.Meta{})
	e.Thinking([]byte("Let me "))
	e.Thinking([]byte("think."))
	e.ThinkingEnd()
	e.Text([]byte("Answer."))
	e.Finish("end_turn", "", endUsage)
}

func (sc emitterScenario) signer() *Signer {
	if sc.signed {
		return NewSigner(testKey)
	}
	return nil
}

// sdkAccumulate reads a stream the way anthropic-sdk-go does (its SSE
// decoder and event stream, then Message.Accumulate per event).
func sdkAccumulate(stream []byte) (anthropic.Message, error) {
	res := &http.Response{
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(bytes.NewReader(stream)),
	}
	s := ssestream.NewStream[anthropic.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
	var msg anthropic.Message
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			return msg, fmt.Errorf("accumulate: %w", err)
		}
	}
	return msg, s.Err()
}

func blockSummary(b anthropic.ContentBlockUnion) string {
	switch b.Type {
	case "text":
		return textBlock(b.Text)
	case "thinking":
		var m struct{ Metadata json.RawMessage }
		_ = json.Unmarshal([]byte(b.RawJSON()), &m)
		if m.Metadata != nil {
			return thinkingMetaBlock(b.Thinking, string(m.Metadata), b.Signature)
		}
		return thinkingBlock(b.Thinking, b.Signature)
	case "tool_use":
		return "tool_use " + b.ID + " " + b.Name + " " + string(b.Input)
	}
	return b.Type + " " + b.RawJSON()
}

// normalizeMessage gives every thinking block of a Message JSON a
// signature field: a stream without signature_delta leaves it out, the
// collector writes "".
func normalizeMessage(t *testing.T, raw []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("message JSON: %v\n%s", err, raw)
	}
	content, _ := m["content"].([]any)
	for _, c := range content {
		if b, _ := c.(map[string]any); b["type"] == "thinking" {
			if _, ok := b["signature"]; !ok {
				b["signature"] = ""
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEmitterGolden(t *testing.T) {
	for _, sc := range emitterScenarios {
		t.Run(sc.name, func(t *testing.T) {
			e := NewEmitter(sc.form, sc.signer())
			sc.run(e)
			stream := e.Events()
			checkGolden(t, sc.name+".sse", stream)
			checkGrammar(t, stream, sc.signed, sc.form)
			if !e.Started() || !e.Finished() {
				t.Errorf("Started() = %v, Finished() = %v", e.Started(), e.Finished())
			}

			msg, err := sdkAccumulate(stream)
			if errText(err) != sc.streamErr {
				t.Fatalf("SDK error: %v, want %q", err, sc.streamErr)
			}
			var got []string
			thinkingBlocks := 0
			for _, b := range msg.Content {
				got = append(got, blockSummary(b))
				if b.Type == "thinking" {
					thinkingBlocks++
				}
			}
			if !slices.Equal(got, sc.content) {
				t.Errorf("SDK content:\n got %q\nwant %q", got, sc.content)
			}
			if msg.ID != testMessageID || msg.Model != "claude-sonnet-4-5" || msg.Role != "assistant" || msg.Type != "message" {
				t.Errorf("SDK message: id %q model %q role %q type %q", msg.ID, msg.Model, msg.Role, msg.Type)
			}
			if string(msg.StopReason) != sc.stopReason || msg.StopSequence != sc.stopSequence {
				t.Errorf("SDK stop: %q %q, want %q %q", msg.StopReason, msg.StopSequence, sc.stopReason, sc.stopSequence)
			}
			u := msg.Usage
			if gotUsage := (Usage{u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens}); gotUsage != sc.usage {
				t.Errorf("SDK usage: %+v, want %+v", gotUsage, sc.usage)
			}
			// What the gateway signed opens against what the client holds.
			for i, b := range msg.Content {
				if sc.signed && wire.IsGatewaySignature(b.Signature) {
					if _, _, ok := NewSigner(testKey).Open(b.Signature, b.Thinking); !ok {
						t.Errorf("block %d: signature %q does not open against %q", i, b.Signature, b.Thinking)
					}
				}
			}
			if e.Blocks != len(msg.Content) {
				t.Errorf("Blocks = %d, want %d", e.Blocks, len(msg.Content))
			}
			if !sc.collectDiffers && e.ThinkingBlocks != thinkingBlocks {
				t.Errorf("ThinkingBlocks = %d, want %d", e.ThinkingBlocks, thinkingBlocks)
			}

			// The same calls in collect mode.
			c := NewCollector(sc.form, sc.signer())
			sc.run(c)
			messageJSON := c.MessageJSON()
			checkGolden(t, sc.name+".json", messageJSON)
			if !json.Valid(messageJSON) {
				t.Fatalf("MessageJSON is not valid JSON: %s", messageJSON)
			}
			if got := c.CollectError(); !reflect.DeepEqual(got, sc.collectErr) {
				t.Errorf("CollectError() = %+v, want %+v", got, sc.collectErr)
			}
			if sc.streamErr == "" && !sc.collectDiffers {
				accumulated := normalizeMessage(t, []byte(msg.RawJSON()))
				if !golden.EqualJSON(t, accumulated, normalizeMessage(t, messageJSON)) {
					t.Errorf("collected message differs from the accumulated stream:\ncollected   %s\naccumulated %s", messageJSON, accumulated)
				}
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Events that are not part of a message the emitter builds itself, as the
// Anthropic passthrough uses them.
func TestEmitterRawMessageEvents(t *testing.T) {
	e := NewEmitter(FormThinking, nil)
	e.MessageStartRaw([]byte(`{"type":"message_start","message":{"id":"msg_up","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}`))
	e.MessageStartRaw([]byte(`{"type":"message_start"}`)) // a second one is dropped
	e.Text([]byte("hi"))
	e.MessageDeltaRaw([]byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`))
	e.MessageStop()
	e.MessageStop()
	checkGolden(t, "raw_message_events.sse", e.Events())
	checkGrammar(t, e.Events(), false, FormThinking)
	msg, err := sdkAccumulate(e.Events())
	if err != nil || msg.ID != "msg_up" || len(msg.Content) != 1 || msg.Content[0].Text != "hi" || msg.StopReason != "end_turn" || msg.Usage.OutputTokens != 3 {
		t.Errorf("SDK: %v %s", err, msg.RawJSON())
	}
}

func TestEmitterBlockBeforeMessageStartPanics(t *testing.T) {
	for name, call := range map[string]func(e *Emitter){
		"Text":          func(e *Emitter) { e.Text([]byte("x")) },
		"Thinking":      func(e *Emitter) { e.Thinking([]byte("x")) },
		"ToolUseStart":  func(e *Emitter) { e.ToolUseStart("id", "n") },
		"RawBlockStart": func(e *Emitter) { e.RawBlockStart([]byte(`{}`)) },
	} {
		func() {
			defer func() {
				if r := recover(); r != "providers: content block before message_start" {
					t.Errorf("%s: recovered %v", name, r)
				}
			}()
			call(NewEmitter(FormThinking, nil))
		}()
	}
	// Things that open no block are fine before message_start.
	e := NewEmitter(FormThinking, nil)
	e.Ping()
	e.ThinkingStart(nil)
	e.ThinkingEnd()
	e.CloseBlock()
	e.Fail("api_error", "early")
	if got := string(e.Events()); got != "event: ping\ndata: {\"type\": \"ping\"}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"early\"}}\n\n" {
		t.Errorf("got %q", got)
	}
}

// The emitter is a thinkparse.Sink: a parser writes straight into it.
func TestEmitterAsThinkparseSink(t *testing.T) {
	e := NewEmitter(FormThinking, NewSigner(testKey))
	startMessage(e)
	p := thinkparse.New(thinkparse.Options{}, e)
	for _, c := range ssetest.Chunks([]byte("Hi <thinking>deep thought</thinking>answer"), 3) {
		p.Write(c)
	}
	p.Close()
	e.Finish("end_turn", "", endUsage)
	msg, err := sdkAccumulate(e.Events())
	var got []string
	for _, b := range msg.Content {
		got = append(got, blockSummary(b))
	}
	want := []string{textBlock("Hi "), thinkingBlock("deep thought", tsig(OriginTags, "", "deep thought")), textBlock("answer")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

// frame is one event of an emitted stream.
type frame struct {
	event string
	data  []byte
}

// splitFrames parses the emitter's exact framing: "event: X\ndata: Y\n\n".
func splitFrames(t *testing.T, stream []byte) []frame {
	t.Helper()
	var out []frame
	for len(stream) > 0 {
		rest, ok := bytes.CutPrefix(stream, []byte("event: "))
		name, rest, ok2 := bytes.Cut(rest, []byte("\ndata: "))
		data, rest, ok3 := bytes.Cut(rest, []byte("\n\n"))
		if !ok || !ok2 || !ok3 || bytes.ContainsAny(name, "\r\n") || bytes.ContainsAny(data, "\r\n") {
			t.Fatalf("bad framing at %q", stream)
		}
		out = append(out, frame{string(name), data})
		stream = rest
	}
	return out
}

// checkGrammar checks the Anthropic stream grammar the strictest SDK wants:
// event name equals data type; one message_start first (pings aside);
// contiguous block indexes from 0, each start paired with its stop, deltas
// only for the open block and of its type; no empty text or thinking block;
// at most one signature_delta per thinking block, last, and exactly one on
// the gateway's blocks when it signs; message_delta with output_tokens
// after all blocks closed, then message_stop; or an error event; nothing after.
func checkGrammar(t *testing.T, stream []byte, signed bool, form BlockForm) {
	t.Helper()
	started, ended, sawDelta := false, false, false
	open, blocks := -1, 0
	var openType string
	var content, sigs int
	for i, f := range splitFrames(t, stream) {
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("event %d (%s %s): %s\n%s", i, f.event, f.data, fmt.Sprintf(format, args...), stream)
		}
		var d struct {
			Type         string
			Index        *int
			ContentBlock map[string]any `json:"content_block"`
			Delta        map[string]any
			Usage        map[string]any
			Message      map[string]any
		}
		if err := json.Unmarshal(f.data, &d); err != nil {
			fail("data is not JSON: %v", err)
		}
		if d.Type != f.event {
			fail("event name %q, data type %q", f.event, d.Type)
		}
		if ended {
			fail("event after the end of the stream")
		}
		idx := -1
		if d.Index != nil {
			idx = *d.Index
		}
		switch f.event {
		case "ping":
		case "message_start":
			if started {
				fail("second message_start")
			}
			started = true
		case "content_block_start":
			if !started || open >= 0 || idx != blocks || sawDelta {
				fail("start: started %v open %d blocks %d", started, open, blocks)
			}
			open, openType, content, sigs = idx, d.ContentBlock["type"].(string), 0, 0
			if form == FormText && openType == "thinking" {
				fail("thinking block in the text form")
			}
		case "content_block_delta":
			if idx != open || open < 0 {
				fail("delta for index %d, open %d", idx, open)
			}
			typ, _ := d.Delta["type"].(string)
			if sigs > 0 {
				fail("delta after the signature")
			}
			ok := false
			switch typ {
			case "text_delta":
				ok = openType == "text" && d.Delta["text"] != ""
			case "thinking_delta":
				ok = openType == "thinking" && d.Delta["thinking"] != ""
			case "signature_delta":
				ok = openType == "thinking" && d.Delta["signature"] != ""
				sigs++
				content--
			case "input_json_delta":
				ok = (openType == "tool_use" || openType == "server_tool_use") && d.Delta["partial_json"] != ""
			case "citations_delta":
				ok = openType == "text" && d.Delta["citation"] != nil
			}
			if !ok {
				fail("%s in a %s block", typ, openType)
			}
			content++
		case "content_block_stop":
			if idx != open || open < 0 {
				fail("stop for index %d, open %d", idx, open)
			}
			if (openType == "text" || openType == "thinking") && content == 0 {
				fail("empty %s block", openType)
			}
			if openType == "thinking" && signed && sigs != 1 {
				fail("%d signature_delta in a signed thinking block", sigs)
			}
			open = -1
			blocks++
		case "message_delta":
			if !started || open >= 0 || sawDelta {
				fail("message_delta: open %d", open)
			}
			if _, ok := d.Usage["output_tokens"]; !ok {
				fail("message_delta without usage.output_tokens")
			}
			sawDelta = true
		case "message_stop":
			if !sawDelta {
				fail("message_stop without message_delta")
			}
			ended = true
		case "error":
			if open >= 0 {
				fail("error with block %d open", open)
			}
			ended = true
		default:
			fail("unknown event")
		}
	}
	if !ended {
		t.Fatalf("stream does not end with message_stop or error:\n%s", stream)
	}
}

// emitterCalls turns bytes into a call sequence: each call takes a byte for
// the method and one for its argument. The first byte picks the form and
// whether the gateway signs.
type emitterCalls struct {
	form   BlockForm
	signer *Signer
	failed bool
	ops    []func(e *Emitter)
	trace  []string
}

var (
	callTexts = []string{"a", "hello ", "é日本", "<tag>&", "\n", `"q"`, "\xff", "\u2028", "\b\x01", "🎉"}
	// Thinking may also get a rune split across deltas.
	callThinkingTexts = append(slices.Clip(callTexts), "\xc3", "\xa9", "\xe6\x97")
	callFragments     = []string{`{"k"`, `: [1, `, `"v<"`, `]}`}
	callRawBlocks     = []string{`{"type":"redacted_thinking","data":"opaque"}`, `{"type":"web_search_tool_result","tool_use_id":"s","content":[]}`}
)

func newEmitterCalls(data []byte) *emitterCalls {
	c := &emitterCalls{}
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	mode := next()
	c.form = BlockForm(mode & 1)
	if mode&6 != 0 {
		c.signer = NewSigner(testKey)
	}
	add := func(name string, op func(e *Emitter)) { c.trace = append(c.trace, name); c.ops = append(c.ops, op) }
	frag := 0
	for len(data) > 1 {
		op, arg := next(), next()
		switch op % 11 {
		case 0, 1:
			s := []byte(callTexts[arg%len(callTexts)])
			add("Text "+strconv.Quote(string(s)), func(e *Emitter) { e.Text(s) })
		case 2:
			m := &thinkparse.Meta{Attrs: arg&1 == 0, Confidence: float64(arg%10) / 10}
			if arg&2 == 0 {
				m.ThoughtType = []byte("reflection")
			}
			add(fmt.Sprintf("ThinkingStart %+v", *m), func(e *Emitter) { e.ThinkingStart(m) })
		case 3, 4:
			s := []byte(callThinkingTexts[arg%len(callThinkingTexts)])
			add("Thinking "+strconv.Quote(string(s)), func(e *Emitter) { e.Thinking(s) })
		case 5:
			add("ThinkingEnd", func(e *Emitter) { e.ThinkingEnd() })
		case 6:
			o := []Origin{OriginGemini, OriginAmazonQ}[arg&1]
			s := []byte(strconv.Itoa(arg))
			add(fmt.Sprintf("Signature %c %s", o, s), func(e *Emitter) { e.Signature(o, s) })
		case 7:
			id := "toolu_" + strconv.Itoa(arg)
			frag = 0
			add("ToolUseStart "+id, func(e *Emitter) { e.ToolUseStart(id, "tool") })
		case 8:
			s := []byte(callFragments[frag%len(callFragments)])
			frag++
			add("ToolInput "+string(s), func(e *Emitter) { e.ToolInput(s) })
		case 9:
			s := []byte(callRawBlocks[arg%len(callRawBlocks)])
			add("RawBlockStart "+string(s), func(e *Emitter) { e.RawBlockStart(s) })
		case 10:
			if arg&1 == 0 {
				add("CloseBlock", func(e *Emitter) { e.CloseBlock() })
			} else {
				add("Ping", func(e *Emitter) { e.Ping() })
			}
		}
	}
	c.failed = next()%5 == 1
	if c.failed {
		add("Fail", func(e *Emitter) { e.Fail("api_error", "boom") })
	} else {
		add("Finish", func(e *Emitter) { e.Finish("end_turn", "", endUsage) })
	}
	return c
}

// check runs the calls on a streaming emitter and a collector: the stream
// must satisfy the grammar and accumulate in the SDK, every gateway
// signature must open against the text the client holds, and collect mode
// must build the message the SDK accumulates.
func (c *emitterCalls) check(t *testing.T) {
	defer func() {
		if t.Failed() {
			t.Logf("form %d, signed %v, calls:\n%s", c.form, c.signer != nil, strings.Join(c.trace, "\n"))
		}
	}()
	e, col := NewEmitter(c.form, c.signer), NewCollector(c.form, c.signer)
	for _, em := range []*Emitter{e, col} {
		startMessage(em)
		for _, op := range c.ops {
			op(em)
		}
	}
	checkGrammar(t, e.Events(), c.signer != nil && c.form == FormThinking, c.form)
	msg, err := sdkAccumulate(e.Events())
	if c.failed != (err != nil) {
		t.Fatalf("SDK error %v", err)
	}
	for i, b := range msg.Content {
		if b.Type != "thinking" || c.signer == nil {
			continue
		}
		origin, _, ok := c.signer.Open(b.Signature, b.Thinking)
		if !ok || (origin != OriginTags && origin != OriginGemini && origin != OriginAmazonQ) {
			t.Fatalf("block %d: signature %q does not open (%q, %v)", i, b.Signature, origin, ok)
		}
	}
	collected := col.MessageJSON()
	if c.failed {
		if ce := col.CollectError(); ce == nil || ce.Message != "boom" {
			t.Fatalf("CollectError() = %v", ce)
		}
		return
	}
	if !golden.EqualJSON(t, normalizeMessage(t, []byte(msg.RawJSON())), normalizeMessage(t, collected)) {
		t.Fatalf("collected message differs from the accumulated stream:\ncollected   %s\naccumulated %s", collected, msg.RawJSON())
	}
}

// TestEmitterRandomCalls checks random call sequences (see emitterCalls.check).
func TestEmitterRandomCalls(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 7))
	for i := range 2000 {
		data := make([]byte, 1+2*r.IntN(30)+1)
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		c := newEmitterCalls(data)
		t.Run(strconv.Itoa(i), c.check)
		if t.Failed() {
			return
		}
	}
}

// FuzzEmitterCalls: any call sequence gives a well-formed stream that the SDK
// accumulates into the message collect mode builds.
func FuzzEmitterCalls(f *testing.F) {
	f.Add([]byte{2, 0, 1, 2, 0, 3, 1, 6, 0, 3, 2, 5, 0, 0, 4, 0})
	f.Add([]byte{0, 7, 1, 8, 0, 8, 0, 8, 0, 8, 0, 9, 0, 10, 1, 0})
	f.Add([]byte{7, 3, 6, 3, 11, 3, 12, 0, 2, 3, 6, 1})
	f.Add([]byte{1, 2, 1, 3, 3, 0, 0, 5, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		newEmitterCalls(data).check(t)
	})
}

var (
	benchText     = []byte("The quick brown fox jumps over the lazy dog; \"quoted\" <b>bold</b> & ünïcödé.\n")
	benchThinking = []byte("Let me reconsider the constraints: x < 10 && y > 2, so the answer is 7.\n")
)

// In the steady state a delta costs no allocation: the buffers have grown
// and the caller truncates Buf after each write.
func TestEmitterSteadyStateAllocs(t *testing.T) {
	e := NewEmitter(FormThinking, NewSigner(testKey))
	startMessage(e)
	e.Text(benchText)
	if a := testing.AllocsPerRun(1000, func() {
		e.Text(benchText)
		e.Flush()
	}); a != 0 {
		t.Errorf("Text: %v allocs per delta", a)
	}
	e.ThinkingStart(nil)
	e.Thinking(benchThinking)
	if a := testing.AllocsPerRun(1000, func() {
		e.Thinking(benchThinking)
		e.Flush()
	}); a != 0 {
		t.Errorf("Thinking: %v allocs per delta", a)
	}
	// Switching blocks costs nothing either, except that closing a signed
	// thinking block costs one small allocation in blockMAC.appendSignature
	// (its length/origin scratch escapes through hash.Hash.Write): per
	// block, not per delta.
	for _, tc := range []struct {
		form   BlockForm
		signer *Signer
		allocs float64
	}{{FormThinking, nil, 0}, {FormText, NewSigner(testKey), 0}, {FormThinking, NewSigner(testKey), 1}} {
		e := NewEmitter(tc.form, tc.signer)
		startMessage(e)
		cycle := func() {
			e.Text(benchText)
			e.ThinkingStart(nil)
			e.Thinking(benchThinking)
			e.Thinking(benchThinking)
			e.ThinkingEnd()
			e.Text(benchText)
			e.Flush()
		}
		cycle()
		if a := testing.AllocsPerRun(1000, cycle); a > tc.allocs {
			t.Errorf("form %d, signed %v: %v allocs per text/thinking/text cycle, want %v", tc.form, tc.signer != nil, a, tc.allocs)
		}
	}
}

func BenchmarkEmitterText(b *testing.B) {
	e := NewEmitter(FormThinking, nil)
	startMessage(e)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		e.Text(benchText)
		e.Flush()
	}
}

func BenchmarkEmitterThinking(b *testing.B) {
	e := NewEmitter(FormThinking, NewSigner(testKey))
	startMessage(e)
	e.ThinkingStart(nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchThinking)))
	for b.Loop() {
		e.Thinking(benchThinking)
		e.Flush()
	}
}
