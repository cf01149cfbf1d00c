package caddymodule

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers"
)

// countingReader counts the reads of a client body.
type countingReader struct {
	r           io.Reader
	reads, eofs int
	bytes       int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.reads++
	c.bytes += n
	if err == io.EOF {
		c.eofs++
	}
	return n, err
}

func (c *countingReader) Close() error { return nil }

// messagesRequest is a Caddy-prepared POST /v1/messages whose body counts
// its reads.
func messagesRequest(t *testing.T, body string) (*http.Request, *countingReader) {
	t.Helper()
	cr := &countingReader{r: strings.NewReader(body)}
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	r.Body = cr
	r.ContentLength = -1
	r.Header.Set("Content-Type", "application/json")
	r = caddyhttp.PrepareRequest(r, caddy.NewReplacer(), httptest.NewRecorder(), &caddyhttp.Server{})
	return r, cr
}

func provisionedMatcher(t *testing.T, caddyfileText string) *MatchMessages {
	t.Helper()
	m := new(MatchMessages)
	if err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(caddyfileText)); err != nil {
		t.Fatal(err)
	}
	if err := m.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMatchersReadTheBodyOnce: several matchers and the handler after them
// read the client's body once and share one parse; the body the handler
// converts and the one left for the next handler are the client's bytes.
func TestMatchersReadTheBodyOnce(t *testing.T) {
	body := `{"model":"claude-haiku-4-5","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	r, cr := messagesRequest(t, body)
	matchers := []*MatchMessages{
		provisionedMatcher(t, "thinkgate model claude-opus-*"),
		provisionedMatcher(t, "thinkgate {\n stream on\n max_input_tokens 1000\n}"),
		provisionedMatcher(t, "thinkgate model claude-haiku-*"),
	}
	var got []bool
	for _, m := range matchers {
		ok, err := m.MatchWithError(r)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ok)
	}
	if want := []bool{false, true, true}; !equalBools(got, want) {
		t.Errorf("matches %v, want %v", got, want)
	}
	p := ParsedRequestOf(r)
	if p == nil || p.Request.Model != "claude-haiku-4-5" {
		t.Fatalf("no shared parse after the matchers: %+v", p)
	}

	h := splitHandler()
	h.logger, h.MaxRequestBody, h.RequestBodyTimeout = zap.NewNop(), defaultMaxRequestBody, caddy.Duration(defaultRequestBodyTimeout)
	var sent []byte
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		sent, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, err := io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
		return err
	})
	if err := h.ServeHTTP(httptest.NewRecorder(), r, next); err != nil {
		t.Fatal(err)
	}
	if cr.eofs != 1 || cr.bytes != len(body) {
		t.Errorf("the client body was read to its end %d times (%d bytes in %d reads), want once", cr.eofs, cr.bytes, cr.reads)
	}
	if q, _ := caddyhttp.GetVar(r.Context(), ParsedRequestVar).(*ParsedRequest); q != p {
		t.Errorf("the handler parsed again instead of taking the matchers' parse")
	}
	var up map[string]any
	if err := json.Unmarshal(sent, &up); err != nil || up["model"] != "claude-haiku-4-5" {
		t.Errorf("upstream body %s (%v)", sent, err)
	}
}

// TestMatcherLeavesTheBodyReplayable: without a thinkgate handler after
// it, the next handler reads the client's bytes, with their length.
func TestMatcherLeavesTheBodyReplayable(t *testing.T) {
	body := `{"model":"m","messages":[]}`
	r, _ := messagesRequest(t, body)
	if ok, _ := provisionedMatcher(t, "thinkgate model m").MatchWithError(r); !ok {
		t.Fatal("no match")
	}
	got, _ := io.ReadAll(r.Body)
	if string(got) != body || r.ContentLength != int64(len(body)) {
		t.Errorf("replayed %q (length %d), want %q", got, r.ContentLength, body)
	}
	rc, err := r.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := io.ReadAll(rc); string(again) != body {
		t.Errorf("GetBody gave %q", again)
	}
}

// TestMatcherBodyBound: past its max_request_body the matcher matches
// nothing, and the handler answers 413 naming that bound.
func TestMatcherBodyBound(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`
	r, _ := messagesRequest(t, body)
	if ok, _ := provisionedMatcher(t, "thinkgate {\n max_request_body 100B\n}").MatchWithError(r); ok {
		t.Fatal("an oversized body matched")
	}
	h := splitHandler()
	h.logger, h.MaxRequestBody, h.RequestBodyTimeout = zap.NewNop(), defaultMaxRequestBody, caddy.Duration(defaultRequestBodyTimeout)
	w := httptest.NewRecorder()
	_ = h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
		t.Error("next ran")
		return nil
	}))
	if want := `{"type":"error","error":{"type":"request_too_large","message":"request body exceeds the 100-byte limit"}}`; w.Code != 413 || w.Body.String() != want {
		t.Errorf("%d %s\nwant 413 %s", w.Code, w.Body, want)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMatcherCaddyfile(t *testing.T) {
	m := new(MatchMessages)
	err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`thinkgate model claude-haiku-* {
		model gpt-*
		thinking off
		default_thinking off
		min_input_tokens 100
		max_input_tokens 60000
		tool web_search_* get_weather
		image
		document off
		stream on
		client alice ci-*
		max_request_body 1MiB
		request_body_timeout 2s
	}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(m)
	want := `{"model":["claude-haiku-*","gpt-*"],"thinking":false,"default_thinking":false,"min_input_tokens":100,"max_input_tokens":60000,"tool":["web_search_*","get_weather"],"image":true,"document":false,"stream":true,"client":["alice","ci-*"],"max_request_body":1048576,"request_body_timeout":2000000000}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, c := range []struct{ input, want string }{
		{"thinkgate {\n modle x\n}", "thinkgate matcher: unknown condition 'modle' (did you mean 'model'?); the conditions are model, thinking, default_thinking, min_input_tokens, max_input_tokens, tool, image, document, stream, client, max_request_body, request_body_timeout"},
		{"thinkgate {\n model\n}", "wrong argument count or unexpected line ending after 'model'"},
		{"thinkgate {\n model [\n}", `model: bad pattern "["`},
		{"thinkgate {\n thinking\n}", "wrong argument count or unexpected line ending after 'thinking'"},
		{"thinkgate {\n stream maybe\n}", `stream: expected on or off, got "maybe"`},
		{"thinkgate {\n min_input_tokens many\n}", `min_input_tokens: "many" is not a positive whole number of tokens`},
		{"thinkgate {\n max_request_body 0\n}", "max_request_body: must be positive"},
		{"thinkgate {\n request_body_timeout soon\n}", `request_body_timeout: "soon" is not a positive duration; write e.g. 30s or 2m`},
	} {
		err := new(MatchMessages).UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.input, err, c.want)
		}
	}
	bad := &MatchMessages{MinInputTokens: 10, MaxInputTokens: 5}
	if err := bad.Validate(); err == nil || err.Error() != "min_input_tokens: 10 is more than max_input_tokens 5, so nothing would match" {
		t.Errorf("Validate: %v", err)
	}
}

// TestReplayAfterAHandler: after a handler converted the request (its
// provider edits the parse), Replay gives the next matcher and handler the
// client's body, read no more, and a fresh parse of it.
func TestReplayAfterAHandler(t *testing.T) {
	body := `{"model":"claude-haiku-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	r, cr := messagesRequest(t, body)
	haiku := provisionedMatcher(t, "thinkgate model claude-haiku-*")
	h := splitHandler()
	h.logger, h.MaxRequestBody, h.RequestBodyTimeout = zap.NewNop(), defaultMaxRequestBody, caddy.Duration(defaultRequestBodyTimeout)
	h.settings.Models = []providers.ModelRule{{From: "claude-*", To: "upstream-model"}}
	var sent []string
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		sent = append(sent, string(b))
		w.Header().Set("Content-Type", "application/json")
		_, err := io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
		return err
	})
	for step := range 2 {
		if ok, _ := haiku.MatchWithError(r); !ok {
			t.Fatalf("step %d: the client's model no longer matches", step)
		}
		if err := h.ServeHTTP(httptest.NewRecorder(), r, next); err != nil {
			t.Fatal(err)
		}
		p, _ := caddyhttp.GetVar(r.Context(), ParsedRequestVar).(*ParsedRequest)
		if ParsedRequestOf(r) != nil || p == nil {
			t.Fatalf("step %d: after the handler, the parse is still taken for the converted body", step)
		}
		p.Replay(r)
	}
	want := `{"max_tokens":10,"messages":[{"role":"user","content":"hi"}],"model":"upstream-model"}`
	if len(sent) != 2 || sent[0] != want || sent[1] != want {
		t.Errorf("upstream bodies %q, want twice %s", sent, want)
	}
	if cr.eofs != 1 {
		t.Errorf("the client body was read %d times", cr.eofs)
	}
}
