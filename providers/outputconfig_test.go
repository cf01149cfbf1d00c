package providers

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers/wire"
)

func TestParseOutputConfig(t *testing.T) {
	for _, c := range []struct {
		raw, effort, schema, err string
	}{
		{raw: ``},
		{raw: `null`},
		{raw: `{"effort":"high"}`, effort: "high"},
		{raw: `{"effort":"max","format":{"type":"json_schema","schema":{"type":"object"}}}`, effort: "max", schema: `{"type":"object"}`},
		{raw: `{"format":null,"effort":null}`},
		{raw: `[]`, err: "output_config: expected an object"},
		{raw: `{"effort":"extreme"}`, err: `output_config.effort: must be one of low, medium, high, xhigh, max; got "extreme"`},
		{raw: `{"effort":3}`, err: "output_config.effort: expected a string"},
		{raw: `{"format":"json"}`, err: "output_config.format: expected an object"},
		{raw: `{"format":{"type":"json_object"}}`, err: `output_config.format.type: must be "json_schema", got "json_object"`},
		{raw: `{"format":{"type":"json_schema"}}`, err: "output_config.format.schema: a JSON schema object is required"},
	} {
		oc, err := ParseOutputConfig([]byte(c.raw))
		got := ""
		if err != nil {
			e := err.(*wire.Error)
			if e.Status != 400 || e.Type != "invalid_request_error" {
				t.Errorf("%s: error %d %s", c.raw, e.Status, e.Type)
			}
			got = e.Message
		}
		if got != c.err || oc.Effort != c.effort || string(oc.Schema) != c.schema {
			t.Errorf("%s: got %q %q err %q; want %q %q err %q", c.raw, oc.Effort, oc.Schema, got, c.effort, c.schema, c.err)
		}
	}
}

func TestMapEffort(t *testing.T) {
	openai := []string{"low", "medium", "high"}
	gemini3 := []string{"low", "high"}
	responses := []string{"none", "minimal", "low", "medium", "high"}
	for _, c := range []struct {
		effort string
		levels []string
		want   string
	}{
		{"low", openai, "low"}, {"medium", openai, "medium"}, {"high", openai, "high"}, {"max", openai, "high"},
		{"low", gemini3, "low"}, {"medium", gemini3, "high"}, {"max", gemini3, "high"},
		{"low", responses, "low"}, {"max", responses, "high"}, {"xhigh", openai, "high"},
		{"xhigh", []string{"low", "high", "xhigh"}, "xhigh"}, {"high", []string{"low", "xhigh"}, "xhigh"},
		{"high", []string{"minimal", "low"}, "low"},
		{"", openai, ""}, {"high", nil, ""},
	} {
		if got := MapEffort(c.effort, c.levels); got != c.want {
			t.Errorf("MapEffort(%q, %v) = %q, want %q", c.effort, c.levels, got, c.want)
		}
	}
	if got := StepLevels([]EffortStep{{Effort: "minimal", MaxBudget: 10}, {Effort: "low", MaxBudget: 20}, {Effort: "low"}}); len(got) != 2 || got[0] != "minimal" || got[1] != "low" {
		t.Errorf("StepLevels = %v", got)
	}
	if got := StepLevels(nil); len(got) != 3 || got[2] != "high" {
		t.Errorf("StepLevels(nil) = %v", got)
	}
}
