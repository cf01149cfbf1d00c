package gemini_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestThinkingLevel: a Gemini 3 model gets thinkingLevel from the budget
// (by thinking_levels), a 2.5 model keeps thinkingBudget, through a real
// Caddy; the mock refuses a budget sent to Gemini 3 and a level sent to
// 2.5, and the SDK accumulates the thoughts as a signed thinking block.
func TestThinkingLevel(t *testing.T) {
	var up *testgw.Upstream
	up = mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			GenerationConfig struct {
				ThinkingConfig struct {
					ThinkingBudget *int    `json:"thinkingBudget"`
					ThinkingLevel  *string `json:"thinkingLevel"`
				} `json:"thinkingConfig"`
			} `json:"generationConfig"`
		}
		_ = json.Unmarshal(up.Requests()[len(up.Requests())-1].Body, &req)
		tc := req.GenerationConfig.ThinkingConfig
		gemini3 := strings.Contains(r.URL.Path, "gemini-3")
		if gemini3 && tc.ThinkingBudget != nil || !gemini3 && tc.ThinkingLevel != nil {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error": {"code": 400, "message": "test mock: wrong thinkingConfig for the model", "status": "INVALID_ARGUMENT"}}`))
			return
		}
		streaming(thinkingStream, 17)(w, r)
	})
	gw := testgw.Start(t, testgw.SlotGemini, site("\tmodel gemini-3 gemini-3-pro-preview\n\tthinking_levels low:4096 high", up))
	for _, tc := range []struct {
		model    string
		thinking anthropic.ThinkingConfigParamUnion
		want     string
	}{
		{"gemini-3", anthropic.ThinkingConfigParamOfEnabled(4096), `{"includeThoughts":true,"thinkingLevel":"low"}`},
		{"gemini-3", anthropic.ThinkingConfigParamOfEnabled(4097), `{"includeThoughts":true,"thinkingLevel":"high"}`},
		{"gemini-3", anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}}, `{"includeThoughts":true}`},
		{"claude-x", anthropic.ThinkingConfigParamOfEnabled(4097), `{"includeThoughts":true,"thinkingBudget":4097}`},
	} {
		p := userParams(tc.model, "q")
		p.MaxTokens = 8192
		p.Thinking = tc.thinking
		msg, _ := gw.Stream(p)
		if len(msg.Content) != 2 || msg.Content[0].Thinking != thinkingText || msg.Content[0].Signature == "" || msg.Content[1].Text != answerText {
			t.Errorf("%s: content %+v", tc.model, msg.Content)
		}
		var got struct {
			GenerationConfig struct {
				ThinkingConfig json.RawMessage `json:"thinkingConfig"`
			} `json:"generationConfig"`
		}
		_ = json.Unmarshal(up.Last(t).Body, &got)
		if !golden.EqualJSON(t, got.GenerationConfig.ThinkingConfig, []byte(tc.want)) {
			t.Errorf("%s: thinkingConfig %s, want %s", tc.model, got.GenerationConfig.ThinkingConfig, tc.want)
		}
	}
}

// TestThinkingLevelOptions: the options adapt to the module's JSON fields;
// bad ones are refused at load, by name.
func TestThinkingLevelOptions(t *testing.T) {
	provider := testgw.AdaptProvider(t, `:8080
thinkgate gemini {
	thinking_level_models gemini-3* gemini-exp-*
	thinking_levels minimal:512 low:2048 high
}
reverse_proxy https://generativelanguage.googleapis.com`)
	want := `{"name":"gemini","thinking_level_models":["gemini-3*","gemini-exp-*"],"thinking_levels":[{"effort":"minimal","max_budget":512},{"effort":"low","max_budget":2048},{"effort":"high"}]}`
	if !golden.EqualJSON(t, provider, []byte(want)) {
		t.Errorf("provider JSON %s\nwant %s", provider, want)
	}
	p := testgw.PortsFor(testgw.SlotGemini)
	for _, c := range []struct{ opts, want string }{
		{"thinking_level_models", "wrong argument count"},
		{"thinking_level_models gemini-[3", `thinking_level_models: bad pattern "gemini-[3"`},
		{"thinking_levels low:x high", `thinking_levels: "low:x": the budget after the colon must be a positive number of tokens`},
		{"thinking_levels extreme", `thinking_levels: step 0: effort must be one of minimal, low, medium, high, got "extreme"`},
	} {
		cfg := testgw.Preamble(p) + "http://localhost:" + itoa(p.HTTP) + " {\nthinkgate gemini {\n\t" + c.opts + "\n}\nrespond ok\n}\n"
		if got := testgw.LoadError(t, testgw.SlotGemini, cfg); !strings.Contains(got, c.want) {
			t.Errorf("%s: load error %q does not contain %q", c.opts, got, c.want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
