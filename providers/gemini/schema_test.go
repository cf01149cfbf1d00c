package gemini

import (
	"strings"
	"testing"
)

// TestReduceSchema: each input_schema becomes exactly the Gemini Schema
// shown (or no parameters at all, "").
func TestReduceSchema(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"no schema", ``, ``},
		{"null", `null`, ``},
		{"empty object", `{"type":"object","properties":{}}`, ``},
		{"bare object", `{"type":"object","additionalProperties":false}`, ``},
		{"untyped root with properties",
			`{"properties":{"a":{"type":"string"}}}`,
			`{"properties":{"a":{"type":"STRING"}},"type":"OBJECT"}`},
		{"keywords Gemini rejects are dropped",
			`{"$schema":"x","$id":"y","$comment":"z","title":"T","type":"object","additionalProperties":false,"patternProperties":{"^x":{}},"minProperties":1,"properties":{"s":{"type":"string","minLength":1,"maxLength":9,"pattern":"a+","default":"a","examples":["a"],"readOnly":true,"x-vendor":1}}}`,
			`{"properties":{"s":{"type":"STRING"}},"type":"OBJECT"}`},
		{"formats by type",
			`{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"string","format":"enum"},"c":{"type":"string","format":"email"},"d":{"type":"number","format":"double"},"e":{"type":"number","format":"int32"},"f":{"type":"integer","format":"int64"},"g":{"type":"boolean","format":"date-time"}}}`,
			`{"properties":{"a":{"format":"date-time","type":"STRING"},"b":{"format":"enum","type":"STRING"},"c":{"type":"STRING"},"d":{"format":"double","type":"NUMBER"},"e":{"type":"NUMBER"},"f":{"format":"int64","type":"INTEGER"},"g":{"type":"BOOLEAN"}},"type":"OBJECT"}`},
		{"numeric bounds only on numbers, item bounds only on arrays",
			`{"type":"object","properties":{"n":{"type":"number","minimum":0.5,"maximum":10,"exclusiveMinimum":0,"multipleOf":0.5},"s":{"type":"string","minimum":1,"minItems":1},"l":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2.5,"uniqueItems":true}}}`,
			`{"properties":{"l":{"items":{"type":"INTEGER"},"minItems":1,"type":"ARRAY"},"n":{"maximum":10,"minimum":0.5,"type":"NUMBER"},"s":{"type":"STRING"}},"type":"OBJECT"}`},
		{"nullable forms",
			`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]},"c":{"type":"string","nullable":true},"d":{"enum":["x",null]},"e":{"type":"null"}}}`,
			`{"properties":{"a":{"nullable":true,"type":"STRING"},"b":{"nullable":true,"type":"INTEGER"},"c":{"nullable":true,"type":"STRING"},"d":{"enum":["x"],"nullable":true,"type":"STRING"},"e":{"nullable":true}},"type":"OBJECT"}`},
		{"enums and const",
			`{"type":"object","properties":{"a":{"enum":["x","y"]},"b":{"type":"integer","enum":[1,2]},"c":{"const":"only"},"d":{"const":3},"e":{"type":"string","enum":["p",1]}}}`,
			`{"properties":{"a":{"enum":["x","y"],"type":"STRING"},"b":{"type":"INTEGER"},"c":{"enum":["only"],"type":"STRING"},"d":{},"e":{"type":"STRING"}},"type":"OBJECT"}`},
		{"properties and items only where they belong",
			`{"type":"object","properties":{"s":{"type":"string","properties":{"x":{"type":"string"}},"required":["x"],"items":{"type":"string"}},"o":{"type":"object","properties":{"x":{"type":"string"}},"items":{"type":"string"}}}}`,
			`{"properties":{"o":{"properties":{"x":{"type":"STRING"}},"type":"OBJECT"},"s":{"type":"STRING"}},"type":"OBJECT"}`},
		{"nested objects: free-form becomes any, required filtered",
			`{"type":"object","properties":{"free":{"type":"object","description":"anything"},"typed":{"type":"object","properties":{"k":{"type":"string"}},"required":["k","ghost"]},"bad":{"type":"object","properties":{"k":{"type":"string"}},"required":["ghost"]}}}`,
			`{"properties":{"bad":{"properties":{"k":{"type":"STRING"}},"type":"OBJECT"},"free":{"description":"anything"},"typed":{"properties":{"k":{"type":"STRING"}},"required":["k"],"type":"OBJECT"}},"type":"OBJECT"}`},
		{"arrays always have items",
			`{"type":"object","properties":{"a":{"type":"array"},"b":{"type":"array","items":[{"type":"string"}]},"c":{"type":"array","items":true},"d":{"items":{"type":"string"}}}}`,
			`{"properties":{"a":{"items":{},"type":"ARRAY"},"b":{"items":{"type":"STRING"},"type":"ARRAY"},"c":{"items":{},"type":"ARRAY"},"d":{"items":{"type":"STRING"},"type":"ARRAY"}},"type":"OBJECT"}`},
		{"several types become anyOf branches",
			`{"type":"object","properties":{"v":{"type":["string","array","object"],"description":"value","items":{"type":"number"},"format":"date-time"}}}`,
			`{"properties":{"v":{"anyOf":[{"format":"date-time","type":"STRING"},{"items":{"type":"NUMBER"},"type":"ARRAY"},{}],"description":"value"}},"type":"OBJECT"}`},
		{"an unconstrained anyOf branch makes the whole any",
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{}]}}}`,
			`{"properties":{"v":{}},"type":"OBJECT"}`},
		{"own type wins over anyOf constraints",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`,
			`{"properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}},"type":"OBJECT"}`},
		{"root union of objects merges into one object",
			`{"oneOf":[{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},{"type":"object","properties":{"name":{"type":"string"}}}],"description":"Find by id or name"}`,
			`{"description":"Find by id or name","properties":{"id":{"type":"STRING"},"name":{"type":"STRING"}},"type":"OBJECT"}`},
		{"refs: local pointers, description override, unknown and remote refs",
			`{"type":"object","definitions":{"A":{"type":"string","description":"an A"}},"properties":{"a":{"$ref":"#/definitions/A"},"b":{"$ref":"#/definitions/A","description":"a B"},"c":{"$ref":"#/definitions/Missing","description":"kept"},"d":{"$ref":"https://example.com/s.json"},"e":{"$ref":"#/properties/a"}}}`,
			`{"properties":{"a":{"description":"an A","type":"STRING"},"b":{"description":"a B","type":"STRING"},"c":{"description":"kept"},"d":{},"e":{"description":"an A","type":"STRING"}},"type":"OBJECT"}`},
		{"recursive root ref ends",
			`{"type":"object","properties":{"self":{"$ref":"#"},"name":{"type":"string"}}}`,
			`{"properties":{"name":{"type":"STRING"},"self":{"properties":{"name":{"type":"STRING"},"self":{}},"type":"OBJECT"}},"type":"OBJECT"}`},
		{"allOf with refs",
			`{"type":"object","$defs":{"Base":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}},"properties":{"x":{"allOf":[{"$ref":"#/$defs/Base"},{"properties":{"tag":{"type":"string"}},"required":["tag"]}],"description":"X"}}}`,
			`{"properties":{"x":{"description":"X","properties":{"id":{"type":"INTEGER"},"tag":{"type":"STRING"}},"required":["id","tag"],"type":"OBJECT"}},"type":"OBJECT"}`},
		{"unknown types dropped",
			`{"type":"object","properties":{"a":{"type":"any"},"b":{"type":"float"}}}`,
			`{"properties":{"a":{},"b":{}},"type":"OBJECT"}`},
		{"HTML characters stay readable",
			`{"type":"object","properties":{"q":{"type":"string","description":"a <b> & c"}}}`,
			`{"properties":{"q":{"description":"a <b> & c","type":"STRING"}},"type":"OBJECT"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReduceSchema([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestReduceSchemaErrors(t *testing.T) {
	for _, in := range []string{`[1]`, `"x"`, `{`, `true`} {
		if _, err := ReduceSchema([]byte(in)); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

// TestReduceSchemaDepth: a schema nested beyond the bound is cut off, not
// walked without end.
func TestReduceSchemaDepth(t *testing.T) {
	in := strings.Repeat(`{"type":"object","properties":{"a":`, 100) + `{"type":"string"}` + strings.Repeat(`}}`, 100)
	got, err := ReduceSchema([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(got), `"properties"`); n > maxSchemaDepth+1 || n < maxSchemaDepth/2 {
		t.Errorf("depth %d: %s", n, got)
	}
}
