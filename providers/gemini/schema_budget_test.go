package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// bombSchema is a chain of depth definitions, each using the next fan
// times: inlined, it has fan^depth leaves.
func bombSchema(depth, fan int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{`)
	for i := 0; i < depth; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d":{"type":"object","properties":{`, i)
		for j := 0; j < fan; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			if i == depth-1 {
				fmt.Fprintf(&b, `"p%d":{"type":"string","description":"leaf"}`, j)
			} else {
				fmt.Fprintf(&b, `"p%d":{"$ref":"#/$defs/d%d"}`, j, i+1)
			}
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`},"properties":{"root":{"$ref":"#/$defs/d0"}}}`)
	return b.String()
}

// TestReduceSchemaRefBomb: a small schema whose $refs expand as fan^depth
// is refused quickly with ErrSchemaTooLarge, instead of growing without
// bound (a 2.9 KB schema of this shape once exhausted the process's memory).
func TestReduceSchemaRefBomb(t *testing.T) {
	for _, c := range []struct{ depth, fan int }{{12, 4}, {30, 8}, {20, 30}} {
		in := bombSchema(c.depth, c.fan)
		start := time.Now()
		out, err := ReduceSchema([]byte(in))
		if !errors.Is(err, ErrSchemaTooLarge) {
			t.Fatalf("depth %d fan %d (%d bytes): err %v, %d bytes out", c.depth, c.fan, len(in), err, len(out))
		}
		want := fmt.Sprintf("too large once its $refs are inlined (more than 32 times its %d bytes)", len(in))
		if err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("depth %d fan %d took %v", c.depth, c.fan, d)
		}
	}
}

// TestReduceSchemaRefReuse: a definition used at many places, as honest
// schemas do, is still inlined at each.
func TestReduceSchemaRefReuse(t *testing.T) {
	var props []string
	for i := 0; i < 20; i++ {
		props = append(props, fmt.Sprintf(`"c%d":{"$ref":"#/$defs/Color"}`, i))
	}
	in := `{"type":"object","$defs":{"Color":{"type":"string","enum":["red","green","blue"],"description":"a colour of the palette"}},"properties":{` + strings.Join(props, ",") + `}}`
	out, err := ReduceSchema([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), `{"description":"a colour of the palette","enum":["red","green","blue"],"type":"STRING"}`); n != 20 {
		t.Errorf("%d inlined copies, want 20: %s", n, out)
	}
}

// TestReduceSchemaBound: the bound is the multiple given; just under it
// passes, just over it fails.
func TestReduceSchemaBound(t *testing.T) {
	in := bombSchema(3, 4) // 64 leaves from ~300 bytes
	out, err := ReduceSchemaWithin([]byte(in), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), `"leaf"`); n != 64 {
		t.Fatalf("%d leaves, want 64", n)
	}
	if _, err := ReduceSchemaWithin([]byte(in), 2); !errors.Is(err, ErrSchemaTooLarge) {
		t.Fatalf("expansion 2: err %v", err)
	}
}

// TestReduceSchemaRepeatedTypes: a type named several times is one
// branch; a list of "array" types nested in items once grew as 2^depth.
func TestReduceSchemaRepeatedTypes(t *testing.T) {
	got, err := ReduceSchema([]byte(`{"type":"object","properties":{"a":{"type":["array","array","string","string"],"items":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"a":{"anyOf":[{"items":{"type":"STRING"},"type":"ARRAY"},{"type":"STRING"}]}},"type":"OBJECT"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	in := `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":["array","array","array"],"items":`, 30) + `{}` + strings.Repeat(`}`, 30) + `}}`
	if _, err := ReduceSchema([]byte(in)); err != nil {
		t.Fatal(err)
	}
}

// TestReduceSchemaAllOfBomb: allOf chains through $refs are bounded too.
func TestReduceSchemaAllOfBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `"d%d":{"allOf":[`, i)
		for j := 0; j < 6; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"$ref":"#/$defs/d%d"}`, i+1)
		}
		b.WriteString(`]},`)
	}
	b.WriteString(`"d30":{"properties":{"x":{"type":"string"}}}},"properties":{"a":{"$ref":"#/$defs/d0"}}}`)
	start := time.Now()
	_, err := ReduceSchema([]byte(b.String()))
	if err != nil && !errors.Is(err, ErrSchemaTooLarge) {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// FuzzReduceSchema: the reduced schema is JSON and never larger than
// DefaultSchemaExpansion times the input.
func FuzzReduceSchema(f *testing.F) {
	f.Add([]byte(bombSchema(4, 3)))
	f.Add([]byte(`{"type":"object","properties":{"self":{"$ref":"#"},"v":{"type":["string","array","null"],"items":[{"type":"integer"},{"$ref":"#/properties/self"}]}}}`))
	f.Add([]byte(`{"oneOf":[{"type":"object","properties":{"id":{"type":"string"}}},{"allOf":[{"$ref":"#"},{"properties":{"n":{"enum":["a\u2028",null]}}}]}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := ReduceSchema(in)
		if err != nil {
			return
		}
		if len(out) > DefaultSchemaExpansion*len(in) {
			t.Fatalf("%d bytes in, %d out: %s", len(in), len(out), out)
		}
		if out != nil && !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
	})
}

// resolvedSchema is an object schema of about size bytes whose first
// property uses anyOf, which the schema writer leaves to the map reducer.
func resolvedSchema(size int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"number"}]}`)
	for i := 0; b.Len() < size-64; i++ {
		fmt.Fprintf(&b, `,"p%d":{"type":"string","description":"a property of the tool"}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// TestResolvedSchemaBound: a schema only the map reducer takes is refused
// past maxResolvedSchema with a 400 naming the bound, before it is
// decoded, and converted below it.
func TestResolvedSchemaBound(t *testing.T) {
	request := func(schema string) string {
		return `{"model":"gemini-2.5-pro","max_tokens":10,"messages":[{"role":"user","content":"hi"}],` +
			`"tools":[{"name":"t","input_schema":` + schema + `}]}`
	}
	under := resolvedSchema(maxResolvedSchema - 1024)
	if _, err := rewrite(t, New(Config{APIKey: "k"}), exchange(t, testSettings(), request(under)), nil); err != nil {
		t.Fatalf("a %d-byte schema: %v", len(under), err)
	}
	over := resolvedSchema(maxResolvedSchema + 1024)
	_, err := rewrite(t, New(Config{APIKey: "k"}), exchange(t, testSettings(), request(over)), nil)
	e := wire.AsError(err)
	want := fmt.Sprintf("tools.0.input_schema: uses $ref, allOf, anyOf, oneOf, const, a type list or tuple items, "+
		"which are resolved in memory on this provider, and is larger than the 256 KiB such a schema may be (it is %d bytes)", len(over))
	if err == nil || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != want {
		t.Fatalf("a %d-byte schema: %v, want 400 %q", len(over), err, want)
	}
	// The bound is checked before the schema is decoded.
	allocs := testing.AllocsPerRun(3, func() { _, _ = ReduceSchemaWithin([]byte(over), DefaultSchemaExpansion) })
	if allocs > 50 {
		t.Errorf("refusing a %d-byte schema made %.0f allocations", len(over), allocs)
	}
}

// manyRefsSchema has n definitions and n properties each naming one by
// $ref: a $ref's path is looked up in members read once per schema, not
// sorted again at every $ref.
func manyRefsSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d":{"type":"string"}`, i)
	}
	b.WriteString(`},"properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"$ref":"#/$defs/d%d"}`, i, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// BenchmarkReduceSchemaManyRefs reduces a 170 KB schema of 3,000 $refs
// into 3,000 definitions (1.3 s when each $ref sorted the definitions
// again; the map reducer took 35 ms).
func BenchmarkReduceSchemaManyRefs(b *testing.B) {
	in := []byte(manyRefsSchema(3000))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReduceSchema(in); err != nil {
			b.Fatal(err)
		}
	}
}
