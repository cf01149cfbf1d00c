package gemini

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers"
)

// convertCost readies body as the handler does (ScanRequest) and returns
// the converter's conversion of it, for providertest.ConversionCost.
func convertCost(t *testing.T, body []byte) func() ([]byte, error) {
	t.Helper()
	s := testSettings()
	s.Models = []providers.ModelRule{{From: "claude-*", To: "gemini-2.5-pro"}}
	p := New(Config{APIKey: "k"})
	req, err := providers.ParseRequestFor(p, body)
	if err != nil {
		t.Fatal(err)
	}
	x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	return func() ([]byte, error) { return p.requestBody(x, "gemini-2.5-pro") }
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
	providertest.ConversionCost{
		Prepare: convertCost,
		Bound:   func(body, out int) int { return max(out, body) + body/2 },
		Want:    "the larger of the two and half the client's",
	}.Check(t, providertest.HistoryShapes, 8<<20)
}

// TestToolsCostTheirBytes holds the conversion of thousands of tools with
// large or deep schemas to the upstream body and a quarter of the
// client's in allocations: each schema is reduced from its bytes straight
// into the body (schema_bytes.go). Through Go maps the reduction
// allocated about fifty times the schemas' bytes, which took the peak
// heap past three times the body.
func TestToolsCostTheirBytes(t *testing.T) {
	providertest.ConversionCost{
		Prepare: convertCost,
		Bound:   func(body, out int) int { return max(out, body) + body/4 },
		Want:    "the larger of the two and a quarter of the client's",
	}.Check(t, providertest.ToolShapes, 4<<20)
}

// TestOddMembersCostTheirBytes: a request whose blocks or top-level
// members encoding/json reads otherwise than by their first exact name
// (another case, repeated, null) costs the read and the conversion
// together what the plain request costs (the upstream body and half the
// client's), not the full typed parse the read fell back to (~27× the
// body).
func TestOddMembersCostTheirBytes(t *testing.T) {
	base := requestshapes.TinyBlocks(4 << 20)
	const block, head = `{"type":"text","text":"a"}`, `{"model":`
	for _, c := range []struct{ name, old, new string }{
		{"block member in another case", block, `{"Type":"text","TEXT":"a"}`},
		{"repeated block member", block, `{"type":"text","text":"b","text":"a"}`},
		{"null block member", block, `{"type":"text","text":"a","text":null}`},
		{"odd top-level member", head, `{"Max_Tokens":1,"stream":null,"model":"x","model":`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := bytes.Replace(base, []byte(c.old), []byte(c.new), -1)
			plain, err := convertCost(t, base)()
			if err != nil {
				t.Fatal(err)
			}
			out, alloc := providertest.Allocated(t, func() ([]byte, error) { return convertCost(t, body)() })
			if !bytes.Equal(out, plain) {
				t.Fatalf("the upstream body differs from the plain request's")
			}
			t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
			if !providertest.RaceEnabled && alloc > uint64(max(len(out), len(body))+len(body)/2) {
				t.Errorf("reading and converting %d bytes to %d allocated %d bytes, want at most the larger of the two and half the client's", len(body), len(out), alloc)
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
	out, alloc := providertest.Allocated(t, convertCost(t, body))
	t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
	if !providertest.RaceEnabled && alloc > uint64(max(len(out), len(body))*5/2+len(body)/4) {
		t.Errorf("converting %d bytes to %d allocated %d bytes, want at most two and a half times the larger of the two and a quarter of the client's", len(body), len(out), alloc)
	}
}
