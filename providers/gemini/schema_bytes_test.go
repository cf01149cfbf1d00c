package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/requestshapes"
)

// schemaWriterSeeds are schemas in the shapes the writer takes, and some
// it leaves to the map reducer.
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
}

// FuzzSchemaWriterMatchesMaps: for every schema the writer takes, it
// writes what the map reducer writes (or, like it, nothing); what it
// leaves, the map reducer reduces.
func FuzzSchemaWriterMatchesMaps(f *testing.F) {
	for _, s := range schemaWriterSeeds {
		f.Add([]byte(s), uint16(32))
	}
	f.Add([]byte(strings.Repeat(`{"type":"object","properties":{"a":`, 40)+`{"type":"string"}`+strings.Repeat(`}}`, 40)), uint16(32))
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string","description":"long long long"}}}`), uint16(1))
	f.Fuzz(func(t *testing.T, in []byte, expansion uint16) {
		in = bytes.TrimSpace(in)
		if !json.Valid(in) || len(in) == 0 || string(in) == "null" {
			return // the request parse has checked the body
		}
		budget := int(expansion) * len(in)
		var w schemaWriter
		got, none, ok := w.appendSchema([]byte("prefix"), in, budget)
		if !ok {
			if string(got) != "prefix" {
				t.Fatalf("%s: left to the maps, but wrote %s", in, got)
			}
			return
		}
		want, err := reduceSchemaMaps(in, int(expansion), budget)
		if err != nil {
			t.Fatalf("%s: the writer reduced it (%s), the maps refused it: %v", in, got, err)
		}
		if none != (want == nil) || !none && string(got) != "prefix"+string(want) {
			t.Fatalf("%s:\nwriter %s (none %v)\nmaps   %s", in, got, none, want)
		}
	})
}

// TestSchemaWriterTakes: the writer takes the schemas clients send (a
// Claude Code tool's, the hostile shapes' many properties and deep
// nesting) without leaving them to the maps, and the cases it leaves are
// those it names.
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
		if _, _, ok := w.appendSchema(nil, []byte(s), DefaultSchemaExpansion*len(s)); !ok {
			t.Errorf("left to the maps: %.200s", s)
		}
	}
	for _, s := range schemaWriterSeeds[5:] {
		var w schemaWriter
		if _, _, ok := w.appendSchema(nil, []byte(s), DefaultSchemaExpansion*len(s)); ok {
			t.Errorf("taken: %s", s)
		}
	}
}
