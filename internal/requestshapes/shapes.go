// Package requestshapes generates Anthropic Messages requests of hostile
// shapes, each of about a given size: the shapes whose parse and
// conversion cost most per byte of body (docs/performance.md, "Memory on
// every request shape"). The request-cost benchmark (bench -phase
// request) and the memory benchmark (providers, BenchmarkRequestMemory)
// run every provider on each.
package requestshapes

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// Shape is one request shape.
type Shape struct {
	// Name names the shape in benchmark names and tables.
	Name string
	// What says what the request holds.
	What string
	// Build returns a valid request of the shape of about size bytes.
	Build func(size int) []byte
}

// Shapes are the shapes every provider is measured on.
var Shapes = []Shape{
	{"tiny_blocks", "one user turn of tiny text blocks ({\"type\":\"text\",\"text\":\"a\"}, ~1.25 M in 31 MiB)", TinyBlocks},
	{"odd_members", "tiny_blocks whose every block has a member in another case, a null one and a repeated one ({\"Type\":\"text\",\"text\":null,\"text\":\"a\"}), and odd top-level members", OddMembers},
	{"many_messages", "alternating user and assistant turns of one string each, as many as a request may hold (100,000)", ManyMessages},
	{"nested_inputs", "tool loops whose tool_use inputs and tool schemas nest 400 levels deep", NestedInputs},
	{"empty_strings", "one tool_use whose input is a long array of empty strings", EmptyStrings},
	{"many_tools", "as many tool definitions as a request may hold (4,096), and one user turn", ManyTools},
	{"deep_schemas", "tool definitions whose schemas nest 400 objects deep (~2,000 in 30 MiB), and one user turn", DeepSchemas},
}

// head is every shape's start; tail its end after the messages array.
const (
	head = `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[`
	tail = `]}`
)

// TinyBlocks is one user turn of tiny text blocks.
func TinyBlocks(size int) []byte {
	return oneTurnOf(head, `{"type":"text","text":"a"}`, size)
}

// oneTurnOf is one user turn of blk repeated, after the request's start
// (everything before the turn), to about size bytes.
func oneTurnOf(start, blk string, size int) []byte {
	b := bytes.NewBufferString(start + `{"role":"user","content":[`)
	for i := 0; b.Len() < size-len(tail)-4 || i == 0; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(blk)
	}
	b.WriteString(`]}` + tail)
	return b.Bytes()
}

// OddMembers is TinyBlocks with what encoding/json reads otherwise than
// by a member's first exact name on every block (a name in another case,
// a null, a repeat) and at the top level: the shapes a byte-level reader
// may hand to a full parse.
func OddMembers(size int) []byte {
	return oneTurnOf(`{"Model":"x","model":"claude-sonnet-4-5","max_tokens":null,"Max_Tokens":1024,"stream":true,"messages":[`,
		`{"Type":"text","text":null,"text":"a"}`, size)
}

// ManyMessages is alternating turns of one string each: as many as the
// gateway takes (wire.MaxMessages), each as short as size allows.
func ManyMessages(size int) []byte {
	n := max(2, min(size/30, wire.MaxMessages))
	text := strings.Repeat("a", max(1, size/n-34))
	b := bytes.NewBufferString(head)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%2 == 0 {
			b.WriteString(`{"role":"user","content":"` + text + `"}`)
		} else {
			b.WriteString(`{"role":"assistant","content":"` + text + `"}`)
		}
	}
	b.WriteString(tail)
	return b.Bytes()
}

// nested is a JSON value nesting depth levels of objects and arrays.
func nested(depth int) string {
	return strings.Repeat(`{"a":[`, depth) + `1` + strings.Repeat(`]}`, depth)
}

// NestedInputs is tool loops whose tool_use inputs nest deeply, with
// tools whose schemas do too.
func NestedInputs(size int) []byte {
	deep := nested(400)
	b := bytes.NewBufferString(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"tools":[`)
	for i := range 8 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"tool_` + strconv.Itoa(i) + `","input_schema":{"type":"object","properties":{"x":` + deep + `}}}`)
	}
	b.WriteString(`],"messages":[{"role":"user","content":"go"}`)
	for i := 0; b.Len() < size-len(tail); i++ {
		id := "toolu_" + strconv.Itoa(i)
		b.WriteString(`,{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"tool_1","input":` + deep + `}]}`)
		b.WriteString(`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]}`)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// EmptyStrings is one tool loop whose tool_use input is a long array of
// empty strings.
func EmptyStrings(size int) []byte {
	b := bytes.NewBufferString(head + `{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{"a":[`)
	const end = `]}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}` + tail
	for i := 0; b.Len() < size-len(end) || i == 0; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`""`)
	}
	b.WriteString(end)
	return b.Bytes()
}

// ManyTools is as many tool definitions as the gateway takes
// (wire.MaxTools), each with a schema of as many properties as size
// allows, and one user turn.
func ManyTools(size int) []byte {
	n := max(1, min(size/40, wire.MaxTools))
	props := max(0, (size/n-60)/24)
	var schema strings.Builder
	schema.WriteString(`{"type":"object","properties":{`)
	for p := range props {
		if p > 0 {
			schema.WriteByte(',')
		}
		schema.WriteString(`"p` + strconv.Itoa(p) + `":{"type":"string"}`)
	}
	schema.WriteString(`}}`)
	b := bytes.NewBufferString(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"t` + strconv.Itoa(i) + `","input_schema":` + schema.String() + `}`)
	}
	b.WriteString(`],"messages":[{"role":"user","content":"go"}]}`)
	return b.Bytes()
}

// DeepSchemas is as many tool definitions as size allows (at most
// wire.MaxTools), each with a schema nesting 400 objects deep, and
// one user turn.
func DeepSchemas(size int) []byte {
	const depth = 400
	schema := strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth)
	n := max(1, min(size/(len(schema)+16), wire.MaxTools))
	b := bytes.NewBufferString(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"t` + strconv.Itoa(i) + `","input_schema":` + schema + `}`)
	}
	b.WriteString(`],"messages":[{"role":"user","content":"go"}]}`)
	return b.Bytes()
}
