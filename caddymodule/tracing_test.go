package caddymodule

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestUntracedCostsNothing: a request whose span does not record (no
// tracing directive) gets no trace and allocates nothing for it, so the
// response writer's hooks stay nil checks.
func TestUntracedCostsNothing(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	var tc *exchangeTrace
	allocs := testing.AllocsPerRun(100, func() { tc = newExchangeTrace(r, 1<<10) })
	if tc != nil || allocs != 0 {
		t.Fatalf("untraced request: trace %v, %v allocations", tc, allocs)
	}
}

// TestTraceContentOption: trace_content takes a size within its bound or
// off, and nothing else.
func TestTraceContentOption(t *testing.T) {
	for _, c := range []struct {
		option string
		want   int64
		err    string
	}{
		{"trace_content 4KiB", 4096, ""},
		{"trace_content off", 0, ""},
		{"trace_content", 0, "trace_content: expected one size or off"},
		{"trace_content 1KiB 2KiB", 0, "trace_content: expected one size or off"},
		{"trace_content 0", 0, `trace_content: "0" is not a size between 1B and 16MiB, or off`},
		{"trace_content 17MiB", 0, `trace_content: "17MiB" is not a size between 1B and 16MiB, or off`},
		{"trace_content lots", 0, `trace_content: "lots" is not a size between 1B and 16MiB, or off`},
	} {
		t.Run(c.option, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate openai {\n" + c.option + "\n}"))
			switch {
			case c.err == "" && err != nil:
				t.Fatal(err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want %q", err, c.err)
			case h.TraceContent != c.want:
				t.Fatalf("trace_content %d, want %d", h.TraceContent, c.want)
			}
		})
	}
	h := Handler{TraceContent: -1}
	if err := h.Validate(); err == nil || !strings.Contains(err.Error(), "trace_content") {
		t.Fatalf("negative trace_content: %v", err)
	}
}
