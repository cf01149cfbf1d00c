package tracing_test

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// TestTokenMetrics: cache reads and writes are counted beside input and
// output tokens, a non-streaming answer's thinking blocks are counted and
// logged like a stream's, and the time per output token and output tokens
// per second are observed (per provider and model).
func TestTokenMetrics(t *testing.T) {
	openaiUp := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			testgw.WriteChunks(w, "text/event-stream",
				openaitest.New().Content("<thinking>"+thinking+"</thinking>"+answer, 4).Finish("stop").Usage(20, 9, 6).Done().Bytes(), 7)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"gpt-4.1-mini","choices":[{"index":0,"message":{"role":"assistant","content":"<thinking>`+
			thinking+`</thinking>`+answer+`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":6}}}`)
	})
	anthropicUp := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			testgw.WriteChunks(w, "text/event-stream", anthropicStream, 13)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, anthropicMessage)
	})
	accessLog := filepath.Join(t.TempDir(), "access.log")
	p := testgw.PortsFor(slot)
	gw := testgw.StartConfig(t, slot, testgw.Preamble(p)+fmt.Sprintf(`
http://localhost:%d {
	log {
		output file %s
	}
	handle /metrics {
		metrics
	}
	handle_path /openai/* {
		thinkgate openai {
			api_key sk-openai
			model claude-* gpt-4.1-mini
		}
		reverse_proxy %s
	}
	handle_path /anthropic/* {
		thinkgate anthropic {
			api_key sk-ant
			split_tags
		}
		reverse_proxy %s
	}
}
`, p.HTTP, accessLog, openaiUp.Addr(), anthropicUp.Addr()))

	type sample struct {
		name   string
		labels map[string]string
	}
	tokens := func(provider, direction string) sample {
		return sample{"caddy_thinkgate_tokens_total", map[string]string{"provider": provider, "model": "claude-test", "direction": direction}}
	}
	perModel := func(name, provider string) sample {
		return sample{name, map[string]string{"provider": provider, "model": "claude-test"}}
	}
	want := []struct {
		sample
		n float64
	}{
		{tokens("openai", "input"), 2 * 14},
		{tokens("openai", "output"), 2 * 9},
		{tokens("openai", "cache_read"), 2 * 6},
		{tokens("anthropic", "input"), 2 * 20},
		{tokens("anthropic", "cache_read"), 2 * 7},
		{tokens("anthropic", "cache_creation"), 2 * 5},
		{sample{"caddy_thinkgate_thinking_blocks_total", map[string]string{"provider": "openai"}}, 2},
		{sample{"caddy_thinkgate_thinking_blocks_total", map[string]string{"provider": "anthropic"}}, 2},
		// Time per output token needs a first content: streams only.
		{perModel("caddy_thinkgate_time_per_output_token_seconds_count", "openai"), 1},
		{perModel("caddy_thinkgate_time_per_output_token_seconds_count", "anthropic"), 1},
		{perModel("caddy_thinkgate_output_tokens_per_second_count", "openai"), 2},
		{perModel("caddy_thinkgate_output_tokens_per_second_count", "anthropic"), 2},
	}
	before := make([]float64, len(want))
	for i, s := range want {
		before[i] = gw.Metric(t, s.name, s.labels)
	}
	for _, provider := range []string{"openai", "anthropic"} {
		for _, stream := range []bool{true, false} {
			res, body := gw.PostRead("/"+provider+"/v1/messages", request(stream))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s stream=%v: %d %s", provider, stream, res.StatusCode, body)
			}
		}
	}
	for i, s := range want {
		if d := gw.Metric(t, s.name, s.labels) - before[i]; d != s.n {
			t.Errorf("%s%v grew by %v, want %v", s.name, s.labels, d, s.n)
		}
	}
	gw.Tester.Client.CloseIdleConnections()
	var thinkingLogged int
	for _, line := range strings.Split(strings.TrimSpace(testgw.ReadFile(t, accessLog)), "\n") {
		if strings.Contains(line, `"thinkgate_thinking_blocks":1`) {
			thinkingLogged++
		}
	}
	if thinkingLogged != 4 {
		t.Errorf("%d access-log lines with thinkgate_thinking_blocks 1, want 4 (streamed and not, two providers):\n%s", thinkingLogged, testgw.ReadFile(t, accessLog))
	}
}
