package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The map reducer below is the reference the schema writer
// (schema_bytes.go) is held to: it decodes a schema into Go maps and
// reduces those, which reads as the rules in schema.go say but allocates
// about fifty times the schema's bytes. FuzzSchemaWriterMatchesMaps
// compares the two on every shape.

// reduceSchemaMaps is ReduceSchemaWithin through Go maps.
func reduceSchemaMaps(raw json.RawMessage, expansion, budget int) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, errors.New("not valid JSON")
	}
	m, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("must be a JSON Schema object")
	}
	r := &reducer{root: m, budget: budget}
	out := r.node(m, 0)
	r.spent += len(`,"type":"OBJECT"`)
	if r.over() {
		return nil, fmt.Errorf("%w (more than %d times its %d bytes)", ErrSchemaTooLarge, expansion, len(raw))
	}
	if _, ok := out["properties"]; !ok {
		// Gemini wants the parameters to be one OBJECT: a root union of
		// objects becomes one object with the properties of every branch,
		// none required.
		out = mergeObjectBranches(out)
	}
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, nil
	}
	out["type"] = "OBJECT"
	delete(out, "nullable")
	return marshal(out)
}

type reducer struct {
	root map[string]any
	refs []string // $refs being expanded, for cycle detection

	// spent estimates, from above, the encoded size of what has been built
	// (and the work done resolving and merging); past budget the reducer
	// stops building and the schema is refused.
	spent, budget int
}

// over reports whether the budget is spent; every step that builds or
// walks checks it first, so the work done stays proportional to the budget.
func (r *reducer) over() bool { return r.spent > r.budget }

// charge adds what out's own members take once encoded. Nested schemas are
// charged when they are built; a nested map or list here counts its braces
// again, so the estimate errs high.
func (r *reducer) charge(out map[string]any) {
	n := 2
	for k, v := range out {
		n += jsonStringLen(k) + 2 // "k": and a comma
		switch v := v.(type) {
		case string:
			n += jsonStringLen(v)
		case json.Number:
			n += len(v)
		case bool:
			n += 5
		case []string:
			n += 2
			for _, s := range v {
				n += jsonStringLen(s) + 1
			}
		case map[string]any:
			n += 2
			if k == "properties" {
				for pk := range v {
					n += jsonStringLen(pk) + 2
				}
			}
		case []any:
			n += 2 + len(v)
		}
	}
	r.spent += n
}

// node reduces one schema; an empty map means "any value" (the schema was
// true, junk, too deep, or had nothing Gemini can express).
func (r *reducer) node(in any, depth int) map[string]any {
	m, ok := in.(map[string]any)
	if !ok || depth > maxSchemaDepth || r.over() {
		r.spent += 2
		return map[string]any{}
	}
	r.spent += len(m) // the keywords looked at, dropped or not
	if ref, ok := m["$ref"].(string); ok {
		return r.ref(m, ref, depth)
	}
	m = r.mergeAllOf(m, depth)
	if r.over() {
		return map[string]any{}
	}

	out := map[string]any{}
	if d, ok := m["description"].(string); ok && d != "" {
		out["description"] = d
	}
	nullable, _ := m["nullable"].(bool)

	// Types: a string or a list; "null" among them means nullable.
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok {
				types = append(types, s)
			}
		}
	}
	var kept []string
	for _, t := range types {
		if t == "null" {
			nullable = true
			continue
		}
		if g, ok := geminiTypes[t]; ok && !contains(kept, g) {
			// Once each: every type's branch reduces the schema's items
			// and properties again.
			kept = append(kept, g)
		}
	}

	// enum / const: Gemini's enum is a list of strings on a STRING.
	var enum []string
	enumOK := true
	if c, ok := m["const"]; ok {
		if s, isStr := c.(string); isStr {
			enum = []string{s}
		} else {
			enumOK = false
		}
	}
	if l, ok := m["enum"].([]any); ok {
		for _, v := range l {
			switch s := v.(type) {
			case string:
				enum = append(enum, s)
			case nil:
				nullable = true
			default:
				enumOK = false
			}
		}
	}
	if enumOK && len(enum) > 0 && (len(kept) == 0 || (len(kept) == 1 && kept[0] == "STRING")) {
		kept = []string{"STRING"}
		out["enum"] = enum
	}

	// anyOf / oneOf: null branches become nullable. A schema with a type of
	// its own keeps that; otherwise one branch left is merged into this node
	// and several stay as anyOf (an unconstrained branch makes the whole
	// thing unconstrained).
	var alts []map[string]any
	for _, k := range []string{"anyOf", "oneOf"} {
		l, _ := m[k].([]any)
		for _, b := range l {
			if isNullSchema(b) {
				nullable = true
				continue
			}
			if len(kept) == 0 {
				alts = append(alts, r.node(b, depth+1))
			}
		}
	}
	for _, a := range alts {
		if len(a) == 0 {
			alts = nil
			break
		}
	}

	switch {
	case len(kept) == 1:
		out["type"] = kept[0]
		r.typeKeywords(m, out, kept[0], depth)
	case len(kept) > 1:
		// Several types: one anyOf branch per type, each with the keywords
		// that apply to it.
		typed := make([]any, len(kept))
		for i, t := range kept {
			typed[i] = r.typedBranch(m, t, depth)
		}
		out["anyOf"] = typed
	case len(alts) == 1:
		for k, v := range alts[0] {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
	case len(alts) > 1:
		l := make([]any, len(alts))
		for i, a := range alts {
			l[i] = a
		}
		out["anyOf"] = l
	default:
		// Untyped but shaped like an object or array: say so.
		if _, ok := m["properties"]; ok {
			out["type"] = "OBJECT"
			r.typeKeywords(m, out, "OBJECT", depth)
		} else if _, ok := m["items"]; ok {
			out["type"] = "ARRAY"
			r.typeKeywords(m, out, "ARRAY", depth)
		}
	}
	if nullable {
		out["nullable"] = true
	}
	r.charge(out)
	return out
}

// typedBranch is the anyOf branch for one type of a multi-type schema.
func (r *reducer) typedBranch(m map[string]any, t string, depth int) map[string]any {
	b := map[string]any{"type": t}
	r.typeKeywords(m, b, t, depth)
	r.charge(b)
	return b
}

// typeKeywords copies the keywords that apply to type t from m into out.
func (r *reducer) typeKeywords(m, out map[string]any, t string, depth int) {
	if f, ok := m["format"].(string); ok && geminiFormats[t][f] {
		out["format"] = f
	}
	switch t {
	case "NUMBER", "INTEGER":
		for _, k := range []string{"minimum", "maximum"} {
			if n, ok := m[k].(json.Number); ok {
				out[k] = n
			}
		}
	case "ARRAY":
		switch items := m["items"].(type) {
		case map[string]any:
			out["items"] = r.node(items, depth+1)
		case []any: // tuple form
			if len(items) == 1 {
				out["items"] = r.node(items[0], depth+1)
			} else if len(items) > 1 {
				r.spent += len(`{"anyOf":[]}`) + len(items)
				l := make([]any, len(items))
				for i, it := range items {
					l[i] = r.node(it, depth+1)
				}
				out["items"] = map[string]any{"anyOf": l}
			}
		}
		if _, ok := out["items"]; !ok {
			out["items"] = map[string]any{} // Gemini: "items: missing field"
		}
		for _, k := range []string{"minItems", "maxItems"} {
			if n, ok := m[k].(json.Number); ok {
				if _, err := n.Int64(); err == nil {
					out[k] = n
				}
			}
		}
	case "OBJECT":
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 {
			// Gemini: "properties: should be non-empty for OBJECT type". A
			// free-form object becomes a schema that accepts any value.
			delete(out, "type")
			delete(out, "format")
			return
		}
		reduced := make(map[string]any, len(props))
		for k, v := range props {
			reduced[k] = r.node(v, depth+1)
		}
		out["properties"] = reduced
		if req, ok := m["required"].([]any); ok {
			var names []string
			for _, v := range req {
				if s, ok := v.(string); ok {
					if _, ok := props[s]; ok && !contains(names, s) {
						names = append(names, s)
					}
				}
			}
			if len(names) > 0 {
				out["required"] = names
			}
		}
	}
}

// ref inlines a local $ref. Siblings of $ref (a description, say) override
// the target's.
func (r *reducer) ref(m map[string]any, ref string, depth int) map[string]any {
	d, _ := m["description"].(string)
	r.spent += len(ref) + jsonStringLen(d) + len(`"description":,`)
	target, ok := r.resolve(ref)
	if !ok || contains(r.refs, ref) {
		out := map[string]any{}
		if d, ok := m["description"].(string); ok && d != "" {
			out["description"] = d
		}
		return out
	}
	r.refs = append(r.refs, ref)
	out := r.node(target, depth+1)
	r.refs = r.refs[:len(r.refs)-1]
	if d, ok := m["description"].(string); ok && d != "" {
		out["description"] = d
	}
	return out
}

// resolve finds a local JSON pointer: "#", "#/$defs/X", "#/definitions/X" or
// any other path inside the root.
func (r *reducer) resolve(ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	var cur any = r.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[tok]; !ok {
			return nil, false
		}
	}
	_, ok := cur.(map[string]any)
	return cur, ok
}

// mergeAllOf folds allOf subschemas into one: properties and required are
// united, other keywords are taken from the first that has them.
func (r *reducer) mergeAllOf(m map[string]any, depth int) map[string]any {
	all, ok := m["allOf"].([]any)
	if !ok || len(all) == 0 {
		return m
	}
	merged := make(map[string]any, len(m))
	for k, v := range m {
		if k != "allOf" {
			merged[k] = v
		}
	}
	props, _ := merged["properties"].(map[string]any)
	props = copyMap(props)
	req, _ := merged["required"].([]any)
	req = append([]any(nil), req...)
	for _, sub := range all {
		if r.over() {
			break
		}
		r.spent += 2
		s, ok := sub.(map[string]any)
		if ref, isRef := s["$ref"].(string); isRef && depth < maxSchemaDepth && !contains(r.refs, ref) {
			r.spent += len(ref)
			if t, found := r.resolve(ref); found {
				s, ok = t.(map[string]any)
			}
		}
		if !ok {
			continue
		}
		s = r.mergeAllOf(s, depth+1)
		r.spent += len(s)
		for k, v := range s {
			switch k {
			case "properties":
				if p, ok := v.(map[string]any); ok {
					r.spent += len(p)
					if props == nil {
						props = map[string]any{}
					}
					for pk, pv := range p {
						if _, set := props[pk]; !set {
							props[pk] = pv
						}
					}
				}
			case "required":
				if l, ok := v.([]any); ok {
					r.spent += len(l)
					req = append(req, l...)
				}
			default:
				if _, set := merged[k]; !set {
					merged[k] = v
				}
			}
		}
	}
	if props != nil {
		merged["properties"] = props
	}
	if len(req) > 0 {
		merged["required"] = req
	}
	return merged
}

// mergeObjectBranches unites the properties of the OBJECT branches of an anyOf.
func mergeObjectBranches(m map[string]any) map[string]any {
	branches, _ := m["anyOf"].([]any)
	props := map[string]any{}
	for _, b := range branches {
		bm, _ := b.(map[string]any)
		p, _ := bm["properties"].(map[string]any)
		for k, v := range p {
			if _, set := props[k]; !set {
				props[k] = v
			}
		}
	}
	out := map[string]any{"properties": props}
	if d, ok := m["description"]; ok {
		out["description"] = d
	}
	return out
}

func isNullSchema(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	t, _ := m["type"].(string)
	return t == "null" && len(m) <= 2 // {"type":"null"} maybe with a description
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func contains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}
