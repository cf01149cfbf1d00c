package vertex

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const geminiBody = `{"model":"gemini-2.5-pro","max_tokens":1024,"system":"Be brief.",` +
	`"tools":[{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],` +
	`"thinking":{"type":"enabled","budget_tokens":2048},` +
	`"messages":[{"role":"user","content":"Weather in Paris?"}]%s}`

func TestGeminiRequests(t *testing.T) {
	p, tokens := newTestProvider(Config{})
	cases := []struct {
		name, path, stream, wantPath, wantQuery string
	}{
		{"gemini_stream", "/v1/messages", `,"stream":true`,
			"/v1/projects/my-project/locations/us-east5/publishers/google/models/gemini-2.5-pro:streamGenerateContent", "alt=sse"},
		{"gemini_message", "/v1/messages", ``,
			"/v1/projects/my-project/locations/us-east5/publishers/google/models/gemini-2.5-pro:generateContent", ""},
		{"gemini_count_tokens", "/v1/messages/count_tokens", ``,
			"/v1/projects/my-project/locations/us-east5/publishers/google/models/gemini-2.5-pro:countTokens", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := rewrite(t, p, testSettings(), c.path, strings.Replace(geminiBody, "%s", c.stream, 1), clientHeader())
			if err != nil {
				t.Fatal(err)
			}
			if out.Path != c.wantPath || out.RawQuery != c.wantQuery {
				t.Errorf("target %s?%s, want %s?%s", out.Path, out.RawQuery, c.wantPath, c.wantQuery)
			}
			golden.JSON(t, "requests/"+c.name+".json", out.Body)
			want := http.Header{"Authorization": {"Bearer " + testToken}, "User-Agent": {"claude-cli/2.0"}}
			if !reflect.DeepEqual(out.Header, want) {
				t.Errorf("headers %v, want %v", out.Header, want)
			}
		})
	}
	if n := tokens.asked.Load(); n != 3 {
		t.Errorf("token asked %d times, want 3", n)
	}
}

const claudeBody = `{"model":"claude-sonnet-4-5@20250929","max_tokens":1024,` +
	`"thinking":{"type":"enabled","budget_tokens":2048},` +
	`"messages":[{"role":"user","content":"Hello"}]%s}`

func TestClaudeRequests(t *testing.T) {
	p, _ := newTestProvider(Config{Location: "global"})
	cases := []struct {
		name, path, stream, wantPath, wantBetas string
	}{
		{"claude_stream", "/v1/messages", `,"stream":true`,
			"/v1/projects/my-project/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
			"interleaved-thinking-2025-05-14,tool-search-tool-2025-10-19"},
		{"claude_message", "/v1/messages", ``,
			"/v1/projects/my-project/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict",
			"interleaved-thinking-2025-05-14,tool-search-tool-2025-10-19"},
		{"claude_count_tokens", "/v1/messages/count_tokens", ``,
			"/v1/projects/my-project/locations/global/publishers/anthropic/models/count-tokens:rawPredict",
			"interleaved-thinking-2025-05-14,tool-search-tool-2025-10-19"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := rewrite(t, p, testSettings(), c.path, strings.Replace(claudeBody, "%s", c.stream, 1), clientHeader())
			if err != nil {
				t.Fatal(err)
			}
			if out.Path != c.wantPath || out.RawQuery != "" {
				t.Errorf("target %s?%s, want %s", out.Path, out.RawQuery, c.wantPath)
			}
			golden.Bytes(t, "requests/"+c.name+".json", append(out.Body, '\n'))
			want := http.Header{
				"Authorization":     {"Bearer " + testToken},
				"Anthropic-Version": {"2023-06-01"},
				"Anthropic-Beta":    {c.wantBetas},
				"User-Agent":        {"claude-cli/2.0"},
			}
			if !reflect.DeepEqual(out.Header, want) {
				t.Errorf("headers %v, want %v", out.Header, want)
			}
		})
	}
}

// A mapped model name reaches the path, and the rule's client name never
// reaches Vertex.
func TestClaudeMappedModel(t *testing.T) {
	p, _ := newTestProvider(Config{})
	s := testSettings()
	s.Models = []providers.ModelRule{{From: "claude-sonnet-*", To: "claude-sonnet-4@20250514"}}
	out, _, err := rewrite(t, p, s, "/v1/messages", `{"model":"claude-sonnet-latest","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict"; out.Path != want {
		t.Errorf("path %s, want %s", out.Path, want)
	}
	if want := `{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`; string(out.Body) != want {
		t.Errorf("body %s\nwant %s", out.Body, want)
	}
}

func TestPublisher(t *testing.T) {
	for _, c := range []struct{ publisher, model, want string }{
		{"", "claude-opus-4-1@20250805", PublisherAnthropic},
		{"", "Claude-3-haiku", PublisherAnthropic},
		{"", "gemini-2.5-flash", PublisherGoogle},
		{"auto", "cla", PublisherGoogle},
		{"google", "claude-x", PublisherGoogle},
		{"anthropic", "gemini-2.5-pro", PublisherAnthropic},
	} {
		p, _ := newTestProvider(Config{Publisher: c.publisher})
		if got := p.PublisherFor(c.model); got != c.want {
			t.Errorf("publisher %q, model %q: %s, want %s", c.publisher, c.model, got, c.want)
		}
	}
}

// A model id that could leave its path segment is refused before any
// token is fetched.
func TestBadModelNames(t *testing.T) {
	p, tokens := newTestProvider(Config{})
	for _, c := range []struct{ model, want string }{
		{"claude-x/../../other", `model: "claude-x/../../other" is not a valid Vertex AI model id (letters, digits, '.', '_', '-' and '@' only)`},
		{"claude-x?alt=json", `model: "claude-x?alt=json" is not a valid Vertex AI model id (letters, digits, '.', '_', '-' and '@' only)`},
		{"claude..x", `model: "claude..x" is not a valid Vertex AI model id (letters, digits, '.', '_', '-' and '@' only)`},
		{"claude-x:rawPredict#", `model: "claude-x:rawPredict#" is not a valid Vertex AI model id (letters, digits, '.', '_', '-' and '@' only)`},
		{"gemini/../x", `model: "gemini/../x" is not a valid Gemini model name (letters, digits, '.', '_' and '-' only)`},
		{"gemini-2.5@x", `model: "gemini-2.5@x" is not a valid Gemini model name (letters, digits, '.', '_' and '-' only)`},
	} {
		_, _, err := rewrite(t, p, testSettings(), "/v1/messages", `{"model":"`+c.model+`","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, nil)
		e := wire.AsError(err)
		if e.Status != 400 || e.Type != "invalid_request_error" || e.Message != c.want {
			t.Errorf("%s: %d %s %q, want 400 invalid_request_error %q", c.model, e.Status, e.Type, e.Message, c.want)
		}
	}
	if n := tokens.asked.Load(); n != 0 {
		t.Errorf("token asked %d times for refused requests", n)
	}
}

// A token failure is the request's error, after the body was converted.
func TestTokenFailureIsTheRequestsError(t *testing.T) {
	p, tokens := newTestProvider(Config{})
	tokens.err = &wire.Error{Status: 502, Type: "api_error", Message: "vertex: the Google credential failed: x"}
	_, _, err := rewrite(t, p, testSettings(), "/v1/messages", `{"model":"gemini-2.5-pro","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, nil)
	if e := wire.AsError(err); e != tokens.err {
		t.Errorf("error %v, want the token's", err)
	}
}

func TestBetaFilter(t *testing.T) {
	for _, c := range []struct {
		name    string
		extra   []string
		count   bool
		in      []string
		want    []string
		removed []string
	}{
		{"keeps order, drops refused", nil, false,
			[]string{"interleaved-thinking-2025-05-14, claude-code-20250219", "context-1m-2025-08-07,Files-API-2025-04-14"},
			[]string{"interleaved-thinking-2025-05-14,context-1m-2025-08-07"},
			[]string{"claude-code-20250219", "Files-API-2025-04-14"}},
		{"renamed once", nil, false,
			[]string{"advanced-tool-use-2025-11-20,tool-search-tool-2025-10-19"},
			[]string{"tool-search-tool-2025-10-19"}, nil},
		{"all dropped: no header", nil, false,
			[]string{"oauth-2025-04-20", " , "}, nil, []string{"oauth-2025-04-20"}},
		{"web search kept for messages", nil, false,
			[]string{"web-search-2025-03-05"}, []string{"web-search-2025-03-05"}, nil},
		{"web search dropped for count_tokens", nil, true,
			[]string{"web-search-2025-03-05"}, nil, []string{"web-search-2025-03-05"}},
		{"drop_betas adds", []string{"context-1m-2025-08-07"}, false,
			[]string{"context-1m-2025-08-07,interleaved-thinking-2025-05-14"},
			[]string{"interleaved-thinking-2025-05-14"}, []string{"context-1m-2025-08-07"}},
		{"drop_betas *", []string{"*"}, false,
			[]string{"interleaved-thinking-2025-05-14"}, nil, []string{"interleaved-thinking-2025-05-14"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{"Anthropic-Beta": c.in}
			removed := newBetaFilter(c.extra).apply(h, c.count)
			if got := h.Values("Anthropic-Beta"); !reflect.DeepEqual(got, c.want) {
				t.Errorf("header %q, want %q", got, c.want)
			}
			if !reflect.DeepEqual(removed, c.removed) {
				t.Errorf("removed %q, want %q", removed, c.removed)
			}
		})
	}
}

func TestClaudeError(t *testing.T) {
	anthropicBody := `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"},"request_id":"req_vrtx_1"}`
	e := ClaudeError(400, nil, []byte(anthropicBody))
	if e.Status != 400 || string(e.Body()) != anthropicBody {
		t.Errorf("Anthropic error: %d %s, want it kept", e.Status, e.Body())
	}
	google := `{"error":{"code":403,"message":"Permission 'aiplatform.endpoints.predict' denied on resource","status":"PERMISSION_DENIED"}}`
	e = ClaudeError(403, nil, []byte(google))
	want := `{"type":"error","error":{"type":"permission_error","message":"Permission 'aiplatform.endpoints.predict' denied on resource"}}`
	if e.Status != 403 || string(e.Body()) != want {
		t.Errorf("Google error: %d %s\nwant 403 %s", e.Status, e.Body(), want)
	}
	e = ClaudeError(503, nil, []byte(`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`))
	if e.Status != 529 || e.Type != "overloaded_error" {
		t.Errorf("overloaded: %d %s, want 529 overloaded_error", e.Status, e.Type)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Project: "my-project", Location: "us-east5"}, ""},
		{Config{Project: "example.com:proj", Location: "global"}, ""},
		{Config{Project: "p/../q"}, `project: "p/../q" is not a Google Cloud project id (letters, digits, '-', '_', '.', ':')`},
		{Config{Project: "p?x"}, `project: "p?x" is not a Google Cloud project id (letters, digits, '-', '_', '.', ':')`},
		{Config{Location: "us-east5.evil.com"}, `location: "us-east5.evil.com" is not a Vertex AI location (lowercase letters, digits and '-', or global)`},
		{Config{Location: "US"}, `location: "US" is not a Vertex AI location (lowercase letters, digits and '-', or global)`},
		{Config{Publisher: "meta"}, `publisher: must be auto, google or anthropic, got "meta"`},
		{Config{TokenTimeout: "ten"}, `token_timeout: must be a positive duration such as 10s, got "ten"`},
		{Config{TokenTimeout: "-1s"}, `token_timeout: must be a positive duration such as 10s, got "-1s"`},
		{Config{DropBetas: []string{"a,b"}}, `drop_betas: "a,b" is not a single beta name`},
	} {
		err := c.cfg.Validate()
		if got := errText(err); got != c.want {
			t.Errorf("%+v: %q, want %q", c.cfg, got, c.want)
		}
	}
	if got := errText(Config{Location: "x"}.Required()); got != "project: required (the Google Cloud project id)" {
		t.Errorf("Required: %q", got)
	}
	if got := errText(Config{Project: "x"}.Required()); got != "location: required (a Vertex AI region such as us-east5, or global)" {
		t.Errorf("Required: %q", got)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestHost(t *testing.T) {
	for loc, want := range map[string]string{
		"global":       "aiplatform.googleapis.com",
		"us":           "aiplatform.us.rep.googleapis.com",
		"us-east5":     "us-east5-aiplatform.googleapis.com",
		"europe-west1": "europe-west1-aiplatform.googleapis.com",
	} {
		if got := Host(loc); got != want {
			t.Errorf("Host(%s) = %s, want %s", loc, got, want)
		}
	}
}

// TestGooglePublisherScans: with publisher google too, the handler reads a
// request with ScanRequest and the Gemini conversion never decodes its
// history, writing the body it writes for a request ParseRequest decoded.
func TestGooglePublisherScans(t *testing.T) {
	p, _ := newTestProvider(Config{Publisher: PublisherGoogle})
	body := []byte(strings.Replace(geminiBody, "%s", `,"stream":true`, 1))
	var bodies [2][]byte
	for i, read := range []func([]byte) (*wire.Request, error){
		func(b []byte) (*wire.Request, error) { return providers.ParseRequestFor(p, b) },
		wire.ParseRequest,
	} {
		req, err := read(body)
		if err != nil {
			t.Fatal(err)
		}
		x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
		out := &providers.Outbound{Path: "/v1/messages", Header: http.Header{}}
		if _, err := p.Rewrite(x, out); err != nil {
			t.Fatal(err)
		}
		if i == 0 && (!req.Scanned() || req.Messages != nil) {
			t.Error("the history was decoded")
		}
		bodies[i] = out.Body
	}
	if string(bodies[0]) != string(bodies[1]) || !strings.Contains(string(bodies[0]), `"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}]`) {
		t.Errorf("scanned %s\nparsed  %s", bodies[0], bodies[1])
	}
}
