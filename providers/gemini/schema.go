package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Gemini's functionDeclarations.parameters is a Schema object, a subset of
// OpenAPI 3.0, not JSON Schema: unknown keywords ($schema,
// additionalProperties, $ref …) fail the whole request with 400, and so do
// shapes JSON Schema allows but Gemini's validator does not (an OBJECT with
// no properties, an ARRAY without items, properties on a non-object,
// required names that are not properties, enums on non-strings). Clients
// such as Claude Code send whatever their MCP servers declare, so the
// gateway rewrites each input_schema into the shape Gemini accepts, keeping
// every constraint it can express.
//
// Kept: type, format (per type, below), description, nullable, enum (strings),
// properties, required, items, minItems, maxItems, minimum, maximum, anyOf.
// Rewritten: type arrays (["string","null"] → STRING + nullable; several
// types → anyOf), oneOf → anyOf, {"type":"null"} branches → nullable, a
// single-branch anyOf merged into its parent, allOf merged, const → enum,
// local $ref (#/$defs/…, #/definitions/…, #) inlined (a cycle ends in an
// untyped schema), tuple items → anyOf of the item schemas, a missing items →
// {}, an OBJECT without properties → untyped {} (any value), type names
// upper-cased. Everything else is dropped, notably: $schema, $id, $comment,
// $defs, definitions, additionalProperties, patternProperties,
// propertyNames, unevaluatedProperties, dependentRequired, dependentSchemas,
// not, if/then/else, const (after conversion), default, examples, title,
// exclusiveMinimum, exclusiveMaximum, multipleOf, minLength, maxLength,
// pattern, minProperties, maxProperties, uniqueItems, contains,
// prefixItems, readOnly, writeOnly, deprecated, contentEncoding,
// contentMediaType, and any vendor extension.

// formats Gemini accepts, by (upper-cased) type.
var geminiFormats = map[string]map[string]bool{
	"STRING":  {"enum": true, "date-time": true},
	"NUMBER":  {"float": true, "double": true},
	"INTEGER": {"int32": true, "int64": true},
}

var geminiTypes = map[string]string{
	"string": "STRING", "number": "NUMBER", "integer": "INTEGER",
	"boolean": "BOOLEAN", "array": "ARRAY", "object": "OBJECT",
}

// maxSchemaDepth bounds nesting (and $ref expansion) so a hostile or cyclic
// schema cannot make the gateway work without bound.
const maxSchemaDepth = 32

// DefaultSchemaExpansion bounds the reduced schema to this many times the
// size of the input_schema it came from (the schema_expansion option).
// Inlining $refs copies their targets at every use, so a chain of
// definitions each used a few times grows as fan^depth: without a bound a
// request of a few kilobytes makes gigabytes. Honest schemas reuse a
// definition a handful of times and stay far below the bound.
const DefaultSchemaExpansion = 32

// ErrSchemaTooLarge is returned for a schema whose reduced form would pass
// the expansion bound.
var ErrSchemaTooLarge = errors.New("too large once its $refs are inlined")

// maxResolvedSchema bounds a schema that needs resolving or merging (one
// with $ref, allOf, anyOf, oneOf, const, a type list, tuple items, a
// member name holding an escape or a byte outside printable ASCII, a
// repeated member, more than maxRequiredNames required names, or a
// reduction past its budget): merging member lists and splicing reduced
// branches costs more than the schema's bytes, so such a schema of a few
// megabytes would cost the gateway far more than the request's body. Tool
// schemas clients send are a few kilobytes.
const maxResolvedSchema = 256 << 10

// ErrSchemaTooLargeToResolve is returned for a schema past
// maxResolvedSchema that needs resolving or merging.
var ErrSchemaTooLargeToResolve = fmt.Errorf("uses $ref, allOf, anyOf, oneOf, const, a type list or tuple items, which are resolved in memory on this provider, and is larger than the %d KiB such a schema may be", maxResolvedSchema>>10)

// ReduceSchema rewrites a tool's input_schema into Gemini's Schema subset,
// at most DefaultSchemaExpansion times its size. It returns nil when the
// tool takes no arguments: Gemini wants parameters left out then, not an
// empty OBJECT.
func ReduceSchema(raw json.RawMessage) (json.RawMessage, error) {
	return ReduceSchemaWithin(raw, DefaultSchemaExpansion)
}

// ReduceSchemaWithin is ReduceSchema with the expansion bound given: the
// result takes at most expansion times len(raw) bytes, or the error wraps
// ErrSchemaTooLarge.
func ReduceSchemaWithin(raw json.RawMessage, expansion int) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var w schemaWriter
	out, none, err := w.appendSchema(nil, raw, expansion)
	if err != nil || none {
		return nil, err
	}
	return out, nil
}

// jsonStringLen is the encoded length of s as a JSON string, quotes
// included, as marshal writes it (HTML characters unescaped).
func jsonStringLen[S ~string | ~[]byte](s S) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20:
			n += 6
		case c >= 0x80:
			// Invalid UTF-8 becomes U+FFFD (3 bytes); U+2028 and U+2029 are
			// escaped (6 for 3): count 3 for every non-ASCII byte.
			n += 3
		default:
			n++
		}
	}
	return n
}
