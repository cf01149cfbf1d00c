package openai

import (
	"bytes"
	"testing"

	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// cachedUsageShapes are usage objects as OpenAI, DeepSeek and OpenRouter
// send them, with the usage the client must see: input_tokens without the
// cache's reads and writes, which Anthropic counts apart.
var cachedUsageShapes = []struct {
	name, usage, want string
}{
	{"openai",
		`{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`,
		`{"input_tokens":86,"cache_creation_input_tokens":0,"cache_read_input_tokens":1920,"output_tokens":300}`},
	{"deepseek",
		`{"prompt_tokens":1500,"completion_tokens":40,"total_tokens":1540,"prompt_cache_hit_tokens":1408,"prompt_cache_miss_tokens":92}`,
		`{"input_tokens":92,"cache_creation_input_tokens":0,"cache_read_input_tokens":1408,"output_tokens":40}`},
	{"openrouter",
		`{"prompt_tokens":194,"completion_tokens":2,"total_tokens":196,"cost":0.95,"cost_details":{"upstream_inference_cost":19},"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}`,
		`{"input_tokens":94,"cache_creation_input_tokens":100,"cache_read_input_tokens":0,"output_tokens":2}`},
	{"openrouter read",
		`{"prompt_tokens":194,"completion_tokens":2,"total_tokens":196,"prompt_tokens_details":{"cached_tokens":150,"cache_write_tokens":0}}`,
		`{"input_tokens":44,"cache_creation_input_tokens":0,"cache_read_input_tokens":150,"output_tokens":2}`},
}

// TestCachedUsageStream: the stream's message_delta carries the cache's
// reads and writes apart from input_tokens.
func TestCachedUsageStream(t *testing.T) {
	for _, tc := range cachedUsageShapes {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, nil, streamRequest)
			up := openaitest.New().Content("a", 0).Finish("stop").
				Data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o","choices":[],"usage":` + tc.usage + `}`).Done().Bytes()
			out, err := runStream(t, NewTranslator(x, nil, 0), up, 7)
			if err != nil {
				t.Fatal(err)
			}
			if want := `"stop_reason":"end_turn","stop_sequence":null},"usage":` + tc.want + `}`; !bytes.Contains(out, []byte(want)) {
				t.Errorf("stream has no %s:\n%s", want, out)
			}
		})
	}
}

// TestCachedUsageMessage: the same in a whole message.
func TestCachedUsageMessage(t *testing.T) {
	for _, tc := range cachedUsageShapes {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, nil, nonStreamRequest)
			out, err := NewTranslator(x, nil, 0).Message([]byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"stop"}],"usage":` + tc.usage + `}`))
			if err != nil {
				t.Fatal(err)
			}
			if want := `"usage":` + tc.want; !bytes.Contains(out, []byte(want)) {
				t.Errorf("message has no %s:\n%s", want, out)
			}
		})
	}
}
