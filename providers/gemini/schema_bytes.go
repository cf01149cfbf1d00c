package gemini

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// Reducing a schema through Go maps (schema.go) allocates about fifty
// times the schema's bytes, all garbage by the next tool; on thousands of
// tools the heap grows to twice what is live before the collector frees
// it. schemaWriter reduces the schemas most clients send from their bytes
// and writes Gemini's form straight into the body, allocating nothing per
// schema but its member lists (kept from one schema to the next). It takes
// the keywords a schema is read by without resolving or merging anything:
// type as a string, description, nullable, enum, format, minimum, maximum,
// items as one schema, minItems, maxItems, properties, required, and any
// keyword Gemini drops. A schema with $ref, allOf, anyOf, oneOf, const, a
// type list, tuple items, a member name holding an escape or a byte
// outside printable ASCII, a repeated member, more than maxRequiredNames
// required names, or a reduction past its budget is left to the map
// reducer, which writes the same schema for everything the writer takes
// (FuzzSchemaWriterMatchesMaps holds them to each other).

// errLeftToMaps stops a walk of a schema the writer leaves to the map
// reducer.
var errLeftToMaps = errors.New("left to the map reducer")

// maxRequiredNames bounds the required names the writer takes: it checks
// a name against those it wrote before it one by one.
const maxRequiredNames = 256

// schemaMember is a member of a schema object: its name (plain, as
// written) and the index of its value.
type schemaMember struct {
	name []byte
	at   int
}

// schemaWriter writes reduced schemas; its buffers serve one schema after
// another.
type schemaWriter struct {
	data          []byte
	out           []byte
	spent, budget int
	members       []schemaMember // a stack: each node's members above its parent's
	text          []byte         // a decoded string
	// ends are the objects and arrays of the schema down to indexDepth,
	// in the order they open, with the index past each: a member's value
	// is stepped over by looking up its end, not by walking it again at
	// every level above it (a schema nesting 400 levels would be walked
	// 400 times over). open is the index's stack of open ones.
	ends []containerEnd
	open []int
}

// containerEnd is an object or array of the schema: where it starts and
// the index past it.
type containerEnd struct{ start, end int }

// indexDepth is how deep the writer looks into a schema, in JSON's
// nesting: a schema level is an object and its properties' object, and
// the writer stops at maxSchemaDepth levels.
const indexDepth = 2*maxSchemaDepth + 8

// index fills ends for w.data; false for what is not JSON's nesting.
func (w *schemaWriter) index() bool {
	w.ends, w.open = w.ends[:0], w.open[:0]
	data, depth := w.data, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			end, _, _ := jsonbytes.ScanString(data, i)
			if end < 0 {
				return false
			}
			i = end - 1
		case '{', '[':
			if depth < indexDepth {
				w.ends = append(w.ends, containerEnd{start: i, end: -1})
				w.open = append(w.open, len(w.ends)-1)
			}
			depth++
		case '}', ']':
			if depth--; depth < 0 {
				return false
			}
			if depth < indexDepth {
				j := w.open[len(w.open)-1]
				w.open = w.open[:len(w.open)-1]
				w.ends[j].end = i + 1
			}
		}
	}
	return depth == 0
}

// skip returns the index past the value at i.
func (w *schemaWriter) skip(i int) (int, error) {
	if c := w.data[i]; c == '{' || c == '[' {
		j, found := slices.BinarySearchFunc(w.ends, i, func(e containerEnd, at int) int { return e.start - at })
		if found && w.ends[j].end > 0 {
			return w.ends[j].end, nil
		}
	}
	_, _, end, err := jsonbytes.SkipValue(w.data, i)
	return end, err
}

// appendSchema appends the reduction of raw (trimmed, not empty, not
// null) to dst within budget; ok is false, with dst as it was, for a
// schema the writer leaves to the map reducer. none reports a schema that
// reduces to nothing (no parameters).
func (w *schemaWriter) appendSchema(dst, raw []byte, budget int) (_ []byte, none, ok bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return dst, false, false
	}
	w.data, w.out, w.spent, w.budget = raw, dst, 0, budget
	w.members = w.members[:0]
	if !w.index() {
		w.data, w.out = nil, nil
		return dst, false, false
	}
	start := len(dst)
	props, ok := w.node(0, 0, true)
	w.spent += len(`,"type":"OBJECT"`)
	out := w.out
	w.data, w.out = nil, nil
	if !ok || w.spent > w.budget {
		return dst[:start], false, false
	}
	if !props {
		return dst[:start], true, true
	}
	return out, false, true
}

// kind is the kind of the value at i.
func (w *schemaWriter) kind(i int) byte { return w.data[i] }

// str returns the text of the string at i as encoding/json decodes it,
// and its bytes as written (between the quotes); valid until the next
// call.
func (w *schemaWriter) str(i int) (text, raw []byte, ok bool) {
	end, escaped, _ := jsonbytes.ScanString(w.data, i)
	if end < 0 {
		return nil, nil, false
	}
	raw = w.data[i+1 : end-1]
	if !escaped && jsonbytes.ValidUTF8(raw) {
		return raw, raw, true
	}
	t, err := jsonbytes.AppendDecoded(w.text[:0], raw)
	if err != nil {
		return nil, nil, false
	}
	w.text = t
	return t, raw, true
}

// plainName reports a member name the writer takes: no escape, printable
// ASCII, so its bytes are its text.
func plainName(name []byte) bool {
	for _, c := range name {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return true
}

// readMembers pushes the members of the object at i onto w.members,
// sorted by name; ok is false for a name the writer does not take or a
// repeated one.
func (w *schemaWriter) readMembers(i int) (start int, ok bool) {
	start = len(w.members)
	_, err := jsonbytes.ScanObjectAt(w.data, i, func(key []byte, at int) (int, error) {
		if !plainName(key) {
			return -1, errLeftToMaps
		}
		at = jsonbytes.SkipSpace(w.data, at)
		end, err := w.skip(at)
		if err != nil {
			return -1, err
		}
		w.members = append(w.members, schemaMember{name: key, at: at})
		return end, nil
	})
	if err != nil {
		return start, false
	}
	ms := w.members[start:]
	slices.SortFunc(ms, func(a, b schemaMember) int { return bytes.Compare(a.name, b.name) })
	for j := 1; j < len(ms); j++ {
		if bytes.Equal(ms[j-1].name, ms[j].name) {
			return start, false
		}
	}
	return start, true
}

// keywords are the indexes of a schema's values the writer reads, -1
// when absent.
type keywords struct {
	description, nullable, typ, enum, format, minimum, maximum int
	items, minItems, maxItems, properties, required            int
}

// schemaKey appends a member name and its colon, after a comma unless it
// is the object's first.
func (w *schemaWriter) schemaKey(first *bool, name string) {
	if !*first {
		w.out = append(w.out, ',')
	}
	*first = false
	w.out = append(w.out, '"')
	w.out = append(w.out, name...)
	w.out = append(w.out, '"', ':')
}

// node writes the reduction of the schema at i, as reducer.node does
// (keys in encoding/json's order: sorted); root leaves nullable out, as
// ReduceSchemaWithin does. props reports an OBJECT with properties.
func (w *schemaWriter) node(i, depth int, root bool) (props, ok bool) {
	if depth > maxSchemaDepth || w.spent > w.budget || w.kind(i) != '{' {
		w.spent += 2
		w.out = append(w.out, "{}"...)
		return false, true
	}
	start, ok := w.readMembers(i)
	if !ok {
		return false, false
	}
	k := keywords{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	for _, m := range w.members[start:] {
		switch string(m.name) {
		case "$ref", "allOf", "anyOf", "oneOf", "const":
			return false, false
		case "description":
			k.description = m.at
		case "nullable":
			k.nullable = m.at
		case "type":
			k.typ = m.at
		case "enum":
			k.enum = m.at
		case "format":
			k.format = m.at
		case "minimum":
			k.minimum = m.at
		case "maximum":
			k.maximum = m.at
		case "items":
			k.items = m.at
		case "minItems":
			k.minItems = m.at
		case "maxItems":
			k.maxItems = m.at
		case "properties":
			k.properties = m.at
		case "required":
			k.required = m.at
		}
	}
	w.spent += len(w.members) - start // the keywords looked at, dropped or not
	w.members = w.members[:start]

	charge := 2
	nullable := k.nullable >= 0 && w.kind(k.nullable) == 't'
	var kept string
	if k.typ >= 0 {
		switch w.kind(k.typ) {
		case '[':
			return false, false
		case '"':
			t, _, ok := w.str(k.typ)
			if !ok {
				return false, false
			}
			if string(t) == "null" {
				nullable = true
			} else if g, ok := geminiTypes[string(t)]; ok {
				kept = g
			}
		}
	}

	// enum: strings, a null among them making the schema nullable.
	enumOK, enumCount, enumCharge := true, 0, 2
	if k.enum >= 0 && w.kind(k.enum) == '[' {
		_, err := jsonbytes.ScanArrayAt(w.data, k.enum, func(at int) (int, error) {
			end, err := w.skip(at)
			if err != nil {
				return -1, err
			}
			switch w.kind(at) {
			case '"':
				t, _, ok := w.str(at)
				if !ok {
					return -1, errLeftToMaps
				}
				enumCount++
				enumCharge += jsonStringLen(t) + 1
			case 'n':
				nullable = true
			default:
				enumOK = false
			}
			return end, nil
		})
		if err != nil {
			return false, false
		}
	}
	withEnum := enumOK && enumCount > 0 && (kept == "" || kept == "STRING")
	if withEnum {
		kept = "STRING"
	}
	if kept == "" {
		// Untyped but shaped like an object or array: say so.
		if k.properties >= 0 {
			kept = "OBJECT"
		} else if k.items >= 0 {
			kept = "ARRAY"
		}
	}
	var withProps bool
	if kept == "OBJECT" {
		withProps = k.properties >= 0 && w.kind(k.properties) == '{' &&
			w.data[jsonbytes.SkipSpace(w.data, k.properties+1)] != '}'
		if !withProps {
			// Gemini: "properties: should be non-empty for OBJECT type".
			// A free-form object becomes a schema that accepts any value.
			kept = ""
		}
	}

	first := true
	w.out = append(w.out, '{')
	if k.description >= 0 && w.kind(k.description) == '"' {
		t, raw, ok := w.str(k.description)
		if !ok {
			return false, false
		}
		if len(t) > 0 {
			charge += len("description") + 4 + jsonStringLen(t)
			w.schemaKey(&first, "description")
			w.out = append(w.out, '"')
			w.out, _ = jsonbytes.AppendCanonicalBody(w.out, raw)
			w.out = append(w.out, '"')
		}
	}
	if withEnum {
		charge += len("enum") + 4 + enumCharge
		w.schemaKey(&first, "enum")
		w.out = append(w.out, '[')
		n := 0
		_, _ = jsonbytes.ScanArrayAt(w.data, k.enum, func(at int) (int, error) {
			end, _ := w.skip(at)
			if w.kind(at) == '"' {
				if n > 0 {
					w.out = append(w.out, ',')
				}
				n++
				_, raw, _ := w.str(at)
				w.out = append(w.out, '"')
				w.out, _ = jsonbytes.AppendCanonicalBody(w.out, raw)
				w.out = append(w.out, '"')
			}
			return end, nil
		})
		w.out = append(w.out, ']')
	}
	if kept != "" && k.format >= 0 && w.kind(k.format) == '"' {
		t, _, ok := w.str(k.format)
		if !ok {
			return false, false
		}
		if geminiFormats[kept][string(t)] {
			charge += len("format") + 4 + jsonStringLen(t)
			w.schemaKey(&first, "format")
			w.out = jsonbytes.AppendString(w.out, t)
		}
	}
	number := func(at int) bool { c := w.kind(at); return c == '-' || c >= '0' && c <= '9' }
	literal := func(at int) []byte { v, _, _, _ := jsonbytes.SkipValue(w.data, at); return v }
	if kept == "ARRAY" {
		charge += len("items") + 4 + 2
		w.schemaKey(&first, "items")
		switch {
		case k.items >= 0 && w.kind(k.items) == '[':
			return false, false // tuple form
		case k.items >= 0 && w.kind(k.items) == '{':
			if _, ok := w.node(k.items, depth+1, false); !ok {
				return false, false
			}
		default:
			w.out = append(w.out, "{}"...) // Gemini: "items: missing field"
		}
		for _, c := range []struct {
			name string
			at   int
		}{{"maxItems", k.maxItems}, {"minItems", k.minItems}} {
			if c.at < 0 || !number(c.at) {
				continue
			}
			n := literal(c.at)
			if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
				continue
			}
			charge += len(c.name) + 4 + len(n)
			w.schemaKey(&first, c.name)
			w.out = append(w.out, n...)
		}
	}
	if kept == "NUMBER" || kept == "INTEGER" {
		for _, c := range []struct {
			name string
			at   int
		}{{"maximum", k.maximum}, {"minimum", k.minimum}} {
			if c.at < 0 || !number(c.at) {
				continue
			}
			n := literal(c.at)
			charge += len(c.name) + 4 + len(n)
			w.schemaKey(&first, c.name)
			w.out = append(w.out, n...)
		}
	}
	if nullable {
		charge += len("nullable") + 4 + 5
		if !root {
			w.schemaKey(&first, "nullable")
			w.out = append(w.out, "true"...)
		}
	}
	if withProps {
		props, ok := w.properties(&first, k.properties, depth, &charge)
		if !ok {
			return false, false
		}
		if k.required >= 0 && w.kind(k.required) == '[' && !w.required(&first, k.required, props, &charge) {
			return false, false
		}
		w.members = w.members[:props]
	}
	if kept != "" {
		charge += len("type") + 4 + len(kept) + 2
		w.schemaKey(&first, "type")
		w.out = append(w.out, '"')
		w.out = append(w.out, kept...)
		w.out = append(w.out, '"')
	}
	w.out = append(w.out, '}')
	w.spent += charge
	return withProps, true
}

// properties writes the properties at i, sorted by name, each reduced,
// and leaves them on the members' stack from start.
func (w *schemaWriter) properties(first *bool, i, depth int, charge *int) (start int, ok bool) {
	start, ok = w.readMembers(i)
	if !ok {
		return start, false
	}
	end := len(w.members)
	*charge += len("properties") + 4 + 2
	w.schemaKey(first, "properties")
	w.out = append(w.out, '{')
	for j := start; j < end; j++ {
		m := w.members[j] // the stack may move as the value is reduced
		if j > start {
			w.out = append(w.out, ',')
		}
		*charge += len(m.name) + 4
		w.out = append(w.out, '"')
		w.out = append(w.out, m.name...)
		w.out = append(w.out, '"', ':')
		if _, ok := w.node(m.at, depth+1, false); !ok {
			return start, false
		}
	}
	w.out = append(w.out, '}')
	return start, true
}

// required writes the required names at i that name a property (the
// members' stack from props on, sorted), each once, in their order.
func (w *schemaWriter) required(first *bool, i, props int, charge *int) bool {
	n, at := 0, len(w.out)
	names := 0
	_, err := jsonbytes.ScanArrayAt(w.data, i, func(el int) (int, error) {
		end, err := w.skip(el)
		if err != nil {
			return -1, err
		}
		if w.kind(el) != '"' {
			return end, nil
		}
		if names++; names > maxRequiredNames {
			return -1, errLeftToMaps
		}
		t, _, ok := w.str(el)
		if !ok {
			return -1, errLeftToMaps
		}
		if _, found := slices.BinarySearchFunc(w.members[props:], t, func(m schemaMember, name []byte) int { return bytes.Compare(m.name, name) }); !found || w.written(at, n, t) {
			return end, nil
		}
		if n == 0 {
			w.schemaKey(first, "required")
			at = len(w.out)
			w.out = append(w.out, '[')
			*charge += len("required") + 4 + 2
		} else {
			w.out = append(w.out, ',')
		}
		n++
		*charge += jsonStringLen(t) + 1
		w.out = append(w.out, '"')
		w.out = append(w.out, t...) // a property's name: plain
		w.out = append(w.out, '"')
		return end, nil
	})
	if err != nil {
		return false
	}
	if n > 0 {
		w.out = append(w.out, ']')
	}
	return true
}

// written reports whether the list of n names at at of the output holds
// name.
func (w *schemaWriter) written(at, n int, name []byte) bool {
	if n == 0 {
		return false
	}
	list := w.out[at+1:]
	for len(list) > 0 {
		end := bytes.IndexByte(list[1:], '"') + 1
		if bytes.Equal(list[1:end], name) {
			return true
		}
		list = list[min(end+2, len(list)):]
	}
	return false
}
