package responses

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/buger/jsonparser"
	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// historySignatures are the signatures the request files name by placeholder.
var historySignatures = map[string]string{
	"SIG_RS1":  testSigner.Sign(emit.OriginResponses, "rs_1\nencOne", "**Looking**\n\nA cat and a PDF."),
	"SIG_RS2":  testSigner.Sign(emit.OriginResponses, "rs_2\nencTwo", ""),
	"SIG_TAGS": testSigner.Sign(emit.OriginTags, "", "Split from tags."),
}

func readRequest(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "requests", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for k, v := range historySignatures {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

// TestConvertRequest compares each request's conversion with its golden
// file: testdata/requests/<in>.in.json becomes <out>.out.json exactly.
func TestConvertRequest(t *testing.T) {
	cases := []struct {
		in, out     string
		cfg         Config
		countTokens bool
		settings    func(*providers.Settings)
	}{
		{in: "basic", out: "basic"},
		{in: "basic", out: "basic_store_detailed", cfg: Config{Store: true, ReasoningSummary: SummaryDetailed,
			Efforts: []providers.EffortStep{{Effort: "minimal", MaxBudget: 20000}, {Effort: "high"}}}},
		{in: "basic", out: "basic_count_tokens", countTokens: true},
		{in: "basic", out: "basic_summary_off", cfg: Config{ReasoningSummary: SummaryOff}},
		{in: "history", out: "history"},
		{in: "history", out: "history_thinking_off", settings: func(s *providers.Settings) { s.DefaultThinking = false }},
		{in: "tools", out: "tools"},
	}
	for _, tc := range cases {
		t.Run(tc.out, func(t *testing.T) {
			s := testSettings()
			if tc.settings != nil {
				tc.settings(s)
			}
			body := readRequest(t, tc.in+".in.json")
			if tc.out == "history_thinking_off" {
				body = strings.Replace(body, `"thinking": {"type": "enabled", "budget_tokens": 2000},`, "", 1)
			}
			x := exchange(t, s, body)
			x.CountTokens = tc.countTokens
			out := &providers.Outbound{Header: http.Header{"X-Api-Key": {"client-key"}, "Anthropic-Version": {"2023-06-01"}}}
			p := New(tc.cfg)
			if _, err := p.Rewrite(x, out); err != nil {
				t.Fatal(err)
			}
			wantPath := "/v1/responses"
			if tc.countTokens {
				wantPath += "/input_tokens"
			}
			if out.Path != wantPath || out.RawQuery != "" {
				t.Errorf("path %s?%s, want %s", out.Path, out.RawQuery, wantPath)
			}
			if out.Header.Get("X-Api-Key") != "" || out.Header.Get("Anthropic-Version") != "" {
				t.Errorf("client headers forwarded: %v", out.Header)
			}
			golden.JSON(t, filepath.Join("requests", tc.out+".out.json"), out.Body)
		})
	}
}

func TestRewriteHeadersAndPath(t *testing.T) {
	x := exchange(t, nil, streamRequest)
	out := &providers.Outbound{Header: http.Header{"X-Api-Key": {"client-key"}, "Authorization": {"Bearer client"}}}
	if _, err := New(Config{APIKey: "sk-up", Path: "/openai/v1/responses?api-version=preview"}).Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	if out.Path != "/openai/v1/responses" || out.RawQuery != "api-version=preview" {
		t.Errorf("path %s?%s", out.Path, out.RawQuery)
	}
	if out.Header.Get("Authorization") != "Bearer sk-up" || out.Header.Get("X-Api-Key") != "" {
		t.Errorf("headers %v", out.Header)
	}
}

func TestConvertRequestErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"model":"m","max_tokens":5,"stop_sequences":["END"],"messages":[{"role":"user","content":"x"}]}`,
			"stop_sequences: stop_sequences (the Responses API has no stop parameter) is not supported by the responses provider"},
		{`{"model":"m","max_tokens":5,"tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":"x"}]}`,
			`tools.0: server tool "web_search" (type "web_search_20250305") is not supported by the responses provider`},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]}`,
			`messages.0.content.0.source: image source type "file" is not supported by the responses provider`},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}]}`,
			`messages.0.content.0: content block type "server_tool_use" in an assistant message is not supported by the responses provider`},
		{`{"model":"m","max_tokens":5,"tools":[{"name":"a","input_schema":{}}],"tool_choice":{"type":"some"},"messages":[{"role":"user","content":"x"}]}`,
			`tool_choice.type: must be auto, any, tool or none, got "some"`},
	}
	for _, tc := range cases {
		x := exchange(t, nil, tc.body)
		_, _, err := ConvertRequest(x, Config{})
		e, ok := err.(*wire.Error)
		if !ok || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != tc.want {
			t.Errorf("%s:\n got %#v\nwant 400 invalid_request_error %q", tc.body, err, tc.want)
		}
	}
}

// TestReasoningEffort: the request's budget_tokens picks reasoning.effort
// by the efforts table (the shared default when none is set); thinking on
// without a budget asks for medium.
func TestReasoningEffort(t *testing.T) {
	minimalLow := []providers.EffortStep{{Effort: "minimal", MaxBudget: 1000}, {Effort: "low"}}
	cases := []struct {
		thinking string
		efforts  []providers.EffortStep
		want     string
	}{
		{`{"type":"adaptive"}`, nil, "medium"},
		{`{"type":"enabled","budget_tokens":1024}`, nil, "low"},
		{`{"type":"enabled","budget_tokens":4096}`, nil, "low"},
		{`{"type":"enabled","budget_tokens":4097}`, nil, "medium"},
		{`{"type":"enabled","budget_tokens":16384}`, nil, "medium"},
		{`{"type":"enabled","budget_tokens":31999}`, nil, "high"},
		{`{"type":"enabled","budget_tokens":1000}`, minimalLow, "minimal"},
		{`{"type":"enabled","budget_tokens":5000}`, minimalLow, "low"},
		{`{"type":"enabled","budget_tokens":5000}`, []providers.EffortStep{{Effort: "none", MaxBudget: 1000}}, "none"}, // past the last bound: the last step
	}
	for _, tc := range cases {
		body := `{"model":"claude-test","max_tokens":40000,"thinking":` + tc.thinking + `,"messages":[{"role":"user","content":"Hi"}]}`
		out, _, err := ConvertRequest(exchange(t, nil, body), Config{Efforts: tc.efforts})
		if err != nil {
			t.Fatalf("%s: %v", tc.thinking, err)
		}
		if got, _ := jsonparser.GetString(out, "reasoning", "effort"); got != tc.want {
			t.Errorf("%s, efforts %v: reasoning.effort %q, want %q", tc.thinking, tc.efforts, got, tc.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{Path: "v1/responses"}, `path: must start with /, got "v1/responses"`},
		{Config{ReasoningSummary: "short"}, `reasoning_summary: must be auto, concise, detailed or off, got "short"`},
		{Config{Efforts: []providers.EffortStep{{Effort: "extreme", MaxBudget: 100}}}, `efforts: step 0: effort must be one of none, minimal, low, medium, high, got "extreme"`},
		{Config{Efforts: []providers.EffortStep{{Effort: "low"}, {Effort: "high", MaxBudget: 9}}}, "efforts: step 0 (low): only the last step may be without a budget"},
		{Config{Efforts: []providers.EffortStep{{Effort: "low", MaxBudget: 9}, {Effort: "high", MaxBudget: 9}}}, "efforts: step 1 (high): budgets must rise, 9 follows 9"},
	}
	for _, tc := range cases {
		if err := tc.cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if err := (Config{Path: "/v1/responses", Store: true, ReasoningSummary: "concise",
		Efforts: []providers.EffortStep{{Effort: "low", MaxBudget: 8000}, {Effort: "high"}}}).Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
}
