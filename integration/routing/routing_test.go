package routing_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// namedUpstream is an Anthropic-format upstream whose every answer says
// its name: "from <name>", streamed when the request asks for a stream.
func namedUpstream(t *testing.T, name string) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"input_tokens":7}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			testgw.WriteChunks(w, "text/event-stream", testgw.AnthropicTextStream("from "+name, 4), 64)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_up1","type":"message","role":"assistant","model":"up-model","content":[{"type":"text","text":"from %s"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":3}}`, name)
	})
}

// route is a handle block: a matcher's conditions and the upstream that
// its thinkgate anthropic handler sends to.
type route struct {
	name, conditions string
}

// routedSite is a site of handle blocks tried in order, each with its own
// named upstream, and a last one without a matcher (upstream "default").
// It returns the upstreams by name.
func routedSite(t *testing.T, routes []route) (string, map[string]*testgw.Upstream) {
	ups := map[string]*testgw.Upstream{}
	var b strings.Builder
	for _, r := range routes {
		ups[r.name] = namedUpstream(t, r.name)
		fmt.Fprintf(&b, "@%s {\n%s\n}\nhandle @%s {\n\tthinkgate anthropic {\n\t\tsigning_key test-signing-key\n\t}\n\treverse_proxy %s\n}\n",
			r.name, r.conditions, r.name, ups[r.name].Addr())
	}
	ups["default"] = namedUpstream(t, "default")
	fmt.Fprintf(&b, "handle {\n\tthinkgate anthropic {\n\t\tsigning_key test-signing-key\n\t}\n\treverse_proxy %s\n}\n", ups["default"].Addr())
	return b.String(), ups
}

// sent checks that of all the upstreams exactly want received one request
// since counts were taken, at path, with exactly body.
func sent(t *testing.T, ups map[string]*testgw.Upstream, counts map[string]int, want, path, body string) {
	t.Helper()
	for name, u := range ups {
		got := len(u.Requests()) - counts[name]
		switch {
		case name == want && got != 1:
			t.Errorf("upstream %s received %d requests, want 1", name, got)
		case name != want && got != 0:
			t.Errorf("upstream %s received %d requests, want none (%s should have)", name, got, want)
		}
	}
	if u := ups[want]; u != nil && len(u.Requests()) > counts[want] {
		c := u.Last(t)
		if c.Path != path || string(c.Body) != body {
			t.Errorf("upstream %s got %s %s\n%s\nwant %s\n%s", want, c.Method, c.Path, c.Body, path, body)
		}
	}
}

func counts(ups map[string]*testgw.Upstream) map[string]int {
	c := map[string]int{}
	for name, u := range ups {
		c[name] = len(u.Requests())
	}
	return c
}

// ask sends body through the official SDK, byte for byte, streamed when
// the body asks for a stream, and returns the accumulated message's text.
func ask(t *testing.T, gw *testgw.Gateway, body string, opts ...option.RequestOption) string {
	t.Helper()
	opts = append(opts, option.WithRequestBody("application/json", []byte(body)))
	if strings.Contains(body, `"stream":true`) {
		msg, _ := gw.Stream(anthropic.MessageNewParams{}, opts...)
		return text(msg)
	}
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{}, opts...)
	if err != nil {
		t.Fatalf("Messages.New: %v", err)
	}
	return text(*msg)
}

func text(m anthropic.Message) string {
	var s []string
	for _, b := range m.Content {
		s = append(s, b.Type+": "+b.Text)
	}
	return strings.Join(s, " | ")
}

const user = `"messages":[{"role":"user","content":"Which route?"}]`

// TestMatcherConditions: each condition of the thinkgate matcher, matched
// and not matched, sends the request to its own upstream, which gets the
// client's body byte for byte; the SDK accumulates every answer.
func TestMatcherConditions(t *testing.T) {
	site, ups := routedSite(t, []route{
		{"haiku", "\tthinkgate model claude-haiku-* claude-3-5-haiku-*"},
		{"search", "\tthinkgate tool web_search_*"},
		{"vision", "\tthinkgate image"},
		{"doc", "\tthinkgate document"},
		{"long", "\tthinkgate min_input_tokens 2000"},
		{"short", "\tthinkgate {\n\t\tmax_input_tokens 20\n\t\tmodel tiny-*\n\t}"},
		{"think", "\tthinkgate {\n\t\tthinking on\n\t\tdefault_thinking off\n\t}"},
		{"stream", "\tthinkgate stream on"},
	})
	gw := testgw.Start(t, testgw.SlotRouting, site)
	long := strings.Repeat("All work and no play. ", 300) // 6,600 bytes: over 2,000 tokens
	for _, c := range []struct {
		name, body, upstream string
	}{
		{"model matches a glob", `{"model":"claude-haiku-4-5","max_tokens":10,` + user + `}`, "haiku"},
		{"model matches the second glob", `{"model":"claude-3-5-haiku-20241022","max_tokens":10,` + user + `}`, "haiku"},
		{"model matches no glob", `{"model":"claude-sonnet-4-5","max_tokens":10,` + user + `}`, "default"},
		{"a server tool's type", `{"model":"m","max_tokens":10,"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":3}],` + user + `}`, "search"},
		{"a client tool of another name", `{"model":"m","max_tokens":10,"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],` + user + `}`, "default"},
		{"an image block", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}},{"type":"text","text":"What is this?"}]}]}`, "vision"},
		{"an image in a tool result", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}]}]}`, "vision"},
		{"a document block", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"A short note."}},{"type":"text","text":"Summarise."}]}]}`, "doc"},
		{"a long input", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"` + long + `"}]}`, "long"},
		{"a short input of the model", `{"model":"tiny-1","max_tokens":10,` + user + `}`, "short"},
		{"a longer input of the model", `{"model":"tiny-1","max_tokens":10,"messages":[{"role":"user","content":"` + strings.Repeat("word ", 30) + `"}]}`, "default"},
		{"thinking enabled", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},` + user + `}`, "think"},
		// Adaptive leaves thinking to the model: default_thinking off decides it.
		{"thinking adaptive, default_thinking off", `{"model":"m","max_tokens":2000,"thinking":{"type":"adaptive"},` + user + `}`, "default"},
		{"thinking disabled", `{"model":"m","max_tokens":10,"thinking":{"type":"disabled"},` + user + `}`, "default"},
		{"thinking absent, default_thinking off", `{"model":"m","max_tokens":10,` + user + `}`, "default"},
		{"a stream", `{"model":"m","max_tokens":10,"stream":true,` + user + `}`, "stream"},
		{"stream false", `{"model":"m","max_tokens":10,"stream":false,` + user + `}`, "default"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := counts(ups)
			got := ask(t, gw, c.body)
			if want := "text: from " + c.upstream; got != want {
				t.Errorf("answer %q, want %q", got, want)
			}
			sent(t, ups, before, c.upstream, "/v1/messages", c.body)
		})
	}
}

// TestMatcherCountTokens: count_tokens requests are matched like messages
// (and never as a stream), and go to the same upstream's count_tokens.
func TestMatcherCountTokens(t *testing.T) {
	site, ups := routedSite(t, []route{
		{"haiku", "\tthinkgate model claude-haiku-*"},
		{"stream", "\tthinkgate stream on"},
	})
	gw := testgw.Start(t, testgw.SlotRouting, site)
	for _, c := range []struct{ body, upstream string }{
		{`{"model":"claude-haiku-4-5",` + user + `}`, "haiku"},
		{`{"model":"m","stream":true,` + user + `}`, "default"},
	} {
		before := counts(ups)
		client := gw.Client()
		res, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{},
			option.WithRequestBody("application/json", []byte(c.body)))
		if err != nil {
			t.Fatal(err)
		}
		if res.InputTokens != 7 {
			t.Errorf("input_tokens %d", res.InputTokens)
		}
		sent(t, ups, before, c.upstream, "/v1/messages/count_tokens", c.body)
	}
}

// TestMatcherBadRequests: a body that is not a valid Messages request
// matches nothing and reaches the handler that has no matcher, which
// answers as it does without matchers; so does a body of another type.
func TestMatcherBadRequests(t *testing.T) {
	site, ups := routedSite(t, []route{{"any", "\tthinkgate"}})
	gw := testgw.Start(t, testgw.SlotRouting, site)
	for _, c := range []struct {
		name, body, contentType string
		status                  int
		want                    string
	}{
		{"malformed JSON", `{"model":"m",`, "application/json", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"request body is not valid JSON: unexpected end of JSON input"}}`},
		{"no messages", `{"model":"m"}`, "application/json", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"messages: Field required"}}`},
		{"not JSON", `model=m`, "application/x-www-form-urlencoded", 415,
			`{"type":"error","error":{"type":"invalid_request_error","message":"content-type must be application/json, got application/x-www-form-urlencoded"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := counts(ups)
			res, body := gw.PostRead("/v1/messages", c.body, "Content-Type", c.contentType)
			if res.StatusCode != c.status || body != c.want {
				t.Errorf("%d %s\nwant %d %s", res.StatusCode, body, c.status, c.want)
			}
			sent(t, ups, before, "", "", "")
		})
	}
	// An empty matcher matches every valid Messages request.
	before := counts(ups)
	body := `{"model":"m","max_tokens":10,` + user + `}`
	if got := ask(t, gw, body); got != "text: from any" {
		t.Errorf("answer %q", got)
	}
	sent(t, ups, before, "any", "/v1/messages", body)
}

// TestMatcherComposes: the thinkgate matcher composes with Caddy's own
// matchers: in one named matcher (all must hold), under not, beside
// header, path and expression, and as a function inside an expression.
func TestMatcherComposes(t *testing.T) {
	site, ups := routedSite(t, []route{
		{"celopus", "\texpression `thinkgate({'model': ['claude-opus-*'], 'stream': 'off'})`"},
		{"beta", "\tthinkgate model claude-sonnet-*\n\theader X-Route beta"},
		{"gold", "\texpression `{http.request.header.X-Tier} == 'gold'`\n\tthinkgate stream off"},
		{"nothaiku", "\tnot thinkgate model claude-haiku-*\n\tpath /v1/messages"},
	})
	gw := testgw.Start(t, testgw.SlotRouting, site)
	sonnet := `{"model":"claude-sonnet-4-5","max_tokens":10,` + user + `}`
	haiku := `{"model":"claude-haiku-4-5","max_tokens":10,` + user + `}`
	haikuStream := `{"model":"claude-haiku-4-5","max_tokens":10,"stream":true,` + user + `}`
	for _, c := range []struct {
		name, body, upstream string
		headers              []string
	}{
		{"model and header", sonnet, "beta", []string{"X-Route", "beta"}},
		{"model without the header: not haiku", sonnet, "nothaiku", nil},
		{"expression and stream off", haiku, "gold", []string{"X-Tier", "gold"}},
		{"expression but a stream: haiku, so not nothaiku", haikuStream, "default", []string{"X-Tier", "gold"}},
		{"haiku without headers", haiku, "default", nil},
		{"the matcher in an expression", `{"model":"claude-opus-4-6","max_tokens":10,` + user + `}`, "celopus", nil},
		{"the expression's other condition fails", `{"model":"claude-opus-4-6","max_tokens":10,"stream":true,` + user + `}`, "nothaiku", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := counts(ups)
			var opts []option.RequestOption
			for i := 0; i+1 < len(c.headers); i += 2 {
				opts = append(opts, option.WithHeader(c.headers[i], c.headers[i+1]))
			}
			if got, want := ask(t, gw, c.body, opts...), "text: from "+c.upstream; got != want {
				t.Errorf("answer %q, want %q", got, want)
			}
			sent(t, ups, before, c.upstream, "/v1/messages", c.body)
		})
	}
}

// TestMatcherLoadErrors: a condition the matcher does not know fails the
// load with its name, in a Caddyfile block and in an expression.
func TestMatcherLoadErrors(t *testing.T) {
	p := testgw.PortsFor(testgw.SlotRouting)
	for _, matcher := range []string{
		"@x thinkgate {\n\t\tmodle claude-*\n\t}",
		"@x expression `thinkgate({'modle': 'claude-*'})`",
	} {
		cfg := testgw.Preamble(p) + fmt.Sprintf("\nhttp://localhost:%d {\n\t%s\n\trespond @x 200\n}\n", p.HTTP, matcher)
		want := "thinkgate matcher: unknown condition 'modle' (did you mean 'model'?)"
		if got := testgw.LoadError(t, testgw.SlotRouting, cfg); !strings.Contains(got, want) {
			t.Errorf("%s: load error %q, want it to contain %q", matcher, got, want)
		}
	}
}
