package openai

import (
	"strconv"
	"strings"
	"testing"
)

// The two Chat Completions requests of OpenAI's token-counting guide
// (the cookbook's "How to count tokens with tiktoken", sections 6 and 7),
// with the prompt_tokens the OpenAI API reported for gpt-4o and
// gpt-4o-mini: 124 and 101.
func TestCountChatTokensPublishedExamples(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want int
	}{
		{"messages with names", `{"model":"gpt-4o","messages":[
{"role":"system","content":"You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
{"role":"system","name":"example_user","content":"New synergies will help drive top-line growth."},
{"role":"system","name":"example_assistant","content":"Things working well together will increase revenue."},
{"role":"system","name":"example_user","content":"Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
{"role":"system","name":"example_assistant","content":"Let's talk later when we're less busy about how to do better."},
{"role":"user","content":"This late pivot means we don't have time to boil the ocean for the client deliverable."}]}`, 124},
		{"tools", `{"model":"gpt-4o","messages":[
{"role":"system","content":"You are a helpful assistant that can answer to questions about the weather."},
{"role":"user","content":"What's the weather like in San Francisco?"}],
"tools":[{"type":"function","function":{"name":"get_current_weather","description":"Get the current weather in a given location",
"parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},
"unit":{"type":"string","description":"The unit of temperature to return","enum":["celsius","fahrenheit"]}},"required":["location"]}}}]}`, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CountChatTokens([]byte(tc.body)); got != tc.want {
				t.Errorf("CountChatTokens = %d, want %d (the API's count)", got, tc.want)
			}
		})
	}
}

// BenchmarkCountChatTokens counts a 1 MB Chat Completions body of prose
// and code (what count_tokens costs, docs/providers/openai.md).
func BenchmarkCountChatTokens(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"model":"gpt-4o","messages":[`)
	turn := strings.Repeat("The parser reads one block at a time; func (p *Parser) Next() (Token, error) { return p.scan() }\n", 40)
	for i := 0; body.Len() < 1<<20; i++ {
		if i > 0 {
			body.WriteByte(',')
		}
		body.WriteString(`{"role":"user","content":` + strconv.Quote(turn) + `}`)
	}
	body.WriteString(`]}`)
	data := []byte(body.String())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		CountChatTokens(data)
	}
}
