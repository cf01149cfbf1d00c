package providertest

import (
	"runtime"
	"testing"

	"github.com/thinkgate/thinkgate/internal/requestshapes"
)

// HistoryShapes are the request shapes whose cost is in the history: many
// blocks, many turns, deep inputs, long arrays (docs/performance.md,
// "Memory on every request shape").
var HistoryShapes = pickShapes("tiny_blocks", "many_messages", "nested_inputs", "empty_strings")

// ToolShapes are the request shapes whose cost is in the tools: many
// tools, deep schemas.
var ToolShapes = pickShapes("many_tools", "deep_schemas")

func pickShapes(names ...string) []requestshapes.Shape {
	var out []requestshapes.Shape
	for _, name := range names {
		found := false
		for _, s := range requestshapes.Shapes {
			if s.Name == name {
				out, found = append(out, s), true
			}
		}
		if !found {
			panic("providertest: no request shape " + name)
		}
	}
	return out
}

// Allocated runs convert and returns its upstream body and the bytes it
// allocated; its error fails t.
func Allocated(t testing.TB, convert func() ([]byte, error)) ([]byte, uint64) {
	t.Helper()
	var out []byte
	var err error
	n := AllocatedBy(func() { out, err = convert() })
	if err != nil {
		t.Fatal(err)
	}
	return out, n
}

// AllocatedBy is the number of bytes f allocates on the heap.
func AllocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// ConversionCost is a memory test of a provider's request conversion:
// what converting a request allocates, against a bound of the request's
// and the upstream body's sizes.
type ConversionCost struct {
	// Prepare readies body as the handler does (parse, exchange) and
	// returns the conversion, which alone is measured.
	Prepare func(t *testing.T, body []byte) func() ([]byte, error)
	// Bound is the bytes converting a client's body of size body into an
	// upstream body of size out may allocate; Want says it in words.
	Bound func(body, out int) int
	Want  string
}

// Check runs one subtest per shape, built at size bytes. Under the race
// detector (RaceEnabled) the conversion runs but its cost is not held to
// the bound.
func (c ConversionCost) Check(t *testing.T, shapes []requestshapes.Shape, size int) {
	t.Helper()
	for _, shape := range shapes {
		t.Run(shape.Name, func(t *testing.T) {
			body := shape.Build(size)
			out, alloc := Allocated(t, c.Prepare(t, body))
			t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
			if !RaceEnabled && alloc > uint64(c.Bound(len(body), len(out))) {
				t.Errorf("converting %d bytes to %d allocated %d bytes, want at most %s", len(body), len(out), alloc, c.Want)
			}
		})
	}
}
