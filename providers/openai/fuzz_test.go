package openai

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
)

// FuzzRewrite: the request converter never panics, rejects input only with
// an Anthropic 4xx error, and otherwise builds a well-formed upstream request.
func FuzzRewrite(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s))
	}
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, body []byte) { fuzzcheck.Rewrite(t, p, body) })
}

// FuzzTranslate: the stream translator never panics and writes only
// well-formed events, for any upstream bytes split anywhere.
func FuzzTranslate(f *testing.F) {
	f.Add([]byte(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"r"},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{"content":"a <thinking>b</thinking> c"},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\\"x\\":"}}]},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}

data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}

data: [DONE]

`), []byte{3, 1, 7})
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, upstream, splits []byte) { fuzzcheck.Stream(t, p, upstream, splits) })
}
