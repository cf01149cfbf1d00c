// Package fuzzcheck holds the invariants every provider's fuzz targets check,
// so that each provider package states them once: a converter never panics,
// rejects bad input only with an Anthropic 4xx error, and otherwise produces
// a well-formed upstream request; a stream translator never panics and writes
// only well-formed events, whatever bytes and splits the upstream sends.
package fuzzcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Seeds are Anthropic requests of the shapes clients send, for f.Add.
var Seeds = []string{
	`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
	`{"model":"claude-x","max_tokens":100,"stream":true,"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],"thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig"},{"type":"text","text":"a"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"x"}],"is_error":true}]}],"tools":[{"name":"get_weather","description":"d","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}}],"tool_choice":{"type":"tool","name":"get_weather"},"metadata":{"user_id":"{\"session_id\":\"abc\"}"}}`,
	`{"model":"a/../b?c#d","max_tokens":1,"thinking":true,"messages":[{"role":"system","content":"s"},{"role":"user","content":"x"},{"role":"user","content":"y"}]}`,
	`{"model":"m","max_tokens":1,"thinking":{"type":"adaptive"},"context_management":{},"output_config":{"effort":"high"},"messages":[{"role":"assistant","content":[{"type":"redacted_thinking","data":""},{"type":"thinking","thinking":"x","signature":""}]},{"role":"user","content":[]}],"tools":[{"type":"custom","name":"n","input_schema":{"type":"object"},"defer_loading":true},{"type":"function","function":{"name":"f","parameters":{}}},{"type":"web_search_20250305","name":"web_search"}]}`,
}

// Rewrite runs one request through p's converter and checks the result.
func Rewrite(t *testing.T, p providers.Provider, body []byte) {
	req, err := wire.ParseRequest(body)
	if err != nil {
		return
	}
	s := &providers.Settings{SplitTags: true, DefaultThinking: true, Signer: emit.NewSigner([]byte("k"))}
	x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	out := &providers.Outbound{Path: x.Path, Header: http.Header{"X-Api-Key": {"client"}}}
	if _, err := p.Rewrite(x, out); err != nil {
		var e *wire.Error
		if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
			t.Fatalf("Rewrite error is not an Anthropic 4xx error: %#v", err)
		}
		return
	}
	if len(out.Body) > 0 && !json.Valid(out.Body) {
		t.Fatalf("upstream body is not JSON: %q", out.Body)
	}
	if strings.Contains(out.Path, "..") || strings.ContainsAny(out.Path, "?#\r\n") || !strings.HasPrefix(out.Path, "/") {
		t.Fatalf("unsafe upstream path %q", out.Path)
	}
	for k, vs := range out.Header {
		for _, v := range vs {
			if strings.ContainsAny(k+v, "\r\n\x00") {
				t.Fatalf("header injection: %q: %q", k, v)
			}
		}
	}
}

// Stream feeds upstream bytes, as a 2xx text/event-stream response, to the
// stream translator p returns for a streaming request, in chunks whose
// sizes come from splits, then closes it, and checks that every event written is
// an SSE frame of exactly one event line and one data line (no CR, no LF
// inside either: an upstream must not be able to frame events of its own)
// whose data is JSON carrying the event's type.
func Stream(t *testing.T, p providers.Provider, upstream, splits []byte) {
	body := []byte(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	req, _ := wire.ParseRequest(body)
	s := &providers.Settings{SplitTags: true, DefaultThinking: true, Signer: emit.NewSigner([]byte("k"))}
	x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	tr, err := p.Rewrite(x, &providers.Outbound{Path: x.Path, Header: http.Header{}})
	if err != nil {
		t.Fatalf("Rewrite: %v", err)
	}
	newStream := tr.Handle(200, http.Header{"Content-Type": {"text/event-stream"}}).NewStream
	if newStream == nil {
		t.Fatal("a 2xx event stream is not translated as a stream")
	}
	var out []byte
	st := providertest.OpenStream(x, newStream, func(events []byte) { out = append(out, events...) }, 16<<10)
	for i := 0; len(upstream) > 0; i++ {
		n := len(upstream)
		if len(splits) > 0 {
			n = 1 + int(splits[i%len(splits)])%len(upstream)
		}
		err := st.Write(upstream[:n])
		upstream = upstream[n:]
		if err != nil {
			return
		}
	}
	_ = st.Close()
	for _, frame := range bytes.Split(out, []byte("\n\n")) {
		if len(frame) == 0 {
			continue
		}
		lines := bytes.Split(frame, []byte("\n"))
		if len(lines) != 2 || bytes.IndexByte(frame, '\r') >= 0 || !bytes.HasPrefix(lines[0], []byte("event: ")) || !bytes.HasPrefix(lines[1], []byte("data: ")) {
			t.Fatalf("malformed frame %q", frame)
		}
		var d struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(lines[1][len("data: "):], &d); err != nil || d.Type != string(lines[0][len("event: "):]) {
			t.Fatalf("frame data %q: %v", frame, err)
		}
	}
}

// Run is one stream translator under test, with the emitter it writes to.
type Run struct {
	Write func([]byte) error
	Close func() error
	Em    *emit.Emitter
}

// SameOutput feeds upstream, in chunks whose sizes come from splits, to two
// translators and fails unless they emit the same bytes after every chunk
// and return the same errors (ids the gateway makes up aside). It holds a
// translator's fast path to the general one.
func SameOutput(t *testing.T, upstream, splits []byte, a, b Run) {
	t.Helper()
	for i := 0; len(upstream) > 0; i++ {
		n := len(upstream)
		if len(splits) > 0 {
			n = 1 + int(splits[i%len(splits)])%len(upstream)
		}
		errA, errB := a.Write(upstream[:n]), b.Write(upstream[:n])
		upstream = upstream[n:]
		compare(t, "write", a, b, errA, errB)
		if errA != nil {
			return
		}
	}
	compare(t, "close", a, b, a.Close(), b.Close())
}

// generatedID matches the ids the gateway makes up (providers.NewID), which
// differ from run to run.
var generatedID = regexp.MustCompile(`"toolu_[0-9A-Za-z]{24}"`)

func compare(t *testing.T, step string, a, b Run, errA, errB error) {
	t.Helper()
	mask := func(p []byte) []byte { return generatedID.ReplaceAll(p, []byte(`"toolu_ID"`)) }
	if !bytes.Equal(mask(a.Em.Events()), mask(b.Em.Events())) {
		t.Fatalf("%s: the runs emitted different events:\n%s\n---- versus ----\n%s", step, a.Em.Events(), b.Em.Events())
	}
	if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
		t.Fatalf("%s: the runs returned different errors: %v versus %v", step, errA, errB)
	}
	a.Em.Flush()
	b.Em.Flush()
}

// AddSplits adds each upstream seed to f with a few ways of splitting it,
// for targets that take (upstream, splits).
func AddSplits(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s), []byte{5, 1, 17})
		f.Add([]byte(s), []byte{255})
	}
}

// EverySplit runs check on each input split into chunks of every size from
// 1 to maxChunk bytes.
func EverySplit(t *testing.T, inputs []string, maxChunk int, check func(t *testing.T, upstream, splits []byte)) {
	t.Helper()
	for _, s := range inputs {
		for n := 1; n <= min(len(s), maxChunk); n++ {
			check(t, []byte(s), []byte{byte(n - 1)})
		}
	}
}
