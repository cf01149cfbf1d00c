package providers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/amazonq"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/azure"
	"github.com/thinkgate/thinkgate/providers/bedrock/converse"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/gemini"
	"github.com/thinkgate/thinkgate/providers/openai"
	"github.com/thinkgate/thinkgate/providers/responses"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// claudeCodeRequest builds a request shaped like a long Claude Code
// session, of about size bytes: a large cached system prompt, a dozen tools
// with JSON Schemas, and a history of tool loops, each an assistant turn of
// gateway-signed thinking, text and a tool_use, and a user turn with the
// tool's output (source code: quotes, backslashes, newlines, non-ASCII).
// A nil signer gives the thinking Anthropic-shaped signatures instead.
func claudeCodeRequest(signer *emit.Signer, size int) []byte {
	type obj = map[string]any
	var tools []any
	for i := 0; i < 12; i++ {
		tools = append(tools, obj{
			"name":        fmt.Sprintf("tool_%d", i),
			"description": strings.Repeat("Runs a command and returns its output. ", 20),
			"input_schema": obj{
				"type": "object", "$schema": "http://json-schema.org/draft-07/schema#", "additionalProperties": false,
				"properties": obj{
					"command":     obj{"type": "string", "description": "The command to run"},
					"timeout":     obj{"type": "number", "description": "Milliseconds"},
					"description": obj{"type": "string"},
				},
				"required": []string{"command"},
			},
		})
	}
	code := strings.Repeat("func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n", 80)
	req := obj{
		"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": true,
		"thinking": obj{"type": "enabled", "budget_tokens": 16000},
		"metadata": obj{"user_id": `{"device_id":"d41d8cd98f00b204","account_uuid":"","session_id":"7c2a6a34-1b0e-4d7e-9c39-2f5e3b1d9a10"}`},
		"system": []any{
			obj{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."},
			obj{"type": "text", "text": strings.Repeat("Follow the instructions. Use the tools. ", 400), "cache_control": obj{"type": "ephemeral"}},
		},
		"tools": tools,
	}
	msgs := []any{obj{"role": "user", "content": []any{obj{"type": "text", "text": "Fix the failing test in ./pkg."}}}}
	n := 20000
	for i := 0; n < size; i++ {
		thinking := fmt.Sprintf("Step %d: ", i) + strings.Repeat("I should look at the file and then run the tests again. ", 24)
		id := fmt.Sprintf("toolu_%024d", i)
		// Without a signer the thinking carries a signature of Anthropic's
		// shape: a history the passthrough has nothing to change in.
		sig := "EqQBCkgIARABGAIiQL" + strings.Repeat("x7Qm", 60) + fmt.Sprintf("%08d", i)
		if signer != nil {
			sig = signer.Sign(emit.OriginTags, "", thinking)
		}
		assistant := obj{"role": "assistant", "content": []any{
			obj{"type": "thinking", "thinking": thinking, "signature": sig},
			obj{"type": "text", "text": "Let me read the file."},
			obj{"type": "tool_use", "id": id, "name": "tool_1", "input": obj{"command": fmt.Sprintf("cat pkg/file_%d.go", i), "timeout": 120000}},
		}}
		user := obj{"role": "user", "content": []any{
			obj{"type": "tool_result", "tool_use_id": id, "content": code},
		}}
		if i%8 == 7 {
			user["content"] = append(user["content"].([]any), obj{"type": "text", "text": "Go on.", "cache_control": obj{"type": "ephemeral"}})
		}
		msgs = append(msgs, assistant, user)
		b, _ := json.Marshal(assistant)
		c, _ := json.Marshal(user)
		n += len(b) + len(c)
	}
	req["messages"] = msgs
	body, _ := json.Marshal(req)
	return body
}

// heapObjects is the heap's live-and-not-yet-swept object bytes, read
// without stopping the world.
func heapObjects(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakHeap runs f while sampling the heap and returns f's peak above the
// heap before it (with the GC running as usual, so this is what a request
// holds at its worst, garbage not yet collected included).
func peakHeap(f func()) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	base := heapObjects(s)
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Microsecond)
		defer t.Stop()
		for {
			if h := heapObjects(s); h > base && h-base > peak.Load() {
				peak.Store(h - base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	if h := heapObjects(s); h > base && h-base > peak.Load() {
		peak.Store(h - base)
	}
	close(done)
	<-sampled
	return peak.Load()
}

// memoryProviders are the conversions BenchmarkRequestMemory measures,
// after ParseRequest alone ("parse") and ScanRequest alone ("scan", the
// thinkgate matcher's read).
func memoryProviders() []struct {
	name string
	p    providers.Provider
} {
	return []struct {
		name string
		p    providers.Provider
	}{
		{"parse", nil},
		{"scan", nil},
		{"anthropic", anthropic.New(anthropic.Config{APIKey: "k"})},
		{"azure", azure.New(azure.Config{APIKey: "k"})},
		{"openai", openai.New(openai.Config{APIKey: "k"})},
		{"responses", responses.New(responses.Config{APIKey: "k"})},
		{"gemini", gemini.New(gemini.Config{APIKey: "k"})},
		{"amazonq", amazonq.New(amazonq.Config{APIKey: "k"})},
		{"converse", converseProvider{}},
	}
}

// converseProvider runs the Bedrock Converse conversion as the bedrock
// provider does for a Converse model (its Rewrite also signs, which needs
// credentials). vertex converts with gemini's converter or anthropic's
// rewrite, and bedrock's InvokeModel with anthropic's: their rows are
// those.
type converseProvider struct{}

func (converseProvider) ScansRequest() bool { return true }

func (converseProvider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	body, st, err := converse.ConvertRequest(x, converse.Options{}, nil)
	out.Body = body
	return converse.NewTranslator(x, st), err
}

// BenchmarkRequestMemory measures what one request costs in memory from
// its body to the upstream body: ParseRequest alone, then ParseRequest and
// each provider's conversion, for a 1 MB and a 30 MB Claude Code request
// and, at 30 MB, for each hostile shape of internal/requestshapes. Besides
// B/op it reports the sampled peak heap of one request (peak-MiB) and as a
// multiple of the body (peak-x). A request the provider refuses is logged
// with the peak until the refusal. Run with
//
//	go test ./providers/ -run '^$' -bench BenchmarkRequestMemory -benchtime 1x
//
// or one shape and provider, e.g. -bench 'BenchmarkRequestMemory/30MB/tiny_blocks/openai$'.
func BenchmarkRequestMemory(b *testing.B) {
	signer := emit.NewSigner([]byte("bench-signing-key"))
	type body struct {
		name string
		data func() []byte
	}
	bodies := []body{
		{"1MB", func() []byte { return claudeCodeRequest(signer, 1<<20) }},
		{"30MB", func() []byte { return claudeCodeRequest(signer, 30<<20) }},
	}
	for _, shape := range requestshapes.Shapes {
		bodies = append(bodies, body{"30MB/" + shape.Name, func() []byte { return shape.Build(30 << 20) }})
	}
	for _, bd := range bodies {
		var data []byte // built on first use: a filtered run builds only its own
		for _, c := range memoryProviders() {
			b.Run(bd.name+"/"+c.name, func(b *testing.B) {
				if data == nil {
					data = bd.data()
				}
				benchRequestMemory(b, signer, c.name, c.p, data)
			})
		}
	}
}

// benchRequestMemory runs one request of body through p's conversion (nil:
// ParseRequest only) b.N times.
func benchRequestMemory(b *testing.B, signer *emit.Signer, name string, p providers.Provider, body []byte) {
	s := &providers.Settings{SplitTags: true, DefaultThinking: true, Signer: signer,
		Models: []providers.ModelRule{{From: "claude-*", To: "gemini-2.5-pro"}}}
	if name == "converse" {
		s.Models = []providers.ModelRule{{From: "claude-*", To: "anthropic.claude-sonnet-4-5-20250929-v1:0"}}
	}
	var refused error
	run := func() (*providers.Exchange, *providers.Outbound) {
		var req *wire.Request
		var err error
		switch {
		case name == "scan":
			req, err = wire.ScanRequest(body)
		case p == nil:
			req, err = wire.ParseRequest(body)
		default:
			req, err = providers.ParseRequestFor(p, body)
		}
		if err != nil {
			b.Fatal(err)
		}
		x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: "/v1/messages"})
		out := &providers.Outbound{Path: x.Path, Header: http.Header{}}
		if p != nil {
			if _, err := p.Rewrite(x, out); err != nil {
				refused = err
			}
		}
		return x, out
	}
	var peak uint64
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var x *providers.Exchange
		var out *providers.Outbound
		if p := peakHeap(func() { x, out = run() }); p > peak {
			peak = p
		}
		runtime.KeepAlive(x)
		runtime.KeepAlive(out)
	}
	b.StopTimer()
	if refused != nil {
		msg := refused.Error()
		b.Logf("refused: %s", msg[:min(len(msg), 200)])
	}
	b.ReportMetric(float64(peak)/float64(len(body)), "peak-x")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}
