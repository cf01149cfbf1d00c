package responses

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
)

// historySignatures are the signatures the request files name by placeholder.
var historySignatures = map[string]string{
	"SIG_RS1":  testSigner.Sign(providers.OriginResponses, "rs_1\nencOne", "**Looking**\n\nA cat and a PDF."),
	"SIG_RS2":  testSigner.Sign(providers.OriginResponses, "rs_2\nencTwo", ""),
	"SIG_TAGS": testSigner.Sign(providers.OriginTags, "", "Split from tags."),
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
			EffortMap: []providers.EffortRule{{UpTo: 20000, Effort: "minimal"}, {Effort: "high"}}}},
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
			if err := p.Rewrite(x, out); err != nil {
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
	if err := New(Config{APIKey: "sk-up", Path: "/openai/v1/responses?api-version=preview"}).Rewrite(x, out); err != nil {
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
		e, ok := err.(*providers.Error)
		if !ok || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != tc.want {
			t.Errorf("%s:\n got %#v\nwant 400 invalid_request_error %q", tc.body, err, tc.want)
		}
	}
}

func TestReasoningEffort(t *testing.T) {
	cases := []struct {
		budget int
		rules  []providers.EffortRule
		want   string
	}{
		{0, nil, "medium"}, {1024, nil, "low"}, {4000, nil, "low"}, {4096, nil, "low"}, {4097, nil, "medium"},
		{10000, nil, "medium"}, {16384, nil, "medium"}, {31999, nil, "high"},
		{500, []providers.EffortRule{{UpTo: 1000, Effort: "minimal"}, {Effort: "low"}}, "minimal"},
		{5000, []providers.EffortRule{{UpTo: 1000, Effort: "minimal"}, {Effort: "low"}}, "low"},
		{5000, []providers.EffortRule{{UpTo: 1000, Effort: "minimal"}}, "minimal"}, // past the last bound: the last rule
	}
	for _, tc := range cases {
		if got := providers.ReasoningEffort(providers.ThinkingParam{BudgetTokens: tc.budget}, tc.rules, ""); got != tc.want {
			t.Errorf("budget %d, rules %v: %q, want %q", tc.budget, tc.rules, got, tc.want)
		}
	}
	if got := providers.ReasoningEffort(providers.ThinkingParam{}, nil, "high"); got != "high" {
		t.Errorf("no budget with default high: %q", got)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{Path: "v1/responses"}, `path: must start with /, got "v1/responses"`},
		{Config{ReasoningSummary: "short"}, `reasoning_summary: must be auto, concise, detailed or off, got "short"`},
		{Config{EffortMap: []providers.EffortRule{{UpTo: 100, Effort: "extreme"}}}, `effort_map: rule 1: effort must be one of none, minimal, low, medium, high, got "extreme"`},
		{Config{EffortMap: []providers.EffortRule{{Effort: "low"}, {UpTo: 9, Effort: "high"}}}, "effort_map: rule 1: only the last rule may go without a budget bound"},
		{Config{EffortMap: []providers.EffortRule{{UpTo: 9, Effort: "low"}, {UpTo: 9, Effort: "high"}}}, "effort_map: rule 2: bounds must rise, 9 after 9"},
		{Config{DefaultEffort: "max"}, `default_effort: must be one of none, minimal, low, medium, high, got "max"`},
	}
	for _, tc := range cases {
		if err := tc.cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if err := (Config{Path: "/v1/responses", Store: true, ReasoningSummary: "concise", DefaultEffort: "high",
		EffortMap: []providers.EffortRule{{UpTo: 8000, Effort: "low"}, {Effort: "high"}}}).Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
}
