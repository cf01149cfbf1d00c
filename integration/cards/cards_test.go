// Package cards_test runs model cards (model_info) through real Caddy:
// GET /v1/models from the cards, decoded by the official SDK, and each
// request held to its model's card before any provider converts it.
package cards_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// The card every provider's route serves claude-sonnet-4-5 with.
const card = `
	model_info claude-sonnet-4-5 {
		display_name "Sonnet (via gateway)"
		max_input_tokens 1047576
		max_tokens 32768
		effort low medium high
		thinking enabled adaptive
		input image
	}`

// Canned answers in each upstream's wire format.
const (
	anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":2}}`
	openaiAnswer    = `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`
	responsesAnswer = `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"ok","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}`
	geminiAnswer    = `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"totalTokenCount":7}}`
	converseAnswer  = `{"output":{"message":{"role":"assistant","content":[{"text":"ok"}]}},"stopReason":"max_tokens","usage":{"inputTokens":5,"outputTokens":2,"totalTokens":7}}`
)

// bedrockModel is the inference profile both Bedrock routes send to.
const bedrockModel = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// bedrockAnswering is a Bedrock runtime (the request's API key checked)
// answering InvokeModel with Anthropic's JSON and Converse with its own.
func bedrockAnswering(t *testing.T) *testgw.Upstream {
	return testgw.NewBedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/invoke"):
			io.WriteString(w, anthropicAnswer)
		case strings.HasSuffix(r.URL.Path, "/converse"):
			io.WriteString(w, converseAnswer)
		default:
			testgw.BedrockError(w, 404, "UnknownOperationException", "unknown operation "+r.URL.Path)
		}
	}).Upstream
}

// amazonqAnswering is Amazon Q's event stream: "ok", then the usage.
func amazonqAnswering(t *testing.T) *testgw.Upstream {
	body := append(eventstreamtest.AmazonQEvent("assistantResponseEvent", []byte(`{"content":"ok"}`)),
		eventstreamtest.AmazonQEvent("metadataEvent", []byte(`{"tokenUsage":{"uncachedInputTokens":5,"outputTokens":2,"totalTokens":7}}`))...)
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "application/vnd.amazon.eventstream", body, len(body))
	})
}

func answering(t *testing.T, answer string) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	})
}

// route is one provider's route: /<name>/v1/messages reaches it.
type route struct {
	name, options string
	up            *testgw.Upstream
}

func start(t *testing.T, routes []route) *testgw.Gateway {
	var site strings.Builder
	for _, r := range routes {
		provider, _, _ := strings.Cut(r.name, "-") // bedrock-converse is bedrock
		fmt.Fprintf(&site, "handle_path /%s/* {\n\tthinkgate %s {\n\t\tsigning_key test-signing-key\n%s\n%s\n\t}\n\treverse_proxy %s\n}\n", r.name, provider, r.options, card, r.up.Addr())
	}
	return testgw.Start(t, testgw.SlotCards, site.String())
}

func providerRoutes(t *testing.T) []route {
	return []route{
		{"anthropic", "\t\tapi_key upstream-key", answering(t, anthropicAnswer)},
		{"azure", "\t\tapi_key upstream-key\n\t\tmodel claude-sonnet-4-5 my-deployment", answering(t, anthropicAnswer)},
		{"openai", "\t\tapi_key upstream-key\n\t\tmodel claude-* gpt-4.1", answering(t, openaiAnswer)},
		{"responses", "\t\tapi_key upstream-key\n\t\tmodel claude-* gpt-5", answering(t, responsesAnswer)},
		{"gemini", "\t\tapi_key upstream-key\n\t\tmodel claude-* gemini-2.5-flash", answering(t, geminiAnswer)},
		{"bedrock", "\t\tregion us-east-1\n\t\tapi_key " + testgw.BedrockAPIKey + "\n\t\tmodel claude-* " + bedrockModel, bedrockAnswering(t)},
		{"bedrock-converse", "\t\tregion us-east-1\n\t\tapi_key " + testgw.BedrockAPIKey + "\n\t\tapi converse\n\t\tmodel claude-* " + bedrockModel, bedrockAnswering(t)},
		{"vertex", "\t\tproject my-project\n\t\tlocation us-east5\n\t\tcredentials_file " + googletest.NewTokenServer(t).WriteKeyFile(t) +
			"\n\t\tmodel claude-* claude-sonnet-4-5@20250929", answering(t, anthropicAnswer)},
		{"amazonq", "\t\tapi_key q-token", amazonqAnswering(t)},
	}
}

// currentTime is the time Amazon Q's context entry carries.
var currentTime = regexp.MustCompile(`Current time: [^\\]*`)

// withoutTime is an upstream body with Amazon Q's current time as NOW.
func withoutTime(body []byte) string {
	return currentTime.ReplaceAllString(string(body), "Current time: NOW")
}

func post(t *testing.T, gw *testgw.Gateway, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", gw.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	res, err := gw.Tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestCardLimitsOnEveryProvider: Claude Code's max_tokens 128000 is
// lowered to the card's 32768 before conversion, and the thinking budget
// below it, on every provider: each upstream gets its own field with the
// card's limit. The answer's stop_reason and usage are the upstream's. A
// request within the card, and a model without one, go as they came.
func TestCardLimitsOnEveryProvider(t *testing.T) {
	routes := providerRoutes(t)
	gw := start(t, routes)
	const request = `{"model":"claude-sonnet-4-5","max_tokens":128000,"thinking":{"type":"enabled","budget_tokens":64000},"messages":[{"role":"user","content":"Hi"}]}`
	want := map[string]struct{ upstream, stop string }{
		"anthropic":        {`{"model":"claude-sonnet-4-5","max_tokens":32768,"thinking":{"type":"enabled","budget_tokens":32767},"messages":[{"role":"user","content":"Hi"}]}`, "max_tokens"},
		"azure":            {`{"model":"my-deployment","max_tokens":32768,"thinking":{"type":"enabled","budget_tokens":32767},"messages":[{"role":"user","content":"Hi"}]}`, "max_tokens"},
		"openai":           {`{"model":"gpt-4.1","messages":[{"role":"system","content":"<thinking_mode>interleaved</thinking_mode><max_thinking_length>32767</max_thinking_length>"},{"role":"user","content":"Hi"}],"max_tokens":32768}`, "max_tokens"},
		"responses":        {`{"model":"gpt-5","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi"}]}],"max_output_tokens":32768,"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],"store":false}`, "end_turn"},
		"gemini":           {`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":32768,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":32767}}}`, "max_tokens"},
		"bedrock":          {`{"max_tokens":32768,"messages":[{"role":"user","content":"Hi"}],"thinking":{"type":"enabled","budget_tokens":32767},"anthropic_version":"bedrock-2023-05-31"}`, "max_tokens"},
		"bedrock-converse": {`{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"inferenceConfig":{"maxTokens":32768},"additionalModelRequestFields":{"thinking":{"budget_tokens":32767,"type":"enabled"}}}`, "max_tokens"},
		"vertex":           {`{"anthropic_version":"vertex-2023-10-16","max_tokens":32768,"messages":[{"role":"user","content":"Hi"}],"thinking":{"type":"enabled","budget_tokens":32767}}`, "max_tokens"},
		// Amazon Q takes no output limit: the lowered budget is the hint's.
		"amazonq": {`{"conversationState":{"chatTriggerType":"MANUAL","conversationId":"81b0f5e4-6e21-8c61-9523-979dd3e2a4b1","currentMessage":{"userInputMessage":{"content":"--- CONTEXT ENTRY BEGIN ---\nCurrent time: NOW\n--- CONTEXT ENTRY END ---\n\n--- USER MESSAGE BEGIN ---\nHi\n` +
			`<thinking_mode>interleaved</thinking_mode><max_thinking_length>32767</max_thinking_length><thinking_mode>interleaved</thinking_mode><max_thinking_length>32767</max_thinking_length>\n--- USER MESSAGE END ---","modelId":"claude-sonnet-4-5","origin":"AI_EDITOR"}}}}`, "end_turn"},
	}
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			client := gw.Client(option.WithBaseURL(gw.URL + "/" + r.name))
			// The SDK sends what Claude Code sends: 128000 and a 64000 budget.
			msg, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
				Model:     "claude-sonnet-4-5",
				MaxTokens: 128000,
				Thinking:  anthropic.ThinkingConfigParamOfEnabled(64000),
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))},
			})
			if err != nil {
				t.Fatal(err)
			}
			if string(msg.StopReason) != want[r.name].stop || msg.Usage.InputTokens != 5 || msg.Usage.OutputTokens != 2 {
				t.Errorf("stop_reason %q, usage %+v: not the upstream's", msg.StopReason, msg.Usage)
			}
			sdkBody := r.up.Last(t).Body
			status, _ := post(t, gw, "/"+r.name+"/v1/messages", request)
			if got := withoutTime(r.up.Last(t).Body); status != 200 || got != want[r.name].upstream {
				t.Errorf("%d, upstream body\n got %s\nwant %s", status, got, want[r.name].upstream)
			}
			limit := "32768"
			if r.name == "amazonq" {
				limit = "<max_thinking_length>32767<"
			}
			if !strings.Contains(string(sdkBody), limit) || strings.Contains(string(sdkBody), "128000") || strings.Contains(string(sdkBody), "64000") {
				t.Errorf("the SDK's request went upstream as %s", sdkBody)
			}
		})
	}
	// Within the card: byte for byte as sent.
	within := `{"model":"claude-sonnet-4-5","max_tokens":1000,"thinking":{"type":"enabled","budget_tokens":900},"messages":[{"role":"user","content":"Hi"}]}`
	post(t, gw, "/anthropic/v1/messages", within)
	if got := string(routes[0].up.Last(t).Body); got != within {
		t.Errorf("within the card, upstream body %s", got)
	}
	// Without a card: as today.
	other := strings.Replace(request, "claude-sonnet-4-5", "claude-opus-4-6", 1)
	post(t, gw, "/anthropic/v1/messages", other)
	if got := string(routes[0].up.Last(t).Body); got != other {
		t.Errorf("a model without a card, upstream body %s", got)
	}
}

// TestCardRefusals: what the card does not list is refused with
// Anthropic's 400 before any upstream is called, on every provider; the
// SDK reads it as an invalid_request_error.
func TestCardRefusals(t *testing.T) {
	routes := providerRoutes(t)
	gw := start(t, routes)
	const hi = `{"role":"user","content":"Hi"}`
	for _, c := range []struct{ name, body, message string }{
		{"effort not listed", `{"model":"claude-sonnet-4-5","max_tokens":10,"output_config":{"effort":"xhigh"},"messages":[` + hi + `]}`,
			`output_config.effort: \"xhigh\" is not supported by model claude-sonnet-4-5; allowed levels: low, medium, high`},
		{"structured outputs", `{"model":"claude-sonnet-4-5","max_tokens":10,"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}},"messages":[` + hi + `]}`,
			`output_config.format: model claude-sonnet-4-5 does not support structured outputs on this gateway (its model card does not list structured_outputs)`},
		{"pdf", `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"}},{"type":"text","text":"Summarise"}]}]}`,
			`messages.0.content.0: model claude-sonnet-4-5 does not take PDF input on this gateway (its model card's input lists image)`},
	} {
		for _, r := range routes {
			before := len(r.up.Requests())
			status, body := post(t, gw, "/"+r.name+"/v1/messages", c.body)
			want := `{"type":"error","error":{"type":"invalid_request_error","message":"` + c.message + `"}}`
			if status != 400 || body != want {
				t.Errorf("%s on %s: %d %s\nwant 400 %s", c.name, r.name, status, body, want)
			}
			if n := len(r.up.Requests()); n != before {
				t.Errorf("%s on %s: the upstream was called", c.name, r.name)
			}
		}
	}
	// The SDK's own request: Claude Code's /effort xhigh.
	client := gw.Client(option.WithBaseURL(gw.URL + "/openai"))
	_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model:        "claude-sonnet-4-5",
		MaxTokens:    10,
		OutputConfig: anthropic.OutputConfigParam{Effort: anthropic.OutputConfigEffortXhigh},
		Messages:     []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))},
	})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.RawJSON(), "allowed levels: low, medium, high") {
		t.Errorf("SDK: %v", err)
	}
	// An image the card takes goes through.
	if status, body := post(t, gw, "/anthropic/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}`); status != 200 {
		t.Errorf("image: %d %s", status, body)
	}
}

// TestEffortMax: effort max on a card without it becomes the highest level
// the card lists, in the request every provider converts; a listed level
// goes as sent.
func TestEffortMax(t *testing.T) {
	routes := providerRoutes(t)[:1]
	gw := start(t, routes)
	client := gw.Client(option.WithBaseURL(gw.URL + "/anthropic"))
	for _, c := range []struct {
		effort anthropic.OutputConfigEffort
		want   string
	}{
		{anthropic.OutputConfigEffortMax, `{"max_tokens":100,"messages":[{"content":[{"text":"Hi","type":"text"}],"role":"user"}],"model":"claude-sonnet-4-5","output_config":{"effort":"high"}}`},
		{anthropic.OutputConfigEffortMedium, `{"max_tokens":100,"messages":[{"content":[{"text":"Hi","type":"text"}],"role":"user"}],"model":"claude-sonnet-4-5","output_config":{"effort":"medium"}}`},
	} {
		_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
			Model:        "claude-sonnet-4-5",
			MaxTokens:    100,
			OutputConfig: anthropic.OutputConfigParam{Effort: c.effort},
			Messages:     []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(routes[0].up.Last(t).Body); got != c.want {
			t.Errorf("effort %s, upstream body\n got %s\nwant %s", c.effort, got, c.want)
		}
	}
}

// TestModelsFromCards: GET /v1/models lists the model rules' plain names
// and the cards' plain names; a model with a card (its own or a glob's)
// carries Anthropic's ModelInfo with every capability, which the SDK's
// Models.List and Models.Get decode; one without keeps the short entry. A
// client thinkgate_clients names sees only its models.
func TestModelsFromCards(t *testing.T) {
	up := answering(t, openaiAnswer)
	gw := testgw.Start(t, testgw.SlotCards, fmt.Sprintf(`thinkgate_clients /v1/* {
	client alice {
		key alice-key
		models claude-sonnet-*
	}
	client root {
		key root-key
	}
}
thinkgate openai {
	api_key upstream-key
	model claude-sonnet-* gpt-4.1
	model claude-haiku-4-5 gpt-4.1-mini
	model claude-opus-4-6 o3
	model_info claude-sonnet-4-5 {
		display_name "GPT-4.1 (via gateway)"
		created_at 2025-04-14T00:00:00Z
		max_input_tokens 1047576
		max_tokens 32768
		effort low medium high
		thinking enabled adaptive
		input image pdf
		structured_outputs
	}
	model_info claude-haiku-* {
		max_input_tokens 1047576
		max_tokens 16384
	}
	model_info claude-sonnet-4-6 {
		max_input_tokens 400000
		max_tokens 128000
		effort low medium high xhigh max
		thinking adaptive
	}
}
reverse_proxy %s`, up.Addr()))

	sonnet := `{"type":"model","id":"claude-sonnet-4-5","display_name":"GPT-4.1 (via gateway)","created_at":"2025-04-14T00:00:00Z","max_input_tokens":1047576,"max_tokens":32768,` +
		`"capabilities":{"batch":{"supported":false},"citations":{"supported":false},"code_execution":{"supported":false},` +
		`"context_management":{"clear_thinking_20251015":{"supported":false},"clear_tool_uses_20250919":{"supported":false},"compact_20260112":{"supported":false},"supported":false},` +
		`"effort":{"high":{"supported":true},"low":{"supported":true},"max":{"supported":false},"medium":{"supported":true},"supported":true,"xhigh":{"supported":false}},` +
		`"image_input":{"supported":true},"pdf_input":{"supported":true},` +
		`"server_tools":{"code_execution":{"supported":false},"supported":false,"web_search":{"supported":false}},` +
		`"structured_outputs":{"supported":true},` +
		`"thinking":{"supported":true,"types":{"adaptive":{"supported":true},"between_tools":{"supported":false},"disabled":{"supported":true},"enabled":{"supported":true}}}},` +
		`"lifecycle":"active","line":null,"deprecated_at":null,"retires_at":null}`
	haiku := `{"type":"model","id":"claude-haiku-4-5","display_name":"claude-haiku-4-5","created_at":"1970-01-01T00:00:00Z","max_input_tokens":1047576,"max_tokens":16384,` +
		`"capabilities":{"batch":{"supported":false},"citations":{"supported":false},"code_execution":{"supported":false},` +
		`"context_management":{"clear_thinking_20251015":{"supported":false},"clear_tool_uses_20250919":{"supported":false},"compact_20260112":{"supported":false},"supported":false},` +
		`"effort":{"high":{"supported":false},"low":{"supported":false},"max":{"supported":false},"medium":{"supported":false},"supported":false,"xhigh":{"supported":false}},` +
		`"image_input":{"supported":false},"pdf_input":{"supported":false},` +
		`"server_tools":{"code_execution":{"supported":false},"supported":false,"web_search":{"supported":false}},` +
		`"structured_outputs":{"supported":false},` +
		`"thinking":{"supported":false,"types":{"adaptive":{"supported":false},"between_tools":{"supported":false},"disabled":{"supported":true},"enabled":{"supported":false}}}},` +
		`"lifecycle":"active","line":null,"deprecated_at":null,"retires_at":null}`
	sonnet46 := `{"type":"model","id":"claude-sonnet-4-6","display_name":"claude-sonnet-4-6","created_at":"1970-01-01T00:00:00Z","max_input_tokens":400000,"max_tokens":128000,` +
		`"capabilities":{"batch":{"supported":false},"citations":{"supported":false},"code_execution":{"supported":false},` +
		`"context_management":{"clear_thinking_20251015":{"supported":false},"clear_tool_uses_20250919":{"supported":false},"compact_20260112":{"supported":false},"supported":false},` +
		`"effort":{"high":{"supported":true},"low":{"supported":true},"max":{"supported":true},"medium":{"supported":true},"supported":true,"xhigh":{"supported":true}},` +
		`"image_input":{"supported":false},"pdf_input":{"supported":false},` +
		`"server_tools":{"code_execution":{"supported":false},"supported":false,"web_search":{"supported":false}},` +
		`"structured_outputs":{"supported":false},` +
		`"thinking":{"supported":true,"types":{"adaptive":{"supported":true},"between_tools":{"supported":false},"disabled":{"supported":true},"enabled":{"supported":false}}}},` +
		`"lifecycle":"active","line":null,"deprecated_at":null,"retires_at":null}`
	opus := `{"type":"model","id":"claude-opus-4-6","display_name":"claude-opus-4-6","created_at":"1970-01-01T00:00:00Z"}`
	get := func(key, path string) (int, string) {
		req, _ := http.NewRequest("GET", gw.URL+path, nil)
		req.Header.Set("x-api-key", key)
		res, err := gw.Tester.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, c := range []struct {
		key, path string
		status    int
		want      string
	}{
		{"root-key", "/v1/models/claude-sonnet-4-5", 200, sonnet},
		{"root-key", "/v1/models?limit=3", 200, `{"data":[` + haiku + `,` + opus + `,` + sonnet + `],"has_more":true,"first_id":"claude-haiku-4-5","last_id":"claude-sonnet-4-5"}`},
		{"alice-key", "/v1/models", 200, `{"data":[` + sonnet + `,` + sonnet46 + `],"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"claude-sonnet-4-6"}`},
		{"alice-key", "/v1/models/claude-haiku-4-5", 404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-haiku-4-5"}}`},
	} {
		if status, body := get(c.key, c.path); status != c.status || body != c.want {
			t.Errorf("%s %s: %d\n got %s\nwant %s", c.key, c.path, status, body, c.want)
		}
	}

	client := gw.Client(option.WithAPIKey("root-key"))
	var ids []string
	pager := client.Models.ListAutoPaging(context.Background(), anthropic.ModelListParams{Limit: anthropic.Int(2)})
	for pager.Next() {
		ids = append(ids, pager.Current().ID)
	}
	if err := pager.Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids, " "); got != "claude-haiku-4-5 claude-opus-4-6 claude-sonnet-4-5 claude-sonnet-4-6" {
		t.Errorf("listed %s", got)
	}
	m, err := client.Models.Get(context.Background(), "claude-sonnet-4-5", anthropic.ModelGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	caps := m.Capabilities
	if m.DisplayName != "GPT-4.1 (via gateway)" || m.CreatedAt.Format("2006-01-02") != "2025-04-14" ||
		m.MaxInputTokens != 1047576 || m.MaxTokens != 32768 || m.Lifecycle != anthropic.ModelInfoLifecycleActive ||
		!caps.Effort.Supported || !caps.Effort.Low.Supported || !caps.Effort.High.Supported || caps.Effort.Max.Supported ||
		!caps.Thinking.Types.Adaptive.Supported || !caps.Thinking.Types.Enabled.Supported ||
		!caps.ImageInput.Supported || !caps.PDFInput.Supported || !caps.StructuredOutputs.Supported || caps.Citations.Supported {
		t.Errorf("SDK's ModelInfo: %+v", m)
	}
	if !m.JSON.Capabilities.Valid() || !m.JSON.MaxInputTokens.Valid() || !m.JSON.Lifecycle.Valid() || len(m.JSON.ExtraFields) != 0 {
		t.Errorf("SDK: fields missing or unknown in %s", m.RawJSON())
	}
	m, err = client.Models.Get(context.Background(), "claude-sonnet-4-6", anthropic.ModelGetParams{})
	if err != nil || !m.Capabilities.Effort.Max.Supported || !m.Capabilities.Effort.Xhigh.Supported || m.Capabilities.Thinking.Types.Enabled.Supported || m.MaxTokens != 128000 {
		t.Errorf("claude-sonnet-4-6: %+v %v", m, err)
	}
}

// TestModelInfoLoadErrors: Caddy refuses to load a card with an unknown
// option, naming it and listing the valid ones, and one with a value the
// list does not know.
func TestModelInfoLoadErrors(t *testing.T) {
	p := testgw.PortsFor(testgw.SlotCards)
	for _, c := range []struct{ card, want string }{
		{"model_info claude-sonnet-4-5 {\n\t\tmax_input_tokens 1000\n\t\tmax_tokens 100\n\t\tcontext_window 5\n\t}",
			`model_info claude-sonnet-4-5: unknown option "context_window"; valid: display_name, created_at, max_input_tokens, max_tokens, effort, thinking, input, structured_outputs`},
		{"model_info claude-sonnet-4-5 {\n\t\tmax_input_tokens 1000\n\t\tmax_tokens 100\n\t\teffort low turbo\n\t}",
			`model_info claude-sonnet-4-5: effort: unknown value "turbo"; valid: low, medium, high, xhigh, max`},
	} {
		msg := testgw.LoadError(t, testgw.SlotCards, testgw.Preamble(p)+fmt.Sprintf(
			"\nhttp://localhost:%d {\n\tthinkgate openai {\n\t%s\n\t}\n\treverse_proxy 127.0.0.1:9\n}\n", p.HTTP, c.card))
		if !strings.Contains(msg, c.want) {
			t.Errorf("load error %s\nwant it to contain %s", msg, c.want)
		}
	}
}
