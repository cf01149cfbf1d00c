package converse

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// fuzzProvider runs the conversion as the bedrock provider does, for the
// invariants fuzzcheck holds every provider to.
type fuzzProvider struct{ opts Options }

func (p fuzzProvider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	body, st, err := ConvertRequest(x, p.opts, nil)
	if err != nil {
		return nil, err
	}
	out.Body = body
	return eventStreamAnswer{NewTranslator(x, st)}, nil
}

// eventStreamAnswer labels every 2xx answer as ConverseStream labels it.
type eventStreamAnswer struct{ providers.Translator }

func (t eventStreamAnswer) Handle(status int, header http.Header) providers.Handling {
	h := header.Clone()
	h.Set("Content-Type", EventStreamType)
	return t.Translator.Handle(status, h)
}

// FuzzConvertRequest: the request converter never panics, rejects input
// only with an Anthropic 4xx error, and otherwise builds a Converse body
// whose turns alternate, user first where the history allows, none empty.
func FuzzConvertRequest(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s))
	}
	signer := emit.NewSigner([]byte("k"))
	f.Add([]byte(`{"model":"us.anthropic.claude-x","max_tokens":9,"thinking":{"type":"enabled","budget_tokens":5000},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"t","signature":"` + signer.Sign(emit.OriginBedrock, "sig", "t") + `"},` +
		`{"type":"redacted_thinking","data":"` + signer.Sign(emit.OriginBedrock, "cmVk", "") + `"},` +
		`{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"x"}}]}]},` +
		`{"role":"user","content":[{"type":"document","source":{"type":"text","data":"d"},"cache_control":{"type":"ephemeral"}}]}],"tools":[{"name":"f","cache_control":{"type":"ephemeral"}}],"tool_choice":{"type":"none"}}`))
	f.Add([]byte(`{"model":"us.amazon.nova-2-lite-v1:0","max_tokens":100,"thinking":{"type":"enabled","budget_tokens":30000},"messages":[{"role":"assistant","content":"a"},{"role":"system","content":"s"},{"role":"assistant","content":[{"type":"text","text":""}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzcheck.Rewrite(t, fuzzProvider{}, body)
		req, err := wire.ParseRequest(body)
		if err != nil {
			return
		}
		x := providers.NewExchange(&providers.Settings{SplitTags: true, DefaultThinking: true, Signer: signer}, req, body, providers.ExchangeOptions{Path: "/v1/messages"})
		out, _, err := ConvertRequest(x, Options{}, nil)
		if err != nil {
			return
		}
		var conv struct {
			Messages []struct {
				Role    string            `json:"role"`
				Content []json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(out, &conv); err != nil {
			t.Fatalf("Converse body: %v: %s", err, out)
		}
		for i, m := range conv.Messages {
			if m.Role != "user" && m.Role != "assistant" {
				t.Fatalf("turn %d has role %q", i, m.Role)
			}
			if len(m.Content) == 0 {
				t.Fatalf("turn %d is empty: %s", i, out)
			}
			if i > 0 && conv.Messages[i-1].Role == m.Role {
				t.Fatalf("turns %d and %d are both %s: %s", i-1, i, m.Role, out)
			}
		}
	})
}

// FuzzStream: the stream translator never panics and writes only
// well-formed events, for any upstream bytes split anywhere.
func FuzzStream(f *testing.F) {
	f.Add(new(frames).start().reasoning(0, claudeSig, "a", "b").text(1, "x <thinking>y</thinking>").tool(2, "t", "f", `{"a":`, `1}`).
		redacted(3, "eA==").stop("tool_use").metadata(1, 2, 3, 4).bytes(), []byte{3, 1, 7})
	f.Add(new(frames).start().text(0, "cut").exception("modelStreamErrorException", "x").bytes(), []byte{5})
	f.Add(new(frames).exception("throttlingException", "slow").bytes(), []byte{})
	f.Add(new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 4, "delta": map[string]any{"reasoningContent": map[string]any{"signature": "s"}}}).stop("end_turn").bytes(), []byte{1})
	// Hostile frames: blocks interleaved around an open call, input for a
	// block never started, a corrupt CRC.
	f.Add(new(frames).start().event("contentBlockStart", map[string]any{"contentBlockIndex": 1, "start": map[string]any{"toolUse": map[string]any{"toolUseId": "t", "name": "f"}}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{"text": "r"}}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": 1, "delta": map[string]any{"toolUse": map[string]any{"input": "{"}}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": 2, "delta": map[string]any{"text": "t"}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{"signature": "s"}}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": 7, "delta": map[string]any{"toolUse": map[string]any{"input": "}"}}}).
		stop("end_turn").bytes(), []byte{2, 9})
	f.Add(corrupt(new(frames).start().text(0, "x").bytes(), 70), []byte{})
	f.Fuzz(func(t *testing.T, upstream, splits []byte) { fuzzcheck.Stream(t, fuzzProvider{}, upstream, splits) })
}

// FuzzMessage: the non-streaming converter never panics, and answers
// either a Message or an Anthropic error.
func FuzzMessage(f *testing.F) {
	f.Add([]byte(`{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"t","signature":"s"}}},{"reasoningContent":{"redactedContent":"eA=="}},{"text":"<thinking>a</thinking>b"},{"toolUse":{"toolUseId":"t","name":"f","input":{"a":1}}}]}},"stopReason":"tool_use","usage":{"inputTokens":1,"outputTokens":2}}`))
	f.Add([]byte(`{"message":"no","__type":"ValidationException"}`))
	f.Add(new(frames).start().text(0, "x").stop("end_turn").bytes())
	f.Fuzz(func(t *testing.T, body []byte) {
		s := &providers.Settings{SplitTags: true, DefaultThinking: true, Signer: emit.NewSigner([]byte("k"))}
		x := exchange(t, s, "", messageRequest)
		out, err := NewTranslator(x, nil).(*Translator).Message(body)
		if err != nil {
			if _, ok := err.(*wire.Error); !ok {
				t.Fatalf("error is not an Anthropic error: %#v", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Message is not JSON: %s", out)
		}
	})
}

// FuzzStreamFastPath: the delta fast path emits exactly what the general
// decoding emits, for any upstream bytes split anywhere.
func FuzzStreamFastPath(f *testing.F) {
	f.Add(new(frames).start().reasoning(0, claudeSig, "a\\u00e9", "b\n").text(1, "x <thinking>y</thinking>", "\xff\xfe").tool(2, "t", "f", `{"a":`, `1}`).
		stop("tool_use").metadata(1, 2, 3, 4).bytes(), []byte{3, 1, 7})
	f.Add(new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 1, "delta": map[string]any{"text": "a", "toolUse": map[string]any{"input": "{}"}}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": "2", "delta": map[string]any{"Text": "b"}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": 2, "delta": map[string]any{"toolUse": map[string]any{"input": "{}"}}}).bytes(), []byte{255})
	f.Add(new(frames).start().frame(map[string]string{":event-type": "contentBlockDelta", ":message-type": "event"}, []byte(`{"contentBlockIndex":0,"delta":{"text":"bad \q"}}`)).bytes(), []byte{9})
	f.Fuzz(func(t *testing.T, upstream, splits []byte) {
		run := func(general bool) fuzzcheck.Run {
			s := &providers.Settings{SplitTags: true, DefaultThinking: true, Signer: emit.NewSigner([]byte("k"))}
			x := exchange(t, s, "", streamRequest)
			em := emit.NewEmitter(s.Form, s.Signer)
			st := NewTranslator(x, nil).(*Translator).NewStream(em).(*StreamTranslator)
			st.general = general
			return fuzzcheck.Run{Write: st.Write, Close: st.Close, Em: em}
		}
		fuzzcheck.SameOutput(t, upstream, splits, run(false), run(true))
	})
}
