package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func mustParse(t *testing.T, body string) *Request {
	t.Helper()
	r, err := ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest(%s): %v", body, err)
	}
	return r
}

func marshalString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseRequestTypedFields(t *testing.T) {
	body := `{
		"model": "claude-sonnet-4-5",
		"max_tokens": 1024,
		"stream": true,
		"temperature": 0.5,
		"top_p": 0.9,
		"top_k": 40,
		"stop_sequences": ["</answer>", "STOP"],
		"metadata": {"user_id": "u-1"},
		"system": "You are terse.",
		"tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": true},
		"tools": [
			{"name": "get_weather", "description": "Weather", "input_schema": {"type": "object"}},
			{"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
			{"type": "custom", "name": "c", "input_schema": {}}
		],
		"messages": [
			{"role": "user", "content": "Hi"},
			{"role": "assistant", "content": [
				{"type": "thinking", "thinking": "hmm", "signature": "sig"},
				{"type": "redacted_thinking", "data": "opaque"},
				{"type": "text", "text": "Hello"},
				{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny", "is_error": true},
				{"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
				{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
				{"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}}
			]}
		]
	}`
	r := mustParse(t, body)
	f64 := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	if r.Model != "claude-sonnet-4-5" || r.MaxTokens != 1024 || !r.Stream ||
		!reflect.DeepEqual(r.Temperature, f64(0.5)) || !reflect.DeepEqual(r.TopP, f64(0.9)) || !reflect.DeepEqual(r.TopK, i(40)) ||
		!reflect.DeepEqual(r.StopSequences, []string{"</answer>", "STOP"}) ||
		!reflect.DeepEqual(r.Metadata, &Metadata{UserID: "u-1"}) ||
		!reflect.DeepEqual(r.ToolChoice, &ToolChoice{Type: "tool", Name: "get_weather", DisableParallelToolUse: true}) {
		t.Errorf("typed fields: %+v", r)
	}
	if r.System.Text() != "You are terse." || !r.System.IsString || !r.System.Present {
		t.Errorf("system: %+v", r.System)
	}
	if len(r.Tools) != 3 || r.Tools[0].Name != "get_weather" || string(r.Tools[0].InputSchema) != `{"type": "object"}` ||
		!r.Tools[0].IsCustom() || r.Tools[1].IsCustom() || r.Tools[1].Type != "web_search_20250305" || !r.Tools[2].IsCustom() {
		t.Errorf("tools: %+v", r.Tools)
	}
	if len(r.Messages) != 3 {
		t.Fatalf("messages: %+v", r.Messages)
	}
	a := r.Messages[1].Content.Blocks
	if len(a) != 4 || a[0].Thinking != "hmm" || a[0].Signature != "sig" || a[1].Data != "opaque" || a[2].Text != "Hello" ||
		a[3].ID != "toolu_1" || a[3].Name != "get_weather" || string(a[3].Input) != `{"city": "Paris"}` {
		t.Errorf("assistant blocks: %+v", a)
	}
	u := r.Messages[2].Content.Blocks
	if len(u) != 4 || u[0].ToolUseID != "toolu_1" || !u[0].IsError || u[0].Content == nil ||
		!u[0].Content.IsString || u[0].Content.Text() != "sunny" {
		t.Errorf("tool_result with string content: %+v", u[0])
	}
	if u[1].Content == nil || u[1].Content.IsString || len(u[1].Content.Blocks) != 2 || u[1].Content.Text() != "ab" {
		t.Errorf("tool_result with block content: %+v", u[1])
	}
	if !reflect.DeepEqual(u[2].Source, &Source{Type: "base64", MediaType: "image/png", Data: "iVBO"}) ||
		!reflect.DeepEqual(u[3].Source, &Source{Type: "url", URL: "https://example.com/a.pdf"}) {
		t.Errorf("sources: %+v %+v", u[2].Source, u[3].Source)
	}
}

func TestContent(t *testing.T) {
	cases := []struct {
		name, in    string
		want        Content
		wantText    string
		wantMarshal string
	}{
		{"string", `"Hi"`, Content{Blocks: []Block{{Type: "text", Text: "Hi"}}, IsString: true, Present: true}, "Hi", `"Hi"`},
		{"empty string", `""`, Content{Blocks: []Block{{Type: "text"}}, IsString: true, Present: true}, "", `""`},
		{"null", `null`, Content{}, "", `null`},
		{"empty array", `[]`, Content{Blocks: []Block{}, Present: true}, "", `[]`},
		{"blocks", `[{"type":"text","text":"a"}, {"type":"image","source":{"type":"url","url":"u"}}, {"type":"text", "text":"b"}]`,
			Content{Blocks: []Block{
				{Type: "text", Text: "a", Raw: json.RawMessage(`{"type":"text","text":"a"}`)},
				{Type: "image", Source: &Source{Type: "url", URL: "u"}, Raw: json.RawMessage(`{"type":"image","source":{"type":"url","url":"u"}}`)},
				{Type: "text", Text: "b", Raw: json.RawMessage(`{"type":"text", "text":"b"}`)},
			}, Present: true},
			"ab", `[{"type":"text","text":"a"},{"type":"image","source":{"type":"url","url":"u"}},{"type":"text","text":"b"}]`},
	}
	for _, tc := range cases {
		var c Content
		if err := json.Unmarshal([]byte(tc.in), &c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(c, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, c, tc.want)
		}
		if c.Text() != tc.wantText {
			t.Errorf("%s: Text() = %q, want %q", tc.name, c.Text(), tc.wantText)
		}
		if got := marshalString(t, c); got != tc.wantMarshal {
			t.Errorf("%s: marshal = %s, want %s", tc.name, got, tc.wantMarshal)
		}
	}
	for _, bad := range []string{`1`, `{"type":"text"}`, `true`} {
		var c Content
		err := json.Unmarshal([]byte(bad), &c)
		if err == nil || err.Error() != "content must be a string or an array of content blocks" {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// Content edited by a converter marshals its blocks, without the raw form of
// blocks it built itself.
func TestContentMarshalEdited(t *testing.T) {
	cases := []struct {
		c    Content
		want string
	}{
		{Content{Present: true}, `[]`},
		{Content{Present: true, IsString: true, Blocks: []Block{{Type: "text", Text: "a"}, {Type: "text", Text: "b"}}}, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`},
		{Content{Present: true, IsString: true, Blocks: []Block{{Type: "image", Source: &Source{Type: "url", URL: "u"}}}}, `[{"type":"image","source":{"type":"url","url":"u"}}]`},
		{Content{Present: true, Blocks: []Block{{Type: "tool_result", ToolUseID: "t", Content: &Content{Present: true, IsString: true, Blocks: []Block{{Type: "text", Text: "ok"}}}}}}, `[{"type":"tool_result","tool_use_id":"t","content":"ok"}]`},
		{Content{Present: true, Blocks: []Block{{Type: "tool_use", ID: "t", Name: "n", Input: json.RawMessage(`{"a":1}`)}}}, `[{"type":"tool_use","id":"t","name":"n","input":{"a":1}}]`},
	}
	for _, tc := range cases {
		if got := marshalString(t, tc.c); got != tc.want {
			t.Errorf("%+v: got %s, want %s", tc.c, got, tc.want)
		}
	}
}

func TestSystem(t *testing.T) {
	r := mustParse(t, `{"messages":[],"system":"Be brief."}`)
	if !r.System.Present || !r.System.IsString || r.System.Text() != "Be brief." {
		t.Errorf("string system: %+v", r.System)
	}
	r = mustParse(t, `{"messages":[],"system":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B"}]}`)
	if !r.System.Present || r.System.IsString || len(r.System.Blocks) != 2 || r.System.Text() != "AB" ||
		string(r.System.Blocks[0].Raw) != `{"type":"text","text":"A","cache_control":{"type":"ephemeral"}}` {
		t.Errorf("block system: %+v", r.System)
	}
	r = mustParse(t, `{"messages":[]}`)
	if r.System.Present {
		t.Errorf("absent system: %+v", r.System)
	}
}

// Raw keeps each block and tool exactly as sent, whitespace and unknown
// fields included, and marshalling an unchanged one gives it back.
func TestBlockAndToolRaw(t *testing.T) {
	block := `{ "type" : "text", "text": "a\u00e9", "cache_control": {"type": "ephemeral", "ttl": "1h"}, "citations": [] }`
	tool := `{"name":"f", "input_schema": {"type":"object"}, "strict": true, "cache_control": {"type":"ephemeral"}}`
	r := mustParse(t, `{"messages":[{"role":"user","content":[`+block+`]}],"tools":[`+tool+`]}`)
	b := r.Messages[0].Content.Blocks[0]
	if string(b.Raw) != block || b.Text != "aé" {
		t.Errorf("Block.Raw = %s", b.Raw)
	}
	if got := marshalString(t, b); !jsonEqual(got, block) {
		t.Errorf("Block marshal = %s", got)
	}
	if string(r.Tools[0].Raw) != tool {
		t.Errorf("Tool.Raw = %s", r.Tools[0].Raw)
	}
	// A block without Raw (built by a converter) marshals its fields.
	b.Raw = nil
	if got := marshalString(t, b); got != `{"type":"text","text":"aé"}` {
		t.Errorf("edited block marshal = %s", got)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func TestThinkingParam(t *testing.T) {
	tr, fa := true, false
	cases := []struct {
		name, field string // field "" means absent
		want        ThinkingParam
		// Enabled(true), Enabled(false)
		onByDefault, offByDefault bool
	}{
		{"absent", "", ThinkingParam{}, true, false},
		{"null", `null`, ThinkingParam{}, true, false},
		{"true", `true`, ThinkingParam{Present: true, Bool: &tr}, true, true},
		{"false", ` false `, ThinkingParam{Present: true, Bool: &fa}, false, false},
		{"enabled with budget", `{"type":"enabled","budget_tokens":2048}`, ThinkingParam{Present: true, Type: "enabled", BudgetTokens: 2048}, true, true},
		{"enabled, null budget", `{"type":"enabled","budget_tokens":null}`, ThinkingParam{Present: true, Type: "enabled"}, true, true},
		{"enabled with display", `{"type":"enabled","budget_tokens":1024,"display":"summarized"}`, ThinkingParam{Present: true, Type: "enabled", BudgetTokens: 1024, Display: "summarized"}, true, true},
		{"object without type", `{"budget_tokens":4096}`, ThinkingParam{Present: true, Type: "enabled", BudgetTokens: 4096}, true, true},
		{"disabled", `{"type":"disabled"}`, ThinkingParam{Present: true, Type: "disabled"}, false, false},
		{"adaptive", `{"type":"adaptive"}`, ThinkingParam{Present: true, Type: "adaptive"}, true, true},
		{"adaptive with display", `{"type":"adaptive","display":"updates"}`, ThinkingParam{Present: true, Type: "adaptive", Display: "updates"}, true, true},
	}
	for _, tc := range cases {
		body := `{"messages":[]}`
		if tc.field != "" {
			body = `{"messages":[],"thinking":` + tc.field + `}`
		}
		r := mustParse(t, body)
		if !reflect.DeepEqual(r.Thinking, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, r.Thinking, tc.want)
		}
		if got := r.Thinking.Enabled(true); got != tc.onByDefault {
			t.Errorf("%s: Enabled(true) = %v", tc.name, got)
		}
		if got := r.Thinking.Enabled(false); got != tc.offByDefault {
			t.Errorf("%s: Enabled(false) = %v", tc.name, got)
		}
	}

	bad := []struct{ field, msg string }{
		{`{"type":"bogus"}`, `invalid request: thinking.type must be one of enabled, disabled, adaptive; got "bogus"`},
		{`{"type":"enabled","budget_tokens":"2048"}`, `invalid request: thinking.budget_tokens must be an integer`},
		{`{"type":"enabled","budget_tokens":1024.5}`, `invalid request: thinking.budget_tokens must be an integer`},
		{`{"type":7}`, `invalid request: thinking: json: cannot unmarshal number into Go struct field .type of type string`},
		{`"enabled"`, `invalid request: thinking must be an object or a boolean`},
		{`1`, `invalid request: thinking must be an object or a boolean`},
		{`[]`, `invalid request: thinking must be an object or a boolean`},
	}
	for _, tc := range bad {
		_, err := ParseRequest([]byte(`{"messages":[],"thinking":` + tc.field + `}`))
		assertInvalidRequest(t, tc.field, err, tc.msg)
	}
}

func assertInvalidRequest(t *testing.T, what string, err error, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s: error %v, want *Error", what, err)
		return
	}
	if e.Status != 400 || e.Type != "invalid_request_error" || e.Message != msg {
		t.Errorf("%s: got %d %s %q, want 400 invalid_request_error %q", what, e.Status, e.Type, e.Message, msg)
	}
}

func TestParseRequestErrors(t *testing.T) {
	cases := []struct{ name, body, msg string }{
		{"empty", ``, "request body is not valid JSON: unexpected end of JSON input"},
		{"not JSON", `hello`, "request body is not valid JSON: invalid character 'h' looking for beginning of value"},
		{"truncated", `{"messages":[`, "request body is not valid JSON: unexpected end of JSON input"},
		{"trailing data", `{"messages":[]} x`, "request body is not valid JSON: invalid character 'x' after top-level value"},
		{"array", `[{"messages":[]}]`, "request body must be a JSON object"},
		{"string", `"hi"`, "request body must be a JSON object"},
		{"number", ` 42 `, "request body must be a JSON object"},
		{"null", `null`, "request body must be a JSON object"},
		{"missing messages", `{"model":"m"}`, "messages: Field required"},
		{"null messages", `{"model":"m","messages": null }`, "messages: Field required"},
		{"messages not an array", `{"messages":"hi"}`, "invalid request: messages: expected an array, got string"},
		{"max_tokens not a number", `{"messages":[],"max_tokens":"10"}`, "invalid request: max_tokens: expected an integer, got string"},
		{"bad content", `{"messages":[{"role":"user","content":5}]}`, "invalid request: content must be a string or an array of content blocks"},
		{"bad role", `{"messages":[{"role":"user","content":"a"},{"role":"bot","content":"b"}]}`, `messages.1.role: must be "user" or "assistant", got "bot"`},
		{"missing role", `{"messages":[{"content":"a"}]}`, `messages.0.role: must be "user" or "assistant", got ""`},
	}
	for _, tc := range cases {
		r, err := ParseRequest([]byte(tc.body))
		if r != nil {
			t.Errorf("%s: got a request", tc.name)
		}
		assertInvalidRequest(t, tc.name, err, tc.msg)
	}
}

// Fields keeps every top-level field byte for byte, known or not, and
// MarshalFields re-encodes the body from them.
func TestFieldsPreserveUnknown(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],
		"output_config": {"effort": "high", "format": {"type": "json_schema"}},
		"context_management": {"edits": [1, 2.50, 1e3, "\u00e9\u2028"]},
		"service_tier": "auto",
		"container": null,
		"thinking": {"type": "enabled", "budget_tokens": 2048, "future": true}}`
	r := mustParse(t, body)
	for name, want := range map[string]string{
		"output_config":      `{"effort": "high", "format": {"type": "json_schema"}}`,
		"context_management": `{"edits": [1, 2.50, 1e3, "\u00e9\u2028"]}`,
		"service_tier":       `"auto"`,
		"container":          `null`,
		"thinking":           `{"type": "enabled", "budget_tokens": 2048, "future": true}`,
		"messages":           `[{"role":"user","content":"hi"}]`,
	} {
		if got := string(r.Fields[name]); got != want {
			t.Errorf("Fields[%s] = %s, want %s", name, got, want)
		}
	}
	if len(r.Fields) != 7 {
		t.Errorf("Fields has %d entries", len(r.Fields))
	}
	if err := r.SetField("model", "upstream-model"); err != nil {
		t.Fatal(err)
	}
	delete(r.Fields, "container")
	got, err := r.MarshalFields()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"context_management":{"edits":[1,2.50,1e3,"\u00e9\u2028"]},"messages":[{"role":"user","content":"hi"}],"model":"upstream-model",` +
		`"output_config":{"effort":"high","format":{"type":"json_schema"}},"service_tier":"auto","thinking":{"type":"enabled","budget_tokens":2048,"future":true}}`
	if string(got) != want {
		t.Errorf("MarshalFields:\n got %s\nwant %s", got, want)
	}
	if err := r.SetField("bad", func() {}); err == nil {
		t.Errorf("SetField with an unencodable value succeeded")
	}
}

// valuesEqual compares two JSON texts as values, numbers kept exact.
func valuesEqual(a, b []byte) (bool, error) {
	decode := func(p []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(p))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	x, err := decode(a)
	if err != nil {
		return false, err
	}
	y, err := decode(b)
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(x, y), nil
}

// FuzzParseRequest: ParseRequest never panics, only fails with a 400, and a
// body it accepts re-marshals from Fields to the same JSON value.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"x","name":"n","input":{}}]}],"thinking":{"type":"adaptive","display":"updates"}}`,
		`{"messages":[],"system":[{"type":"text","text":"<b>&\u2028"}],"thinking":true,"extra":[1.0,-0,1e400]}`,
		`{"messages":[],"tools":[{"name":"a","input_schema":{}},{"type":"bash_20250124","name":"bash"}],"tool_choice":{"type":"any"}}`,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"r"}]}]}]}`,
		`{"messages":[],"a":"\xff","a":2}`,
		`{"messages":null}`, `[]`, `{`, ``, `{"thinking":{"type":"x"},"messages":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseRequest(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status != 400 || e.Type != "invalid_request_error" || e.Message == "" {
				t.Fatalf("error %#v", err)
			}
			return
		}
		if r.Messages == nil {
			t.Fatalf("accepted without messages: %s", body)
		}
		out, err := r.MarshalFields()
		if err != nil {
			t.Fatalf("MarshalFields: %v", err)
		}
		eq, err := valuesEqual(body, out)
		if err != nil || !eq {
			t.Fatalf("re-marshalled body differs (%v):\n in %s\nout %s", err, body, out)
		}
	})
}
