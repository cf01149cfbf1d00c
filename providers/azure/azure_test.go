package azure

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func TestSetAuth(t *testing.T) {
	cases := []struct {
		name   string
		apiKey string
		in     http.Header
		want   http.Header
	}{
		{"gateway key replaces the client's x-api-key and bearer", "azure-key",
			http.Header{"X-Api-Key": {"client-key"}, "Authorization": {"Bearer client-token"}, "Anthropic-Version": {"2023-06-01"}},
			http.Header{"X-Api-Key": {"azure-key"}, "Api-Key": {"azure-key"}, "Anthropic-Version": {"2023-06-01"}}},
		{"gateway key replaces a client api-key", "azure-key",
			http.Header{"Api-Key": {"client-key"}},
			http.Header{"X-Api-Key": {"azure-key"}, "Api-Key": {"azure-key"}}},
		{"gateway key with no client credential", "azure-key",
			http.Header{},
			http.Header{"X-Api-Key": {"azure-key"}, "Api-Key": {"azure-key"}}},
		{"no gateway key: client x-api-key under both names", "",
			http.Header{"X-Api-Key": {"client-azure-key"}},
			http.Header{"X-Api-Key": {"client-azure-key"}, "Api-Key": {"client-azure-key"}}},
		{"no gateway key: client api-key under both names", "",
			http.Header{"Api-Key": {"client-azure-key"}},
			http.Header{"X-Api-Key": {"client-azure-key"}, "Api-Key": {"client-azure-key"}}},
		{"no gateway key: Entra ID bearer passes", "",
			http.Header{"Authorization": {"Bearer eyJ0eXAiOiJKV1Qi"}},
			http.Header{"Authorization": {"Bearer eyJ0eXAiOiJKV1Qi"}}},
		{"no gateway key, no credential", "",
			http.Header{"Anthropic-Version": {"2023-06-01"}},
			http.Header{"Anthropic-Version": {"2023-06-01"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := c.in.Clone()
			New(Config{APIKey: c.apiKey}).SetAuth(h)
			if !reflect.DeepEqual(h, c.want) {
				t.Errorf("headers = %v, want %v", h, c.want)
			}
		})
	}
}

func TestFilterBetas(t *testing.T) {
	cases := []struct {
		name    string
		extra   []string
		in      []string
		want    []string // nil: header removed
		removed []string
	}{
		{"claude code's first-party list", nil,
			[]string{"claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,fine-grained-tool-streaming-2025-05-14"},
			[]string{"interleaved-thinking-2025-05-14"},
			[]string{"claude-code-20250219", "context-management-2025-06-27", "fine-grained-tool-streaming-2025-05-14"}},
		{"repeated header lines, spaces, case", nil,
			[]string{"OAuth-2025-04-20 , context-1m-2025-08-07", "advanced-tool-use-2025-11-20", "web-search-2025-03-05"},
			[]string{"context-1m-2025-08-07", "web-search-2025-03-05"},
			[]string{"OAuth-2025-04-20", "advanced-tool-use-2025-11-20"}},
		{"nothing left: header removed", nil,
			[]string{"context-management-2025-06-27", "structured-outputs-2025-11-13,tool-examples-2025-10-29"},
			nil,
			[]string{"context-management-2025-06-27", "structured-outputs-2025-11-13", "tool-examples-2025-10-29"}},
		{"nothing to remove: header as sent", nil,
			[]string{"interleaved-thinking-2025-05-14, context-1m-2025-08-07"},
			[]string{"interleaved-thinking-2025-05-14, context-1m-2025-08-07"},
			nil},
		{"drop_betas adds to the defaults", []string{"context-1m-2025-08-07"},
			[]string{"context-1m-2025-08-07,tool-search-tool-2025-10-19,interleaved-thinking-2025-05-14"},
			[]string{"interleaved-thinking-2025-05-14"},
			[]string{"context-1m-2025-08-07", "tool-search-tool-2025-10-19"}},
		{"drop_betas * removes every value", []string{"*"},
			[]string{"interleaved-thinking-2025-05-14", "web-search-2025-03-05"},
			nil,
			[]string{"interleaved-thinking-2025-05-14", "web-search-2025-03-05"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{"Anthropic-Beta": c.in}
			removed := New(Config{DropBetas: c.extra}).FilterBetas(h)
			if got := h.Values("Anthropic-Beta"); !reflect.DeepEqual(got, c.want) {
				t.Errorf("anthropic-beta = %q, want %q", got, c.want)
			}
			if _, ok := h["Anthropic-Beta"]; ok && c.want == nil {
				t.Errorf("empty anthropic-beta header left in place")
			}
			if !reflect.DeepEqual(removed, c.removed) {
				t.Errorf("removed = %q, want %q", removed, c.removed)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	cases := []struct {
		name        string
		cfg         Config
		countTokens bool
		header      http.Header
		wantPath    string
		wantVersion string
	}{
		{"default path", Config{}, false, http.Header{"Anthropic-Version": {"2023-06-01"}}, "/anthropic/v1/messages", "2023-06-01"},
		{"count_tokens", Config{}, true, http.Header{}, "/anthropic/v1/messages/count_tokens", DefaultVersion},
		{"custom path", Config{Path: "/proxy/anthropic/v1/messages/"}, false, http.Header{"Anthropic-Version": {"2024-01-01"}}, "/proxy/anthropic/v1/messages", "2024-01-01"},
		{"custom path, count_tokens", Config{Path: "/proxy/anthropic/v1/messages"}, true, http.Header{}, "/proxy/anthropic/v1/messages/count_tokens", DefaultVersion},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := exchange(t, testSettings(), body)
			x.CountTokens = c.countTokens
			out := &providers.Outbound{Path: "/v1/messages", RawQuery: "beta=true", Header: c.header}
			if _, err := New(c.cfg).Rewrite(x, out); err != nil {
				t.Fatal(err)
			}
			if out.Path != c.wantPath || out.RawQuery != "beta=true" {
				t.Errorf("target %s?%s, want %s?beta=true", out.Path, out.RawQuery, c.wantPath)
			}
			if v := out.Header.Get("Anthropic-Version"); v != c.wantVersion {
				t.Errorf("anthropic-version %q, want %q", v, c.wantVersion)
			}
			if string(out.Body) != string(body) {
				t.Errorf("body %s", out.Body)
			}
		})
	}
}

// TestHandle: an Azure response passes through unless split_tags
// translates it, count_tokens answers are never touched, and Azure's own
// gateway errors (not Anthropic-shaped) are mapped even when the rest
// passes, keeping the upstream's headers.
func TestHandle(t *testing.T) {
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	jsonBody := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		split, countTokens bool
		status             int
		header             http.Header
		want               string
	}{
		{false, false, 200, sse, "pass"},
		{false, false, 403, jsonBody, "error upstream header"},
		{true, false, 200, sse, "stream"},
		{true, false, 200, jsonBody, "body"},
		{true, false, 429, jsonBody, "error"},
		{true, true, 200, jsonBody, "pass"},
		{true, true, 400, jsonBody, "pass"},
		{false, true, 200, jsonBody, "pass"},
	} {
		path := "/v1/messages"
		if c.countTokens {
			path += "/count_tokens"
		}
		req := &wire.Request{Model: "m", Stream: true}
		x := providers.NewExchange(&providers.Settings{SplitTags: c.split}, req, nil, providers.ExchangeOptions{Path: path})
		tr, err := New(Config{}).Rewrite(x, &providers.Outbound{Header: http.Header{}})
		if err != nil {
			t.Fatal(err)
		}
		h := tr.Handle(c.status, c.header)
		got := "pass"
		switch {
		case h.NewStream != nil:
			got = "stream"
		case h.Body != nil:
			got = "body"
		case h.Error != nil:
			got = "error"
		}
		if h.UpstreamHeader {
			got += " upstream header"
		}
		if got != c.want {
			t.Errorf("split_tags=%v count_tokens=%v status %d: %s, want %s", c.split, c.countTokens, c.status, got, c.want)
		}
	}
}

// TestSplitStream: with split_tags an Azure stream (Anthropic's events)
// goes through the anthropic translator: native thinking passes with its
// signature, inline tags become a gateway-signed thinking block, the client
// sees its own model name.
func TestSplitStream(t *testing.T) {
	s := testSettings(providers.ModelRule{From: "claude-*", To: "my-deployment"})
	s.SplitTags = true
	x := exchange(t, s, []byte(`{"model":"claude-sonnet-4-5","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	stream := azureStream(3)
	for _, n := range []int{1, 7, 64, len(stream)} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			tr, err := New(Config{}).Rewrite(x, &providers.Outbound{Header: http.Header{}})
			if err != nil {
				t.Fatal(err)
			}
			var out []byte
			st := providertest.OpenStream(x, tr.Handle(200, http.Header{"Content-Type": {"text/event-stream"}}).NewStream,
				func(events []byte) { out = append(out, events...) }, 16<<10)
			for p := stream; len(p) > 0; {
				k := min(n, len(p))
				if err := st.Write(p[:k]); err != nil {
					t.Fatal(err)
				}
				p = p[k:]
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			got := string(ssetest.Coalesce(out))
			for _, want := range []string{
				`"model":"claude-sonnet-4-5"`,
				`"content_block":{"type":"thinking","thinking":"","signature":""}`,
				`"delta":{"type":"signature_delta","signature":"EqQBCkgIBxAB"}`,
				`{"type":"thinking","thinking":""}`,
				`"delta":{"type":"thinking_delta","thinking":"check 0"}`,
				`"delta":{"type":"signature_delta","signature":"tg1t.`,
				`"delta":{"type":"text_delta","text":"Answer part 1. `,
				`"delta":{"stop_reason":"end_turn","stop_sequence":null}`,
			} {
				if !strings.Contains(got, want) {
					t.Errorf("stream lacks %s:\n%s", want, got)
				}
			}
			if strings.Contains(got, "<thinking>") || strings.Contains(got, "my-deployment") {
				t.Errorf("tags or deployment name leaked:\n%s", got)
			}
		})
	}
}

// azureStream is what Azure streams for a Claude model with native thinking
// whose answer also carries an inline <thinking> span every 100 deltas; n is
// the number of deltas of each kind.
func azureStream(n int) []byte {
	var b strings.Builder
	ev := func(name, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data) }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_01Azure","type":"message","role":"assistant","model":"my-deployment","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2095,"cache_creation_input_tokens":0,"cache_read_input_tokens":1800,"output_tokens":3}}}`)
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for i := 0; i < n; i++ {
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Step %d: the user wants a careful answer, so consider the edge cases first. "}}`, i))
	}
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkgIBxAB"}}`)
	ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
	ev("ping", `{"type": "ping"}`)
	ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("Answer part %d. ", i)
		switch i % 100 {
		case 0: // a span, its closing tag split across deltas
			text = fmt.Sprintf("<thinking>check %d</thin", i)
		case 1:
			text = "king>" + text
		}
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":%q}}`, text))
	}
	ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1520}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	return []byte(b.String())
}

// BenchmarkStream measures the split_tags translator on long Azure streams
// (n thinking deltas, then n text deltas with a span every 100), written in
// 4 KiB pieces as reverse_proxy would. allocs/op must not grow with n.
func BenchmarkStream(b *testing.B) {
	for _, n := range []int{2000, 8000} {
		b.Run(fmt.Sprintf("deltas=%d", 2*n), func(b *testing.B) {
			s := testSettings()
			s.SplitTags = true
			x := exchange(b, s, []byte(`{"model":"claude-sonnet-4-5","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			stream := azureStream(n)
			em := emit.NewEmitter(s.Form, s.Signer)
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				*em = *emit.NewEmitter(s.Form, s.Signer)
				st := anthropic.NewSplitStream(x, em)
				for q := stream; len(q) > 0; {
					k := min(4096, len(q))
					if err := st.Write(q[:k]); err != nil {
						b.Fatal(err)
					}
					em.Flush()
					q = q[k:]
				}
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClean measures request cleaning on a Claude Code-sized request:
// the claude_code fixture with its history repeated to about 1 MB.
func BenchmarkClean(b *testing.B) {
	before := readFile(b, "testdata/clean/claude_code.before.json")
	body := longHistory(b, before, 400)
	x := exchange(b, testSettings(), body)
	p := New(Config{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := p.Clean(x); err != nil {
			b.Fatal(err)
		}
	}
}

func longHistory(t testing.TB, body []byte, repeat int) []byte {
	t.Helper()
	x := exchange(t, testSettings(), body)
	msgs := string(x.Request.Fields["messages"])
	inner := msgs[1 : len(msgs)-1]
	parts := make([]string, repeat)
	for i := range parts {
		parts[i] = inner
	}
	return []byte(strings.Replace(string(body), msgs, "["+strings.Join(parts, ",")+"]", 1))
}
