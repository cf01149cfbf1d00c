package vertex_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// slot is this package's Caddy slot.
const slot = testgw.SlotVertex

const prefix = "/v1/projects/my-project/locations/us-east5/publishers/"

// vertexSite is the thinkgate block for a key file, with extra options,
// in front of up.
func vertexSite(keyFile, extra string, up *testgw.Upstream) string {
	return fmt.Sprintf(`thinkgate vertex {
	project my-project
	location us-east5
	credentials_file %s
	model claude-sonnet-* claude-sonnet-4-5@20250929
%s
}
reverse_proxy %s`, keyFile, extra, up.Addr())
}

// mockVertex is a Vertex AI that refuses a request without the token the
// test endpoint issued first, and otherwise answers with h.
func mockVertex(t *testing.T, h http.HandlerFunc) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+googletest.Token(1) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`))
			return
		}
		h(w, r)
	})
}

func jsonAnswer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
}

func userParams(model, text string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))}}
}

// geminiSSE encodes Gemini chunks as Vertex's alt=sse stream does.
func geminiSSE(chunks ...string) []byte {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\r\n\r\n")
	}
	return []byte(b.String())
}

var geminiStream = geminiSSE(
	`{"candidates":[{"content":{"role":"model","parts":[{"text":"Counting the letters.","thought":true}]}}],"usageMetadata":{"promptTokenCount":9,"thoughtsTokenCount":5}}`,
	`{"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"CiQB0e2Kb8VGhvdWdodA=="},{"text":"A, B"}]}}]}`,
	`{"candidates":[{"content":{"role":"model","parts":[{"text":" and C."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":6,"thoughtsTokenCount":5}}`,
)

// TestGemini: a Gemini model on Vertex, streamed, whole and counted,
// through the SDK; Vertex sees its own paths and the access token, never
// the client's key.
func TestGemini(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	up := mockVertex(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case prefix + "google/models/gemini-2.5-flash:streamGenerateContent":
			testgw.WriteChunks(w, "text/event-stream", geminiStream, 11)
		case prefix + "google/models/gemini-2.5-flash:generateContent":
			jsonAnswer(`{"candidates":[{"content":{"role":"model","parts":[{"text":"A, B and C."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":6}}`)(w, r)
		case prefix + "google/models/gemini-2.5-flash:countTokens":
			jsonAnswer(`{"totalTokens":31,"totalBillableCharacters":80}`)(w, r)
		default:
			http.NotFound(w, r)
		}
	})
	gw := testgw.Start(t, slot, vertexSite(ts.WriteKeyFile(t), "", up))

	msg, types := gw.Stream(userParams("gemini-2.5-flash", "First three letters?"))
	testgw.Diff(t, "event types", types, []string{
		"message_start",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop",
	})
	if len(msg.Content) != 2 || msg.Content[0].Thinking != "Counting the letters." || msg.Content[1].Text != "A, B and C." ||
		msg.StopReason != "end_turn" || msg.Usage.InputTokens != 9 || msg.Usage.OutputTokens != 11 {
		t.Errorf("stream message: %s", msg.RawJSON())
	}
	last := up.Last(t)
	if last.RawQuery != "alt=sse" || last.Header.Get("X-Api-Key") != "" || last.Header.Get("Anthropic-Version") != "" {
		t.Errorf("stream request: ?%s %v", last.RawQuery, last.Header)
	}
	if want := `{"contents":[{"role":"user","parts":[{"text":"First three letters?"}]}],"generationConfig":{"maxOutputTokens":1024,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`; string(last.Body) != want {
		t.Errorf("stream body %s\nwant %s", last.Body, want)
	}

	client := gw.Client()
	m, err := client.Messages.New(context.Background(), userParams("gemini-2.5-flash", "First three letters?"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 1 || m.Content[0].Text != "A, B and C." || m.Usage.OutputTokens != 6 {
		t.Errorf("message: %s", m.RawJSON())
	}
	if q := up.Last(t).RawQuery; q != "" {
		t.Errorf("generateContent query %q", q)
	}

	n, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "gemini-2.5-flash",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("First three letters?"))}})
	if err != nil || n.InputTokens != 31 {
		t.Fatalf("count_tokens: %+v, %v", n, err)
	}
	if want := `{"contents":[{"role":"user","parts":[{"text":"First three letters?"}]}]}`; string(up.Last(t).Body) != want {
		t.Errorf("countTokens body %s\nwant %s", up.Last(t).Body, want)
	}
	if k := ts.Issued(); k != 1 {
		t.Errorf("%d tokens issued for three requests, want 1", k)
	}
	ts.Check(t)
}

// TestClaude: a Claude model on Vertex, streamed in small pieces, whole and
// counted; the body loses its model to the path and gains
// anthropic_version, and the betas Vertex refuses are gone.
func TestClaude(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	const text = "Vertex streams Claude's events as Anthropic does — déjà vu."
	up := mockVertex(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case prefix + "anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict":
			testgw.WriteChunks(w, "text/event-stream", testgw.AnthropicTextStream(text, 3), 7)
		case prefix + "anthropic/models/claude-sonnet-4-5@20250929:rawPredict":
			jsonAnswer(`{"id":"msg_vrtx_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Hi."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":8,"output_tokens":3}}`)(w, r)
		case prefix + "anthropic/models/count-tokens:rawPredict":
			jsonAnswer(`{"input_tokens":12}`)(w, r)
		default:
			http.NotFound(w, r)
		}
	})
	gw := testgw.Start(t, slot, vertexSite(ts.WriteKeyFile(t), "", up))
	beta := option.WithHeader("anthropic-beta", "interleaved-thinking-2025-05-14,claude-code-20250219,oauth-2025-04-20")

	msg, _ := gw.Stream(userParams("claude-sonnet-4-5", "hi"), beta)
	if len(msg.Content) != 1 || msg.Content[0].Text != text || msg.Usage.OutputTokens != 87 {
		t.Errorf("stream message: %s", msg.RawJSON())
	}
	last := up.Last(t)
	if want := `{"anthropic_version":"vertex-2023-10-16","max_tokens":1024,"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"}],"stream":true}`; string(last.Body) != want {
		t.Errorf("stream body %s\nwant %s", last.Body, want)
	}
	if got := last.Header.Values("Anthropic-Beta"); len(got) != 1 || got[0] != "interleaved-thinking-2025-05-14" {
		t.Errorf("anthropic-beta %q", got)
	}
	if last.RawQuery != "" || last.Header.Get("X-Api-Key") != "" {
		t.Errorf("stream request: ?%s %v", last.RawQuery, last.Header)
	}

	client := gw.Client()
	m, err := client.Messages.New(context.Background(), userParams("claude-sonnet-4-5", "hi"))
	if err != nil || len(m.Content) != 1 || m.Content[0].Text != "Hi." || m.ID != "msg_vrtx_1" {
		t.Fatalf("message: %v %v", m, err)
	}
	if want := `{"anthropic_version":"vertex-2023-10-16","max_tokens":1024,"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"}]}`; string(up.Last(t).Body) != want {
		t.Errorf("rawPredict body %s\nwant %s", up.Last(t).Body, want)
	}

	n, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "claude-sonnet-4-5",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	if err != nil || n.InputTokens != 12 {
		t.Fatalf("count_tokens: %+v, %v", n, err)
	}
	if want := `{"anthropic_version":"vertex-2023-10-16","messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"}],"model":"claude-sonnet-4-5@20250929"}`; string(up.Last(t).Body) != want {
		t.Errorf("count-tokens body %s\nwant %s", up.Last(t).Body, want)
	}
	if k := ts.Issued(); k != 1 {
		t.Errorf("%d tokens issued, want 1", k)
	}
	ts.Check(t)
}

// TestUpstreamErrors: Vertex's own errors (Google JSON) are mapped for both
// publishers; Claude's Anthropic-shaped ones reach the client whole.
func TestUpstreamErrors(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	denied := `{"error":{"code":403,"message":"Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/my-project/locations/us-east5/publishers/google/models/gemini-2.5-flash' (or it may not exist).","status":"PERMISSION_DENIED"}}`
	claudeErr := `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 999999 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929"},"request_id":"req_vrtx_011"}`
	up := mockVertex(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.URL.Path, "/publishers/google/") {
			w.WriteHeader(403)
			_, _ = w.Write([]byte(denied))
			return
		}
		w.WriteHeader(400)
		_, _ = w.Write([]byte(claudeErr))
	})
	gw := testgw.Start(t, slot, vertexSite(ts.WriteKeyFile(t), "", up))
	for _, c := range []struct {
		model  string
		status int
		want   string
	}{
		{"gemini-2.5-flash", 403, `{"type":"error","error":{"type":"permission_error","message":"Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/my-project/locations/us-east5/publishers/google/models/gemini-2.5-flash' (or it may not exist)."}}`},
		{"claude-sonnet-4-5", 400, claudeErr},
	} {
		for _, stream := range []string{"false", "true"} {
			res, body := gw.PostRead("/v1/messages", `{"model":"`+c.model+`","max_tokens":5,"stream":`+stream+`,"messages":[{"role":"user","content":"q"}]}`)
			if res.StatusCode != c.status || body != c.want {
				t.Errorf("%s stream %s: %d %s\nwant %d %s", c.model, stream, res.StatusCode, body, c.status, c.want)
			}
		}
	}
}

// TestCutStream: a Gemini stream cut mid-way ends with the open block
// closed and an error event; a Claude stream passes through as cut.
func TestCutStream(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	claudeStream := testgw.AnthropicTextStream("one two three four", 2)
	claudeCut := claudeStream[:len(claudeStream)/2]
	up := mockVertex(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		if strings.Contains(r.URL.Path, "/publishers/google/") {
			_, _ = w.Write(geminiStream[:len(geminiStream)/2])
		} else {
			_, _ = w.Write(claudeCut)
		}
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	})
	gw := testgw.Start(t, slot, vertexSite(ts.WriteKeyFile(t), "", up))
	res := gw.Post("/v1/messages", `{"model":"gemini-2.5-flash","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
	events := testgw.Summary(t, testgw.ReadEvents(t, res.Body))
	res.Body.Close()
	// The thinking's signature is the gateway's, made under a key of the
	// test's storage: its presence is what counts.
	for i, e := range events {
		if strings.HasPrefix(e, "signature_delta 0 ") {
			events[i] = "signature_delta 0"
		}
	}
	testgw.Diff(t, "events", events, []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 "Counting the letters."`,
		"signature_delta 0",
		"content_block_stop 0",
		`error {"type":"api_error","message":"upstream connection lost mid-stream"}`,
	})
	client := gw.Client()
	stream := client.Messages.NewStreaming(context.Background(), userParams("claude-sonnet-4-5", "q"))
	for stream.Next() {
	}
	if stream.Err() == nil {
		t.Error("the SDK saw no error in a cut Claude stream")
	}
	stream.Close()
}

// TestTokenFailure: when the credential fails, the client gets an
// Anthropic error that says so, quickly, and Vertex is not called.
func TestTokenFailure(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	up := mockVertex(t, jsonAnswer(`{}`))
	keyFile := ts.WriteKeyFile(t)
	req := `{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":"q"}]}`

	ts.Set(func(s *googletest.TokenServer) {
		s.FailStatus, s.FailBody = 400, `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`
	})
	gw := testgw.Start(t, slot, vertexSite(keyFile, "\ttoken_timeout 2s", up))
	res, body := gw.PostRead("/v1/messages", req)
	want := `{"type":"error","error":{"type":"authentication_error","message":"vertex: the Google credential failed: the token endpoint answered 400 invalid_grant: Invalid JWT Signature."}}`
	if res.StatusCode != 401 || body != want {
		t.Errorf("refused: %d %s\nwant 401 %s", res.StatusCode, body, want)
	}

	// The stalled endpoint would answer with a token: the error says the
	// wait was bounded.
	ts.Set(func(s *googletest.TokenServer) { s.FailStatus, s.Delay = 0, 6*time.Second })
	res, body = gw.PostRead("/v1/messages", req)
	want = `{"type":"error","error":{"type":"api_error","message":"vertex: the Google credential failed: no access token within 2s"}}`
	if res.StatusCode != 502 || body != want || res.Header.Get("X-Should-Retry") != "true" {
		t.Errorf("slow: %d %s %v\nwant 502 %s", res.StatusCode, body, res.Header, want)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("Vertex got %d requests without a token", n)
	}
}

// TestLoadErrors: a config that cannot work fails the load with the
// option's name.
func TestLoadErrors(t *testing.T) {
	site := func(body string) string {
		p := testgw.PortsFor(slot)
		return testgw.Preamble(p) + fmt.Sprintf("\nhttp://localhost:%d {\n%s\nrespond ok\n}\n", p.HTTP, body)
	}
	for _, c := range []struct{ block, want string }{
		{"thinkgate vertex {\n\tproject p\n\tlocation us-east5\n\tcredentials_file /nonexistent/key.json\n}",
			"credentials_file: open /nonexistent/key.json: no such file or directory"},
		{"thinkgate vertex {\n\tlocation us-east5\n}", "project: required (the Google Cloud project id)"},
		{"thinkgate vertex {\n\tproject p\n\tlocation us-east5/../x\n}", `location: "us-east5/../x" is not a Vertex AI location`},
		{"thinkgate vertex {\n\tproject p\n\tregion us-east5\n}", "thinkgate vertex: unknown option 'region'"},
	} {
		if got := testgw.LoadError(t, slot, site(c.block)); !strings.Contains(got, c.want) {
			t.Errorf("%q: %s\nwant it to contain %s", c.block, got, c.want)
		}
	}
}
