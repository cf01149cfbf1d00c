package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// schemaWriter reduces a schema (the rules are in schema.go) from its
// bytes and writes Gemini's form straight into the request body. Decoding
// schemas into Go maps allocated about fifty times their bytes, all
// garbage by the next tool; on thousands of tools the heap grew to twice
// what was live before the collector freed it. The writer allocates
// nothing per schema but its member lists (kept from one schema to the
// next), and for what only some schemas use ($ref, allOf) the lists of a
// merge.
//
// A schema node is read as its member list, sorted by decoded name, the
// last of a repeated name kept (as encoding/json decodes an object). An
// allOf merges member lists: the first schema that has a keyword gives it,
// except properties (united, the first schema with a name giving its
// value) and required (concatenated), which become merged values naming
// their sources. Output members are written in sorted order (encoding/json's
// order for a map); what depends on a reduced subschema (a lone anyOf
// branch merged into its parent, a $ref's sibling description, the root's
// union of object branches) is written first and its members spliced in
// order after.
//
// The work and the output are bounded by the budget (spent counts what is
// built and walked, the same way for every shape), and a schema past
// maxResolvedSchema is reduced only when it needs nothing resolved or
// merged, so what it costs stays proportional to its bytes.
//
// The map reducer this writer replaced is its oracle in the tests
// (schema_oracle_test.go): FuzzSchemaWriterMatchesMaps and
// TestSchemaWriterMatchesMapsRandom hold the two to the same bytes, the
// same refusals and the same budget.

// errLeftToResolve stops the walk of a schema past maxResolvedSchema at
// the first thing it would resolve or merge.
var errLeftToResolve = errors.New("needs resolving")

// errSchemaOver stops the walk of a schema whose reduction passes its
// budget.
var errSchemaOver = errors.New("over budget")

// errSchemaSyntax is a schema that is not valid JSON.
var errSchemaSyntax = errors.New("not valid JSON")

// maxRequiredNames bounds the required names a schema past
// maxResolvedSchema may list.
const maxRequiredNames = 256

// schemaMember is a member of a schema object: its decoded name, and
// either the index of its value in the schema (at >= 0) or, for a
// properties or required an allOf merged, ^ the index of its mergedValue.
type schemaMember struct {
	name []byte
	at   int
}

// mergedValue is the properties (objects, united, the first with a name
// winning) or required (arrays, concatenated) of an allOf.
type mergedValue struct {
	start, end int // of its sources in schemaWriter.sources
	n          int // required: the elements of all sources
}

// schemaWriter writes reduced schemas; its buffers serve one schema after
// another.
type schemaWriter struct {
	data          []byte
	out           []byte
	spent, budget int
	// small is set for a schema of at most maxResolvedSchema bytes: only
	// it may be resolved and merged.
	small   bool
	members []schemaMember // a stack: each node's members above its parent's
	text    []byte         // a decoded string
	refs    [][]byte       // the $refs being expanded, for the cycle cut-off
	merged  []mergedValue
	// mergedSources hold the sources of every mergedValue; lists are
	// the member lists of merges, kept for the next.
	mergedSources []int
	lists         [][]schemaMember
	paths         map[int][2]int // pathMembers': spans of pathArena
	pathArena     []schemaMember
	used          []bool // the required names written, by property
	scratch       []byte // a node's members while they are spliced
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

// outKey names the members a reduced schema may have, in their sorted
// order.
type outKey int

const (
	kAnyOf outKey = iota
	kDescription
	kEnum
	kFormat
	kItems
	kMaxItems
	kMaximum
	kMinItems
	kMinimum
	kNullable
	kProperties
	kRequired
	kType
	outKeys
)

var outKeyNames = [outKeys]string{"anyOf", "description", "enum", "format", "items", "maxItems",
	"maximum", "minItems", "minimum", "nullable", "properties", "required", "type"}

// nodeCharges are what each member of a reduced schema counts against the
// budget (0: absent): its encoded name and colon and comma, and its value
// (a nested schema counts its braces; properties its names too).
type nodeCharges [outKeys]int

func (c *nodeCharges) total() int {
	n := 2
	for _, v := range c {
		n += v
	}
	return n
}

// appendSchema appends the reduction of raw (trimmed, not empty, not
// null) to dst, at most expansion times its size. none reports a schema
// that reduces to nothing (no parameters); dst is then as it was.
func (w *schemaWriter) appendSchema(dst, raw []byte, expansion int) (_ []byte, none bool, err error) {
	budget := expansion * len(raw)
	if budget/len(raw) != expansion {
		budget = math.MaxInt // no bound an operator could mean
	}
	start := len(dst)
	w.data, w.out, w.spent, w.budget = raw, dst, 0, budget
	w.small = len(raw) <= maxResolvedSchema
	w.members, w.refs, w.merged, w.mergedSources = w.members[:0], w.refs[:0], w.merged[:0], w.mergedSources[:0]
	props, err := w.root()
	out := w.out
	w.data, w.out = nil, nil
	clear(w.paths)
	w.pathArena = w.pathArena[:0]
	switch {
	case err == nil:
	case !w.small:
		err = fmt.Errorf("%w (it is %d bytes)", ErrSchemaTooLargeToResolve, len(raw))
	case err == errSchemaOver:
		err = fmt.Errorf("%w (more than %d times its %d bytes)", ErrSchemaTooLarge, expansion, len(raw))
	case err == errNotObject:
		err = errors.New("must be a JSON Schema object")
	default:
		err = errSchemaSyntax
	}
	if err != nil {
		return dst[:start], false, err
	}
	if !props {
		return dst[:start], true, nil
	}
	return out, false, nil
}

// errNotObject is a schema that is JSON but not an object.
var errNotObject = errors.New("not an object")

// root writes the root schema: one OBJECT (a union of object branches
// becomes one object with the properties of every branch, none required),
// never nullable. props is false for a schema with no properties.
func (w *schemaWriter) root() (props bool, err error) {
	if w.data[0] != '{' {
		if !w.small || json.Valid(w.data) {
			return false, errNotObject
		}
		return false, errSchemaSyntax
	}
	if !w.index() {
		return false, errSchemaSyntax
	}
	p := len(w.out)
	c, err := w.node(0, 0)
	if err != nil {
		return false, err
	}
	if w.spent += len(`,"type":"OBJECT"`); w.spent > w.budget {
		return false, errSchemaOver
	}
	if c[kProperties] > 0 {
		if c[kNullable] > 0 {
			w.splice(p, nil, false, true)
		}
		return true, nil
	}
	return w.mergeObjectBranches(p)
}

// mergeObjectBranches rewrites the reduced root at p, which has no
// properties, as an OBJECT with the properties of its anyOf branches (the
// first branch with a name giving its schema) and its description.
func (w *schemaWriter) mergeObjectBranches(p int) (props bool, err error) {
	type prop struct {
		name       []byte // decoded
		raw, value []byte // as written
	}
	var (
		desc  []byte
		names []prop
	)
	obj := w.out[p:]
	_, err = jsonbytes.ScanObjectAt(obj, 0, func(key []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(obj, at)
		if err != nil {
			return -1, err
		}
		switch string(key) {
		case "description":
			desc = obj[at:end]
		case "anyOf":
			_, err = jsonbytes.ScanArrayAt(obj, at, func(b int) (int, error) {
				return jsonbytes.ScanObjectAt(obj, b, func(key []byte, at int) (int, error) {
					_, _, end, err := jsonbytes.SkipValue(obj, at)
					if err != nil || string(key) != "properties" {
						return end, err
					}
					return jsonbytes.ScanObjectAt(obj, at, func(key []byte, at int) (int, error) {
						v, _, end, err := jsonbytes.SkipValue(obj, at)
						if err != nil {
							return -1, err
						}
						name, err := jsonbytes.AppendDecoded(nil, key)
						if err != nil {
							return -1, err
						}
						names = append(names, prop{name: name, raw: key, value: v})
						return end, nil
					})
				})
			})
			return end, err
		}
		return end, nil
	})
	if err != nil {
		return false, err
	}
	if len(names) == 0 {
		w.out = w.out[:p]
		return false, nil
	}
	slices.SortStableFunc(names, func(a, b prop) int { return bytes.Compare(a.name, b.name) })
	s := append(w.scratch[:0], '{')
	if desc != nil {
		s = append(s, `"description":`...)
		s = append(s, desc...)
		s = append(s, ',')
	}
	s = append(s, `"properties":{`...)
	for j, n := range names {
		if j > 0 && bytes.Equal(n.name, names[j-1].name) {
			continue // the first branch's
		}
		if j > 0 {
			s = append(s, ',')
		}
		s = append(s, '"')
		s = append(s, n.raw...)
		s = append(s, '"', ':')
		s = append(s, n.value...)
	}
	s = append(s, `},"type":"OBJECT"}`...)
	w.scratch = s
	w.out = append(w.out[:p], s...)
	return true, nil
}

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

// kind is the kind of the value at (a merged properties is an object, a
// merged required an array).
func (w *schemaWriter) kind(at int) byte {
	if at < 0 {
		if w.data[w.mergedSources[w.merged[^at].start]] == '[' {
			return '['
		}
		return '{'
	}
	return w.data[at]
}

// str returns the text of the string at i as encoding/json decodes it,
// and its bytes as written (between the quotes); valid until the next
// call.
func (w *schemaWriter) str(i int) (text, raw []byte, err error) {
	end, escaped, _ := jsonbytes.ScanString(w.data, i)
	if end < 0 {
		return nil, nil, errSchemaSyntax
	}
	raw = w.data[i+1 : end-1]
	if !escaped && jsonbytes.ValidUTF8(raw) {
		return raw, raw, nil
	}
	t, err := jsonbytes.AppendDecoded(w.text[:0], raw)
	if err != nil {
		return nil, nil, errSchemaSyntax
	}
	w.text = t
	return t, raw, nil
}

// plainName reports a member name that is its own text: no escape,
// printable ASCII.
func plainName(name []byte) bool {
	for _, c := range name {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return true
}

func compareMembers(a, b schemaMember) int { return bytes.Compare(a.name, b.name) }

// compareMembersInOrder orders an object's members by name, then as
// written (a value's index grows with its member's place).
func compareMembersInOrder(a, b schemaMember) int {
	if c := bytes.Compare(a.name, b.name); c != 0 {
		return c
	}
	return a.at - b.at
}

// readMembers pushes the members of the object at i onto w.members,
// sorted by decoded name, the last of a repeated name kept, and returns
// them.
func (w *schemaWriter) readMembers(i int) ([]schemaMember, error) {
	start := len(w.members)
	_, err := jsonbytes.ScanObjectAt(w.data, i, func(key []byte, at int) (int, error) {
		name := key
		if !plainName(key) {
			if !w.small {
				return -1, errLeftToResolve
			}
			var err error
			if name, err = jsonbytes.AppendDecoded(nil, key); err != nil {
				return -1, errSchemaSyntax
			}
		}
		at = jsonbytes.SkipSpace(w.data, at)
		end, err := w.skip(at)
		if err != nil {
			return -1, errSchemaSyntax
		}
		w.members = append(w.members, schemaMember{name: name, at: at})
		return end, nil
	})
	if err != nil {
		if err != errLeftToResolve {
			err = errSchemaSyntax
		}
		return nil, err
	}
	ms := w.members[start:]
	slices.SortFunc(ms, compareMembersInOrder)
	n := 0
	for j := range ms {
		if j+1 < len(ms) && bytes.Equal(ms[j].name, ms[j+1].name) {
			if !w.small {
				return nil, errLeftToResolve
			}
			continue // a later one is kept
		}
		ms[n] = ms[j]
		n++
	}
	w.members = w.members[:start+n]
	return w.members[start:], nil
}

// schemaKey names a keyword the reduction reads.
type schemaKey int

const (
	kwRef schemaKey = iota
	kwAllOf
	kwAnyOf
	kwOneOf
	kwConst
	kwDescription
	kwNullable
	kwType
	kwEnum
	kwFormat
	kwMinimum
	kwMaximum
	kwItems
	kwMinItems
	kwMaxItems
	kwProperties
	kwRequired
	schemaKeyCount
)

// schemaKeys are the values of a schema's keywords (absentKey when
// missing), found in one pass over its members.
type schemaKeys [schemaKeyCount]int

// absentKey is no value: a member's value is an index or ^ a merged
// value's.
const absentKey = math.MinInt

// readKeys finds the keywords among a schema's members.
func readKeys(ms []schemaMember) schemaKeys {
	var k schemaKeys
	for i := range k {
		k[i] = absentKey
	}
	for _, m := range ms {
		var n schemaKey
		switch string(m.name) {
		case "$ref":
			n = kwRef
		case "allOf":
			n = kwAllOf
		case "anyOf":
			n = kwAnyOf
		case "oneOf":
			n = kwOneOf
		case "const":
			n = kwConst
		case "description":
			n = kwDescription
		case "nullable":
			n = kwNullable
		case "type":
			n = kwType
		case "enum":
			n = kwEnum
		case "format":
			n = kwFormat
		case "minimum":
			n = kwMinimum
		case "maximum":
			n = kwMaximum
		case "items":
			n = kwItems
		case "minItems":
			n = kwMinItems
		case "maxItems":
			n = kwMaxItems
		case "properties":
			n = kwProperties
		case "required":
			n = kwRequired
		default:
			continue
		}
		k[n] = m.at
	}
	return k
}

// get returns the value of keyword n, or false.
func (k *schemaKeys) get(n schemaKey) (int, bool) { return k[n], k[n] != absentKey }

// lookup returns the value of the member named name, or -1 and false.
func lookup[S ~string | ~[]byte](ms []schemaMember, name S) (int, bool) {
	j, found := slices.BinarySearchFunc(ms, name, compareName[S])
	if !found {
		return -1, false
	}
	return ms[j].at, true
}

// compareName orders a member by its name against name.
func compareName[S ~string | ~[]byte](m schemaMember, name S) int {
	for j := 0; j < len(m.name) && j < len(name); j++ {
		if c := int(m.name[j]) - int(name[j]); c != 0 {
			return c
		}
	}
	return len(m.name) - len(name)
}

// number reports a number literal at i.
func (w *schemaWriter) number(i int) bool {
	c := w.data[i]
	return c == '-' || c >= '0' && c <= '9'
}

// literal returns the bytes of the value at i.
func (w *schemaWriter) literal(i int) []byte {
	end, _ := w.skip(i)
	return w.data[i:end]
}

// key appends a member name and its colon, after a comma unless it is
// the object's first.
func (w *schemaWriter) key(first *bool, k outKey) {
	if !*first {
		w.out = append(w.out, ',')
	}
	*first = false
	w.out = append(w.out, '"')
	w.out = append(w.out, outKeyNames[k]...)
	w.out = append(w.out, '"', ':')
}

// keyCharge is what a member name, its colon and its comma count.
func keyCharge(k outKey) int { return len(outKeyNames[k]) + 4 }

// appendText appends a decoded text as a JSON string, as encoding/json
// encodes it with HTML escaping off.
func appendText(dst, text []byte) []byte {
	dst = append(dst, '"')
	dst = jsonbytes.AppendStringBodyNoHTML(dst, text)
	return append(dst, '"')
}

// over reports a budget spent; the reduction is then refused, so the
// walk stops there.
func (w *schemaWriter) over() bool { return w.spent > w.budget }

// node writes the reduction of the schema at i and returns its members'
// charges.
func (w *schemaWriter) node(i, depth int) (c nodeCharges, err error) {
	if depth > maxSchemaDepth || w.over() || w.data[i] != '{' {
		w.spent += 2
		w.out = append(w.out, "{}"...)
		return c, nil
	}
	base := len(w.members)
	c, err = w.object(i, depth)
	w.members = w.members[:base]
	return c, err
}

// object is node for an object; node pops the members it pushes.
func (w *schemaWriter) object(i, depth int) (c nodeCharges, err error) {
	ms, err := w.readMembers(i)
	if err != nil {
		return c, err
	}
	w.spent += len(ms) // the keywords looked at, dropped or not
	keys := readKeys(ms)
	if at, ok := keys.get(kwRef); ok {
		if !w.small {
			return c, errLeftToResolve
		}
		if w.data[at] == '"' {
			return w.ref(&keys, at, depth)
		}
	}
	if !w.small {
		for _, name := range []schemaKey{kwAllOf, kwAnyOf, kwOneOf, kwConst} {
			if _, ok := keys.get(name); ok {
				return c, errLeftToResolve
			}
		}
	}
	v, err := w.mergeAllOf(ms, keys, depth)
	if err != nil {
		return c, err
	}
	if len(v) > 0 && (len(ms) == 0 || &v[0] != &ms[0]) {
		keys = readKeys(v)
		defer w.release(ms, v)
	}
	if w.over() {
		return c, errSchemaOver
	}

	var descRaw []byte
	if at, ok := keys.get(kwDescription); ok && w.data[at] == '"' {
		t, raw, err := w.str(at)
		if err != nil {
			return c, err
		}
		if len(t) > 0 {
			descRaw = raw
			c[kDescription] = keyCharge(kDescription) + jsonStringLen(t)
		}
	}
	at, ok := keys.get(kwNullable)
	nullable := ok && w.data[at] == 't'

	// Types: a string or a list; "null" among them means nullable.
	var keptTypes [6]string
	kept := keptTypes[:0]
	keep := func(at int) error {
		t, _, err := w.str(at)
		if err != nil {
			return err
		}
		if string(t) == "null" {
			nullable = true
		} else if g, ok := geminiTypes[string(t)]; ok && !slices.Contains(kept, g) {
			kept = append(kept, g)
		}
		return nil
	}
	if at, ok := keys.get(kwType); ok {
		switch w.data[at] {
		case '"':
			if err := keep(at); err != nil {
				return c, err
			}
		case '[':
			if !w.small {
				return c, errLeftToResolve
			}
			if _, err := jsonbytes.ScanArrayAt(w.data, at, func(e int) (int, error) {
				end, err := w.skip(e)
				if err == nil && w.data[e] == '"' {
					err = keep(e)
				}
				return end, err
			}); err != nil {
				return c, errSchemaSyntax
			}
		}
	}

	// enum / const: Gemini's enum is a list of strings on a STRING.
	enumOK, enumCount, enumCharge := true, 0, 0
	constAt, hasConst := keys.get(kwConst)
	if hasConst {
		if w.data[constAt] == '"' {
			t, _, err := w.str(constAt)
			if err != nil {
				return c, err
			}
			enumCount++
			enumCharge += jsonStringLen(t) + 1
		} else {
			enumOK = false
		}
	}
	enumAt, hasEnum := keys.get(kwEnum)
	if hasEnum && w.data[enumAt] == '[' {
		if _, err := jsonbytes.ScanArrayAt(w.data, enumAt, func(e int) (int, error) {
			end, err := w.skip(e)
			if err != nil {
				return -1, err
			}
			switch w.data[e] {
			case '"':
				t, _, err := w.str(e)
				if err != nil {
					return -1, err
				}
				enumCount++
				enumCharge += jsonStringLen(t) + 1
			case 'n':
				nullable = true
			default:
				enumOK = false
			}
			return end, nil
		}); err != nil {
			return c, errSchemaSyntax
		}
	} else {
		hasEnum = false
	}
	withEnum := enumOK && enumCount > 0 && (len(kept) == 0 || len(kept) == 1 && kept[0] == "STRING")
	if withEnum {
		kept = append(kept[:0], "STRING")
	}

	// anyOf / oneOf: null branches make the schema nullable; the others
	// are reduced when the schema has no type of its own.
	var branches [2]int
	nb := 0
	for _, name := range []schemaKey{kwAnyOf, kwOneOf} {
		if at, ok := keys.get(name); ok && w.data[at] == '[' {
			branches[nb] = at
			nb++
			if _, err := jsonbytes.ScanArrayAt(w.data, at, func(e int) (int, error) {
				end, err := w.skip(e)
				if err != nil {
					return -1, err
				}
				if null, err := w.isNullSchema(e); err != nil {
					return -1, err
				} else if null {
					nullable = true
				}
				return end, nil
			}); err != nil {
				return c, errSchemaSyntax
			}
		}
	}

	p := len(w.out)
	w.out = append(w.out, '{')
	first, union := true, false
	if len(kept) > 1 {
		// Several types: one anyOf branch per type, each with the keywords
		// that apply to it.
		w.key(&first, kAnyOf)
		w.out = append(w.out, '[')
		for j, t := range kept {
			if j > 0 {
				w.out = append(w.out, ',')
			}
			w.out = append(w.out, '{')
			bfirst := true
			var bc nodeCharges
			if err := w.typeKeywords(&keys, t, depth, &bfirst, &bc, false); err != nil {
				return c, err
			}
			w.out = append(w.out, '}')
			w.spent += bc.total()
		}
		w.out = append(w.out, ']')
		c[kAnyOf] = keyCharge(kAnyOf) + 2 + len(kept)
		kept, union = kept[:0], true
	} else if len(kept) == 0 && nb > 0 {
		q := len(w.out)
		w.key(&first, kAnyOf)
		w.out = append(w.out, '[')
		alts, empty, lone := 0, false, 0
		var loneCharges nodeCharges
		for _, at := range branches[:nb] {
			if _, err := jsonbytes.ScanArrayAt(w.data, at, func(e int) (int, error) {
				end, err := w.skip(e)
				if err != nil {
					return -1, err
				}
				if null, _ := w.isNullSchema(e); null {
					return end, nil
				}
				if alts > 0 {
					w.out = append(w.out, ',')
				}
				alts++
				s := len(w.out)
				bc, err := w.node(e, depth+1)
				if err != nil {
					return -1, err
				}
				if string(w.out[s:]) == "{}" {
					empty = true
				}
				lone, loneCharges = s, bc
				return end, nil
			}); err != nil {
				return c, err
			}
		}
		switch {
		case alts == 0 || empty:
			// An unconstrained branch makes the whole unconstrained.
			w.out = w.out[:q]
			first = true
		case alts == 1:
			// One branch left is this schema, with this schema's
			// description and nullable.
			copy(w.out[p:], w.out[lone:])
			w.out = w.out[:p+len(w.out)-lone]
			if descRaw != nil {
				loneCharges[kDescription] = c[kDescription]
			}
			if nullable {
				loneCharges[kNullable] = keyCharge(kNullable) + 5
			}
			if descRaw != nil || nullable {
				w.splice(p, descRaw, nullable, false)
			}
			w.spent += loneCharges.total()
			return loneCharges, nil
		default:
			w.out = append(w.out, ']')
			c[kAnyOf] = keyCharge(kAnyOf) + 2 + alts
			union = true
		}
	}
	if len(kept) == 0 && !union {
		// Untyped but shaped like an object or array: say so.
		if _, ok := keys.get(kwProperties); ok {
			kept = append(kept, "OBJECT")
		} else if _, ok := keys.get(kwItems); ok {
			kept = append(kept, "ARRAY")
		}
	}
	if descRaw != nil {
		w.key(&first, kDescription)
		w.out = append(w.out, '"')
		w.out, _ = jsonbytes.AppendCanonicalBody(w.out, descRaw)
		w.out = append(w.out, '"')
	}
	if withEnum {
		c[kEnum] = keyCharge(kEnum) + 2 + enumCharge
		w.key(&first, kEnum)
		w.out = append(w.out, '[')
		n := 0
		appendEnum := func(e int) {
			if n > 0 {
				w.out = append(w.out, ',')
			}
			n++
			_, raw, _ := w.str(e)
			w.out = append(w.out, '"')
			w.out, _ = jsonbytes.AppendCanonicalBody(w.out, raw)
			w.out = append(w.out, '"')
		}
		if hasConst {
			appendEnum(constAt)
		}
		if hasEnum {
			_, _ = jsonbytes.ScanArrayAt(w.data, enumAt, func(e int) (int, error) {
				end, _ := w.skip(e)
				if w.data[e] == '"' {
					appendEnum(e)
				}
				return end, nil
			})
		}
		w.out = append(w.out, ']')
	}
	if len(kept) == 1 {
		if err := w.typeKeywords(&keys, kept[0], depth, &first, &c, nullable); err != nil {
			return c, err
		}
	} else if nullable {
		c[kNullable] = keyCharge(kNullable) + 5
		w.key(&first, kNullable)
		w.out = append(w.out, "true"...)
	}
	w.out = append(w.out, '}')
	w.spent += c.total()
	if w.over() {
		return c, errSchemaOver
	}
	return c, nil
}

// isNullSchema reports {"type":"null"}, with at most one other member.
// It stops at a third name, so a large branch met at every use of a
// definition is not read whole each time.
func (w *schemaWriter) isNullSchema(i int) (bool, error) {
	if w.data[i] != '{' {
		return false, nil
	}
	var (
		names [2][]byte
		n     int
		typ   = -1
	)
	_, err := jsonbytes.ScanObjectAt(w.data, i, func(key []byte, at int) (int, error) {
		name := key
		if !plainName(key) {
			var err error
			if name, err = jsonbytes.AppendDecoded(nil, key); err != nil {
				return -1, errSchemaSyntax
			}
		}
		if !slices.ContainsFunc(names[:n], func(m []byte) bool { return bytes.Equal(m, name) }) {
			if n == len(names) {
				return -1, errNotNull
			}
			names[n] = name
			n++
		}
		at = jsonbytes.SkipSpace(w.data, at)
		if string(name) == "type" {
			typ = at
		}
		return w.skip(at)
	})
	if err != nil && err != errNotNull {
		return false, errSchemaSyntax
	}
	if err != nil || typ < 0 || w.data[typ] != '"' {
		return false, nil
	}
	t, _, err := w.str(typ)
	return string(t) == "null", err
}

// errNotNull stops isNullSchema at a third member name.
var errNotNull = errors.New("not a null schema")

// typeKeywords writes the members for type t from the schema's keys (format,
// items, maxItems, maximum, minItems, minimum, nullable when asked,
// properties, required and type, in that order).
func (w *schemaWriter) typeKeywords(keys *schemaKeys, t string, depth int, first *bool, c *nodeCharges, nullable bool) error {
	if at, ok := keys.get(kwFormat); ok && w.data[at] == '"' {
		f, _, err := w.str(at)
		if err != nil {
			return err
		}
		if geminiFormats[t][string(f)] {
			c[kFormat] = keyCharge(kFormat) + jsonStringLen(f)
			w.key(first, kFormat)
			w.out = appendText(w.out, f)
		}
	}
	bound := func(k outKey, name schemaKey, integer bool) {
		at, ok := keys.get(name)
		if !ok || !w.number(at) {
			return
		}
		n := w.literal(at)
		if integer {
			if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
				return
			}
		}
		c[k] = keyCharge(k) + len(n)
		w.key(first, k)
		w.out = append(w.out, n...)
	}
	switch t {
	case "ARRAY":
		c[kItems] = keyCharge(kItems) + 2
		w.key(first, kItems)
		at, ok := keys.get(kwItems)
		switch {
		case ok && w.data[at] == '{':
			if _, err := w.node(at, depth+1); err != nil {
				return err
			}
		case ok && w.data[at] == '[':
			if !w.small {
				return errLeftToResolve
			}
			if err := w.tupleItems(at, depth); err != nil {
				return err
			}
		default:
			w.out = append(w.out, "{}"...) // Gemini: "items: missing field"
		}
		bound(kMaxItems, kwMaxItems, true)
		bound(kMinItems, kwMinItems, true)
	case "NUMBER", "INTEGER":
		bound(kMaximum, kwMaximum, false)
		bound(kMinimum, kwMinimum, false)
	}
	if nullable {
		c[kNullable] = keyCharge(kNullable) + 5
		w.key(first, kNullable)
		w.out = append(w.out, "true"...)
	}
	if t == "OBJECT" {
		at, ok := keys.get(kwProperties)
		if !ok || w.kind(at) != '{' {
			return nil
		}
		written, err := w.properties(at, depth, first, c, keys)
		if err != nil || !written {
			// Gemini: "properties: should be non-empty for OBJECT type". A
			// free-form object becomes a schema that accepts any value.
			return err
		}
	}
	c[kType] = keyCharge(kType) + len(t) + 2
	w.key(first, kType)
	w.out = append(w.out, '"')
	w.out = append(w.out, t...)
	w.out = append(w.out, '"')
	return nil
}

// tupleItems writes the items of the tuple at i: one schema, or an anyOf
// of them.
func (w *schemaWriter) tupleItems(i, depth int) error {
	var elems []int
	if _, err := jsonbytes.ScanArrayAt(w.data, i, func(e int) (int, error) {
		elems = append(elems, e)
		return w.skip(e)
	}); err != nil {
		return errSchemaSyntax
	}
	switch len(elems) {
	case 0:
		w.out = append(w.out, "{}"...)
		return nil
	case 1:
		_, err := w.node(elems[0], depth+1)
		return err
	}
	w.spent += len(`{"anyOf":[]}`) + len(elems)
	w.out = append(w.out, `{"anyOf":[`...)
	for j, e := range elems {
		if j > 0 {
			w.out = append(w.out, ',')
		}
		if _, err := w.node(e, depth+1); err != nil {
			return err
		}
	}
	w.out = append(w.out, "]}"...)
	return nil
}

// propertyMembers pushes the properties at (an object, or the union an
// allOf merged) onto the members' stack, sorted, and returns them.
func (w *schemaWriter) propertyMembers(at int) ([]schemaMember, error) {
	if at >= 0 {
		return w.readMembers(at)
	}
	start := len(w.members)
	for _, s := range w.sources(at) {
		if _, err := w.readMembers(s); err != nil {
			return nil, err
		}
	}
	ms := w.members[start:]
	slices.SortStableFunc(ms, compareMembers) // a name's first source first
	n := 0
	for j := range ms {
		if j > 0 && bytes.Equal(ms[j].name, ms[n-1].name) {
			continue
		}
		ms[n] = ms[j]
		n++
	}
	w.members = w.members[:start+n]
	return w.members[start:], nil
}

// properties writes the properties at, each reduced, and the schema's
// required names that name one; written is false when there are none.
func (w *schemaWriter) properties(at, depth int, first *bool, c *nodeCharges, keys *schemaKeys) (written bool, err error) {
	base := len(w.members)
	defer func() { w.members = w.members[:base] }()
	props, err := w.propertyMembers(at)
	if err != nil || len(props) == 0 {
		return false, err
	}
	charge := keyCharge(kProperties) + 2
	w.key(first, kProperties)
	w.out = append(w.out, '{')
	for j := range props {
		m := props[j]
		if j > 0 {
			w.out = append(w.out, ',')
		}
		charge += jsonStringLen(m.name) + 2
		if plainName(m.name) && bytes.IndexByte(m.name, '"') < 0 {
			w.out = append(w.out, '"')
			w.out = append(w.out, m.name...)
			w.out = append(w.out, '"', ':')
		} else {
			w.out = appendText(w.out, m.name)
			w.out = append(w.out, ':')
		}
		if _, err := w.node(m.at, depth+1); err != nil {
			return false, err
		}
	}
	w.out = append(w.out, '}')
	c[kProperties] = charge
	if rat, ok := keys.get(kwRequired); ok && w.kind(rat) == '[' {
		if err := w.required(rat, props, first, c); err != nil {
			return false, err
		}
	}
	return true, nil
}

// required writes the names of the required at (an array, or those an
// allOf concatenated) that name a property, each once, in their order.
func (w *schemaWriter) required(at int, props []schemaMember, first *bool, c *nodeCharges) error {
	one := [1]int{at}
	sources := one[:]
	if at < 0 {
		sources = w.sources(at)
	}
	w.used = append(w.used[:0], make([]bool, len(props))...)
	n, names := 0, 0
	charge := keyCharge(kRequired) + 2
	for _, s := range sources {
		if _, err := jsonbytes.ScanArrayAt(w.data, s, func(e int) (int, error) {
			end, err := w.skip(e)
			if err != nil || w.data[e] != '"' {
				return end, err
			}
			if names++; names > maxRequiredNames && !w.small {
				return -1, errLeftToResolve
			}
			t, _, err := w.str(e)
			if err != nil {
				return -1, err
			}
			j, found := slices.BinarySearchFunc(props, t, func(m schemaMember, name []byte) int { return bytes.Compare(m.name, name) })
			if !found || w.used[j] {
				return end, nil
			}
			w.used[j] = true
			if n == 0 {
				w.key(first, kRequired)
				w.out = append(w.out, '[')
			} else {
				w.out = append(w.out, ',')
			}
			n++
			charge += jsonStringLen(t) + 1
			w.out = appendText(w.out, t)
			return end, nil
		}); err != nil {
			if err != errLeftToResolve {
				err = errSchemaSyntax
			}
			return err
		}
	}
	if n > 0 {
		w.out = append(w.out, ']')
		c[kRequired] = charge
	}
	return nil
}

// ref writes the schema a local $ref (at) names, with the description of
// its siblings over the target's; a $ref that names nothing, or one being
// expanded (a cycle), is an untyped schema.
func (w *schemaWriter) ref(keys *schemaKeys, at, depth int) (c nodeCharges, err error) {
	t, _, err := w.str(at)
	if err != nil {
		return c, err
	}
	ref := t
	if len(t) > 0 && &t[0] != &w.data[at+1] {
		ref = append([]byte(nil), t...) // decoded into w.text
	}
	var desc, descRaw []byte
	if dat, ok := keys.get(kwDescription); ok && w.data[dat] == '"' {
		if desc, descRaw, err = w.str(dat); err != nil {
			return c, err
		}
	}
	w.spent += len(ref) + jsonStringLen(desc) + len(`"description":,`)
	if len(desc) > 0 {
		c[kDescription] = keyCharge(kDescription) + jsonStringLen(desc)
	} else {
		descRaw = nil
	}
	target, found, err := w.resolve(ref)
	if err != nil {
		return c, err
	}
	if !found || slices.ContainsFunc(w.refs, func(r []byte) bool { return bytes.Equal(r, ref) }) {
		w.out = append(w.out, '{')
		if descRaw != nil {
			first := true
			w.key(&first, kDescription)
			w.out = append(w.out, '"')
			w.out, _ = jsonbytes.AppendCanonicalBody(w.out, descRaw)
			w.out = append(w.out, '"')
		}
		w.out = append(w.out, '}')
		return c, nil
	}
	p := len(w.out)
	w.refs = append(w.refs, ref)
	tc, err := w.node(target, depth+1)
	w.refs = w.refs[:len(w.refs)-1]
	if err != nil {
		return c, err
	}
	if descRaw != nil {
		tc[kDescription] = c[kDescription]
		w.splice(p, descRaw, false, false)
	}
	return tc, nil
}

// resolve finds a local JSON pointer: "#", "#/$defs/X", "#/definitions/X"
// or any other path inside the root; found only for an object.
func (w *schemaWriter) resolve(ref []byte) (at int, found bool, err error) {
	if len(ref) == 0 || ref[0] != '#' {
		return -1, false, nil
	}
	path := ref[1:]
	slash := bytes.IndexByte(path, '/')
	at = 0
	for slash >= 0 {
		path = path[slash+1:]
		tok := path
		if slash = bytes.IndexByte(path, '/'); slash >= 0 {
			tok = path[:slash]
		}
		if bytes.IndexByte(tok, '~') >= 0 {
			tok = []byte(strings.ReplaceAll(strings.ReplaceAll(string(tok), "~1", "/"), "~0", "~"))
		}
		if w.data[at] != '{' {
			return -1, false, nil
		}
		ms, err := w.pathMembers(at)
		if err != nil {
			return -1, false, err
		}
		next, ok := lookup(ms, tok)
		if !ok {
			return -1, false, nil
		}
		at = next
	}
	return at, w.data[at] == '{', nil
}

// pathMembers returns the members of the object at on the path of a
// $ref, read once per schema: a schema of thousands of $refs into
// thousands of definitions would otherwise sort the definitions at every
// $ref.
func (w *schemaWriter) pathMembers(at int) ([]schemaMember, error) {
	if span, ok := w.paths[at]; ok {
		return w.pathArena[span[0]:span[1]], nil
	}
	base := len(w.members)
	ms, err := w.readMembers(at)
	if err != nil {
		return nil, err
	}
	start := len(w.pathArena)
	w.pathArena = append(w.pathArena, ms...)
	w.members = w.members[:base]
	if w.paths == nil {
		w.paths = map[int][2]int{}
	}
	w.paths[at] = [2]int{start, len(w.pathArena)}
	return w.pathArena[start:], nil
}

// mergeAllOf folds the allOf subschemas of the schema whose members are
// ms into one member list: properties united and required concatenated
// (as merged values), other members taken from the first that has them.
// Without an allOf it is ms.
func (w *schemaWriter) mergeAllOf(ms []schemaMember, keys schemaKeys, depth int) ([]schemaMember, error) {
	all, ok := keys.get(kwAllOf)
	if !ok || w.data[all] != '[' || w.data[jsonbytes.SkipSpace(w.data, all+1)] == ']' {
		return ms, nil
	}
	var acc []schemaMember
	if n := len(w.lists); n > 0 {
		acc, w.lists = w.lists[n-1][:0], w.lists[:n-1]
	}
	for _, m := range ms {
		if string(m.name) != "allOf" {
			acc = append(acc, m)
		}
	}
	var propsBuf, reqBuf [8]int
	props, req := propsBuf[:0], reqBuf[:0]
	propsSet, reqN := false, 0
	if at, ok := keys.get(kwProperties); ok && w.data[at] == '{' {
		props, propsSet = append(props, at), true
	}
	if at, ok := keys.get(kwRequired); ok && w.data[at] == '[' {
		req, reqN = append(req, at), w.arrayLen(at)
	}
	_, err := jsonbytes.ScanArrayAt(w.data, all, func(e int) (int, error) {
		end, err := w.skip(e)
		if err != nil {
			return -1, errSchemaSyntax
		}
		if w.over() {
			return -1, errSchemaOver
		}
		w.spent += 2
		s := e
		base := len(w.members)
		defer func() { w.members = w.members[:base] }()
		if w.data[e] == '{' {
			sms, err := w.readMembers(e)
			if err != nil {
				return -1, err
			}
			if at, isRef := lookup(sms, "$ref"); isRef && w.data[at] == '"' {
				t, _, err := w.str(at)
				if err != nil {
					return -1, err
				}
				if depth < maxSchemaDepth && !slices.ContainsFunc(w.refs, func(r []byte) bool { return bytes.Equal(r, t) }) {
					w.spent += len(t)
					target, found, err := w.resolve(t) // resolve leaves w.text as it is
					if err != nil {
						return -1, err
					}
					if found {
						s = target
					}
				}
			}
			w.members = w.members[:base]
		}
		if w.data[s] != '{' {
			return end, nil
		}
		sms, err := w.readMembers(s)
		if err != nil {
			return -1, err
		}
		sv, err := w.mergeAllOf(sms, readKeys(sms), depth+1)
		if err != nil {
			return -1, err
		}
		defer w.release(sms, sv)
		w.spent += len(sv)
		for _, m := range sv {
			switch string(m.name) {
			case "properties":
				if w.kind(m.at) == '{' {
					pbase := len(w.members)
					p, err := w.propertyMembers(m.at)
					if err != nil {
						return -1, err
					}
					w.spent += len(p)
					w.members = w.members[:pbase]
					props, propsSet = w.appendSources(props, m.at), true
				}
			case "required":
				if w.kind(m.at) == '[' {
					n := w.arrayLen(m.at)
					w.spent += n
					req, reqN = w.appendSources(req, m.at), reqN+n
				}
			default:
				acc = append(acc, m)
			}
		}
		return end, nil
	})
	if err != nil {
		if err != errSchemaOver && err != errLeftToResolve {
			err = errSchemaSyntax
		}
		return nil, err
	}
	slices.SortStableFunc(acc, compareMembers)
	n := 0
	for j := range acc {
		if n > 0 && bytes.Equal(acc[j].name, acc[n-1].name) {
			continue // the first schema's
		}
		acc[n] = acc[j]
		n++
	}
	acc = acc[:n]
	set := func(name []byte, sources []int, n int) {
		start := len(w.mergedSources)
		w.mergedSources = append(w.mergedSources, sources...)
		w.merged = append(w.merged, mergedValue{start: start, end: len(w.mergedSources), n: n})
		m := schemaMember{name: name, at: ^(len(w.merged) - 1)}
		j, found := slices.BinarySearchFunc(acc, m, compareMembers)
		if found {
			acc[j] = m
		} else {
			acc = slices.Insert(acc, j, m)
		}
	}
	if propsSet {
		set(nameProperties, props, 0)
	}
	if reqN > 0 {
		set(nameRequired, req, reqN)
	}
	return acc, nil
}

var nameProperties, nameRequired = []byte("properties"), []byte("required")

// sources are the objects or arrays a merged value stands for.
func (w *schemaWriter) sources(at int) []int {
	v := w.merged[^at]
	return w.mergedSources[v.start:v.end]
}

// appendSources appends the objects or arrays a value at stands for.
func (w *schemaWriter) appendSources(dst []int, at int) []int {
	if at >= 0 {
		return append(dst, at)
	}
	return append(dst, w.sources(at)...)
}

// release keeps the member list of a merge (v, when not the schema's own
// members ms) for the next.
func (w *schemaWriter) release(ms, v []schemaMember) {
	if len(v) > 0 && (len(ms) == 0 || &v[0] != &ms[0]) {
		w.lists = append(w.lists, v)
	}
}

// arrayLen counts the elements of the array at (or of those an allOf
// concatenated).
func (w *schemaWriter) arrayLen(at int) int {
	if at < 0 {
		return w.merged[^at].n
	}
	n := 0
	_, _ = jsonbytes.ScanArrayAt(w.data, at, func(e int) (int, error) {
		n++
		return w.skip(e)
	})
	return n
}

// splice rewrites the reduced schema written at p: desc (a string's body
// as written), when not nil, as its description; nullable set, or
// dropped.
func (w *schemaWriter) splice(p int, desc []byte, nullable, dropNullable bool) {
	var spans [outKeys][]byte
	obj := w.out[p:]
	_, _ = jsonbytes.ScanObjectAt(obj, 0, func(key []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(obj, at)
		if k := slices.Index(outKeyNames[:], string(key)); k >= 0 {
			spans[k] = obj[at:end]
		}
		return end, err
	})
	s := append(w.scratch[:0], '{')
	first := true
	for k := range outKeys {
		v := spans[k]
		switch {
		case k == kDescription && desc != nil:
			v = nil
			if !first {
				s = append(s, ',')
			}
			first = false
			s = append(s, `"description":"`...)
			s, _ = jsonbytes.AppendCanonicalBody(s, desc)
			s = append(s, '"')
		case k == kNullable && nullable:
			v = []byte("true")
		case k == kNullable && dropNullable:
			v = nil
		}
		if v == nil {
			continue
		}
		if !first {
			s = append(s, ',')
		}
		first = false
		s = append(s, '"')
		s = append(s, outKeyNames[k]...)
		s = append(s, '"', ':')
		s = append(s, v...)
	}
	s = append(s, '}')
	w.scratch = s
	w.out = append(w.out[:p], s...)
}
