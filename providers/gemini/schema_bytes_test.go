package gemini

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/requestshapes"
)

// schemaWriterSeeds are schemas in the shapes the writer once left to
// the map reducer, and some it always took.
var schemaWriterSeeds = []string{
	`{"type":"object","properties":{"command":{"type":"string","description":"The command to run"},"timeout":{"type":"number","description":"Milliseconds"},"description":{"type":"string"}},"required":["command"],"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false}`,
	`{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer","minimum":-1,"maximum":1e3},"minItems":1,"maxItems":2.5},"e":{"enum":["a\u2028","b\/c",null,"\ud800"],"format":"enum"},"n":{"type":"null"},"z":{"type":"object"},"w":true}}`,
	`{"properties":{"b":{"type":"string"},"a":{"type":"boolean","nullable":true}},"required":["b","b","ghost",3,"a"],"nullable":true,"description":"x <b> \u0026 \"q\""}`,
	`{"type":"object","properties":{"d":{"type":"string","format":"date-time","description":""},"i":{"items":{}},"o":{"type":"object","properties":{}}}}`,
	`{"type":"string","enum":["x"]}`,
	`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}`,
	`{"type":"object","properties":{"\u0061":{"type":"string"}}}`,
	`{"type":"object","properties":{"t":{"type":["string","null"]},"u":{"items":[{"type":"string"}]}}}`,
	`{"type":"object","properties":{"é":{"type":"string"}}}`,
	`{"anyOf":[{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"nullable":true},{"properties":{"a":{"type":"string"},"c\"<":{"const":"x"}}}],"description":"u"}`,
	`{"allOf":[{"properties":{"a":{"type":"string"}},"required":["a","a"]},{"allOf":[{"$ref":"#/$defs/B"}],"title":"t"},{"allOf":[]}],"$defs":{"B":{"properties":{"b":{"oneOf":[{"type":"null"},{"$ref":"#/$defs/B","description":"again"}]}},"required":["b"]}},"required":"x"}`,
	`{"type":"object","properties":{"x":{"oneOf":[{"type":"null","description":"none"},{"anyOf":[{"type":"string","nullable":true}],"description":"d"}],"nullable":false},"y":{"type":["integer","number","null","integer"],"minimum":0,"format":"int32"},"z":{"items":[{},{"type":"string"}],"minItems":2}}}`,
	`{"type":"object","properties":{"a~b/c":{"type":"string"},"r":{"$ref":"#/properties/a~0b~1c","description":"over"},"s":{"$ref":"#nothing"},"u":{"$ref":"http://x"}},"required":["a~b/c","r"]}`,
}

// schemaSeeds are the seeds of the differential target: the seeds above,
// every JSON object written as a string literal in this package's tests
// (and the input_schema and schema members inside them), the schemas of
// the golden requests in testdata/requests, and the built shapes.
func schemaSeeds(t testing.TB) []string {
	seeds := append([]string(nil), schemaWriterSeeds...)
	var add func(v any, isSchema bool)
	add = func(v any, isSchema bool) {
		switch v := v.(type) {
		case map[string]any:
			if isSchema {
				b, _ := json.Marshal(v)
				seeds = append(seeds, string(b))
			}
			for k, m := range v {
				add(m, k == "input_schema" || k == "schema")
			}
		case []any:
			for _, m := range v {
				add(m, false)
			}
		}
	}
	files, _ := filepath.Glob("*_test.go")
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
				return true
			}
			seeds = append(seeds, s)
			var v any
			_ = json.Unmarshal([]byte(s), &v)
			add(v, false)
			return true
		})
	}
	golden, _ := filepath.Glob("testdata/requests/*.json")
	for _, name := range golden {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			add(v, false)
		}
	}
	var tools struct {
		Tools []struct {
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(requestshapes.ManyTools(64<<10), &tools); err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, string(tools.Tools[0].InputSchema), bombSchema(4, 3), bombSchema(3, 5), resolvedSchema(4096), manyRefsSchema(50),
		strings.Repeat(`{"type":"object","properties":{"a":`, 40)+`{"type":"string"}`+strings.Repeat(`}}`, 40),
		strings.Repeat(`{"anyOf":[{"type":"null"},`, 40)+`{"type":"string"}`+strings.Repeat(`]}`, 40))
	return seeds
}

// reduceSchemaOracle is ReduceSchemaWithin through the map reducer, for a
// schema of at most maxResolvedSchema bytes.
func reduceSchemaOracle(raw []byte, expansion int) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	budget := expansion * len(raw)
	if budget/len(raw) != expansion {
		budget = math.MaxInt
	}
	return reduceSchemaMaps(raw, expansion, budget)
}

// FuzzSchemaWriterMatchesMaps: the schema writer writes what the map
// reducer writes (or, like it, nothing), or refuses what it refuses with
// the same error, for every schema the request parse lets through and any
// expansion bound.
func FuzzSchemaWriterMatchesMaps(f *testing.F) {
	for _, s := range schemaSeeds(f) {
		f.Add([]byte(s), uint16(32))
	}
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string","description":"long long long"}}}`), uint16(1))
	f.Add([]byte(bombSchema(3, 3)), uint16(8))
	f.Fuzz(func(t *testing.T, in []byte, expansion uint16) {
		in = bytes.TrimSpace(in)
		if !json.Valid(in) || len(in) == 0 || string(in) == "null" || len(in) > maxResolvedSchema {
			return // the request parse has checked the body
		}
		var w schemaWriter
		got, none, err := w.appendSchema([]byte("prefix"), in, int(expansion))
		want, wantErr := reduceSchemaOracle(in, int(expansion))
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%s (expansion %d):\nwriter %s, %v\nmaps   %s, %v", in, expansion, got, err, want, wantErr)
		}
		if err != nil {
			if string(got) != "prefix" {
				t.Fatalf("%s: refused, but wrote %s", in, got)
			}
			return
		}
		if none != (want == nil) || !none && string(got) != "prefix"+string(want) || none && string(got) != "prefix" {
			t.Fatalf("%s (expansion %d):\nwriter %s (none %v)\nmaps   %s", in, expansion, got, none, want)
		}
	})
}

// TestSchemaWriterMatchesMaps: every seed of the differential target,
// at the default bound and at bounds just around what it needs, is
// written as the map reducer writes it.
func TestSchemaWriterMatchesMaps(t *testing.T) {
	for _, s := range schemaSeeds(t) {
		in := []byte(s)
		for _, expansion := range []int{DefaultSchemaExpansion, 1, 2, 4, 1000} {
			var w schemaWriter
			got, none, err := w.appendSchema(nil, bytes.TrimSpace(in), expansion)
			want, wantErr := reduceSchemaOracle(in, expansion)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() ||
				err == nil && (none != (want == nil) || string(got) != string(want)) {
				t.Errorf("%.300s (expansion %d):\nwriter %.300s (none %v), %v\nmaps   %.300s, %v", s, expansion, got, none, err, want, wantErr)
			}
		}
	}
}

// TestSchemaWriterTakes: the schemas clients send (a Claude Code tool's,
// the hostile shapes' many properties and deep nesting) are reduced at
// any size; one that needs resolving is reduced up to maxResolvedSchema.
func TestSchemaWriterTakes(t *testing.T) {
	takes := []string{schemaWriterSeeds[0], schemaWriterSeeds[1], schemaWriterSeeds[2], schemaWriterSeeds[3], schemaWriterSeeds[4],
		strings.Repeat(`{"type":"object","properties":{"a":`, 400) + `{"type":"string"}` + strings.Repeat(`}}`, 400)}
	var tools struct {
		Tools []struct {
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(requestshapes.ManyTools(1<<20), &tools); err != nil {
		t.Fatal(err)
	}
	takes = append(takes, string(tools.Tools[0].InputSchema))
	for _, s := range takes {
		var w schemaWriter
		if _, _, err := w.appendSchema(nil, []byte(s), DefaultSchemaExpansion); err != nil {
			t.Errorf("%v: %.200s", err, s)
		}
	}
	for _, s := range schemaWriterSeeds[5:] {
		var w schemaWriter
		if _, _, err := w.appendSchema(nil, []byte(s), DefaultSchemaExpansion); err != nil {
			t.Errorf("%v: %s", err, s)
		}
	}
}

// randomSchema builds a schema of the keywords the reduction reads, with
// values of every kind, for TestSchemaWriterMatchesMapsRandom.
func randomSchema(r *rand.Rand, depth int) string {
	if depth > 4 || r.Intn(8) == 0 {
		return []string{`{}`, `true`, `null`, `1`, `"string"`, `[]`, `{"type":"null"}`, `{"type":"string"}`}[r.Intn(8)]
	}
	keys := []string{"type", "description", "nullable", "enum", "const", "format", "minimum", "maximum", "items",
		"minItems", "maxItems", "properties", "required", "anyOf", "oneOf", "allOf", "$ref", "$defs", "title",
		`\u0074ype`, "a", "b", "é"}
	names := []string{"a", "b", "c", `a\"<`, `\u0061`, "é", "a~b/c", "$defs"}
	value := func(k string) string {
		switch k {
		case "type", `\u0074ype`:
			types := []string{`"string"`, `"number"`, `"integer"`, `"boolean"`, `"array"`, `"object"`, `"null"`, `"any"`}
			if r.Intn(3) == 0 {
				return "[" + types[r.Intn(8)] + "," + types[r.Intn(8)] + "," + types[r.Intn(8)] + "]"
			}
			return types[r.Intn(8)]
		case "description", "title":
			return []string{`""`, `"d"`, `"x <b> \u2028 \ud800"`, `3`}[r.Intn(4)]
		case "nullable":
			return []string{`true`, `false`, `"true"`}[r.Intn(3)]
		case "enum":
			return []string{`["a","b"]`, `["a",null]`, `[1,"a"]`, `[]`, `"a"`, `[null]`}[r.Intn(6)]
		case "const":
			return []string{`"c"`, `1`, `null`, `"\u0063"`}[r.Intn(4)]
		case "format":
			return []string{`"date-time"`, `"enum"`, `"int32"`, `"double"`, `"uri"`}[r.Intn(5)]
		case "minimum", "maximum", "minItems", "maxItems":
			return []string{`1`, `-2.5`, `1e3`, `"1"`, `99999999999999999999`}[r.Intn(5)]
		case "items":
			if r.Intn(3) == 0 {
				return "[" + randomSchema(r, depth+1) + "," + randomSchema(r, depth+1) + "]"
			}
			return randomSchema(r, depth+1)
		case "properties", "$defs":
			var b strings.Builder
			b.WriteByte('{')
			for j, n := 0, r.Intn(4); j < n; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`"` + names[r.Intn(len(names))] + `":` + randomSchema(r, depth+1))
			}
			b.WriteByte('}')
			return b.String()
		case "required":
			return []string{`["a","b","a"]`, `["c",1]`, `[]`, `"a"`, `["a~b/c","\u0061"]`}[r.Intn(5)]
		case "anyOf", "oneOf", "allOf":
			var b strings.Builder
			b.WriteByte('[')
			for j, n := 0, r.Intn(4); j < n; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(randomSchema(r, depth+1))
			}
			b.WriteByte(']')
			return b.String()
		case "$ref":
			return []string{`"#"`, `"#/$defs/a"`, `"#/$defs/b"`, `"#/properties/a"`, `"#/properties/a~0b~1c"`, `"#x"`, `"y"`, `"#/$defs/$defs"`, `1`}[r.Intn(9)]
		}
		return randomSchema(r, depth+1)
	}
	var b strings.Builder
	b.WriteByte('{')
	for j, n := 0, r.Intn(6); j < n; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		k := keys[r.Intn(len(keys))]
		b.WriteString(`"` + k + `":` + value(k))
	}
	b.WriteByte('}')
	return b.String()
}

// TestSchemaWriterMatchesMapsRandom: schemas built from every keyword
// the reduction reads, nested and repeated, are written as the map
// reducer writes them, at bounds that refuse some.
func TestSchemaWriterMatchesMapsRandom(t *testing.T) {
	r := rand.New(rand.NewSource(30))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := 0; i < n; i++ {
		s := randomSchema(r, 0)
		if s == "null" {
			continue // no parameters, before any reduction
		}
		expansion := []int{DefaultSchemaExpansion, 1, 3, 8}[i%4]
		var w schemaWriter
		got, none, err := w.appendSchema(nil, []byte(s), expansion)
		want, wantErr := reduceSchemaOracle([]byte(s), expansion)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() ||
			err == nil && (none != (want == nil) || string(got) != string(want)) {
			t.Fatalf("%s (expansion %d):\nwriter %s (none %v), %v\nmaps   %s, %v", s, expansion, got, none, err, want, wantErr)
		}
	}
}
