package gemini

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers"
)

// convertCost converts body as the handler does (ScanRequest, then the
// converter) and returns the upstream body and the bytes allocated.
func convertCost(t *testing.T, body []byte) (out []byte, alloc uint64) {
	t.Helper()
	s := testSettings()
	s.Models = []providers.ModelRule{{From: "claude-*", To: "gemini-2.5-pro"}}
	p := New(Config{APIKey: "k"})
	req, err := providers.ParseRequestFor(p, body)
	if err != nil {
		t.Fatal(err)
	}
	x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err = p.requestBody(x, "gemini-2.5-pro")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return out, after.TotalAlloc - before.TotalAlloc
}

// TestHistoryCostsItsBytes holds the conversion of the history-heavy
// shapes (docs/performance.md, "Memory on every request shape") to the
// larger of the upstream body and the client's, and half the client's, in
// allocations (the bound on
// memory beyond the body is twice the body): the body's room has space
// for Gemini's framing of every turn. Before, a hundred thousand short
// turns, or tool loops, outgrew a room of the client's body's size, and
// growing it held the old buffer and one a quarter larger.
func TestHistoryCostsItsBytes(t *testing.T) {
	for _, shape := range []struct {
		name  string
		build func(int) []byte
	}{
		{"tiny_blocks", requestshapes.TinyBlocks},
		{"many_messages", requestshapes.ManyMessages},
		{"nested_inputs", requestshapes.NestedInputs},
		{"empty_strings", requestshapes.EmptyStrings},
	} {
		t.Run(shape.name, func(t *testing.T) {
			body := shape.build(8 << 20)
			out, alloc := convertCost(t, body)
			t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
			if !providertest.RaceEnabled && alloc > uint64(max(len(out), len(body))+len(body)/2) {
				t.Errorf("converting %d bytes to %d allocated %d bytes, want at most the larger of the two and half the client's", len(body), len(out), alloc)
			}
		})
	}
}

// TestToolsCostTheirBytes holds the conversion of thousands of tools with
// large or deep schemas to the upstream body and a quarter of the
// client's in allocations: each schema is reduced from its bytes straight
// into the body (schema_bytes.go). Through Go maps the reduction
// allocated about fifty times the schemas' bytes, which took the peak
// heap past three times the body.
func TestToolsCostTheirBytes(t *testing.T) {
	for _, shape := range []struct {
		name  string
		build func(int) []byte
	}{{"many_tools", requestshapes.ManyTools}, {"deep_schemas", requestshapes.DeepSchemas}} {
		t.Run(shape.name, func(t *testing.T) {
			body := shape.build(4 << 20)
			out, alloc := convertCost(t, body)
			t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
			if !providertest.RaceEnabled && alloc > uint64(max(len(out), len(body))+len(body)/4) {
				t.Errorf("converting %d bytes to %d allocated %d bytes, want at most the larger of the two and a quarter of the client's", len(body), len(out), alloc)
			}
		})
	}
}

// resolvedTools is a request of about n tools whose schemas use $defs,
// $ref with a sibling description, anyOf with a null branch, allOf, oneOf,
// const and a type list: what the schema writer resolves and merges.
func resolvedTools(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"claude-x","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"t%d","description":"a tool","input_schema":{"type":"object",`+
			`"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":["number","null"]}},"required":["x"]}},`+
			`"properties":{"p":{"$ref":"#/$defs/P","description":"where"},"q":{"anyOf":[{"type":"string"},{"type":"null"}]},`+
			`"r":{"allOf":[{"$ref":"#/$defs/P"},{"properties":{"z":{"const":"k"}}}]},"s":{"oneOf":[{"type":"string"},{"type":"integer"}]}},`+
			`"required":["p","q"]}}`, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// TestResolvedToolsCostTheirBytes holds the conversion of thousands of
// tools whose schemas the writer resolves and merges to two and a half
// times the larger of the two bodies and a quarter of the client's in
// allocations: the upstream body outgrows its room (the $refs are
// inlined) and is grown once; the merges' member lists serve one schema
// after another. Through Go maps the same request allocated 46 times its
// bytes.
func TestResolvedToolsCostTheirBytes(t *testing.T) {
	body := resolvedTools(4000)
	out, alloc := convertCost(t, body)
	t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
	if !providertest.RaceEnabled && alloc > uint64(max(len(out), len(body))*5/2+len(body)/4) {
		t.Errorf("converting %d bytes to %d allocated %d bytes, want at most two and a half times the larger of the two and a quarter of the client's", len(body), len(out), alloc)
	}
}
