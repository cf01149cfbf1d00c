package gemini_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// refBomb is an input_schema of depth definitions, each using the next fan
// times: inlined at every use it has fan^depth leaves.
func refBomb(depth, fan int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{`)
	for i := 0; i < depth; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d":{"type":"object","properties":{`, i)
		for j := 0; j < fan; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			if i == depth-1 {
				fmt.Fprintf(&b, `"p%d":{"type":"string"}`, j)
			} else {
				fmt.Fprintf(&b, `"p%d":{"$ref":"#/$defs/d%d"}`, j, i+1)
			}
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`},"properties":{"root":{"$ref":"#/$defs/d0"}}}`)
	return b.String()
}

// TestSchemaExpansionRefused: a tool schema of a couple of kilobytes whose
// $refs expand as fan^depth (once a 64 MB upstream body, or the process out
// of memory) is answered 400 invalid_request_error by the gateway, for
// messages and count_tokens alike; nothing reaches Gemini, and the gateway
// goes on serving.
func TestSchemaExpansionRefused(t *testing.T) {
	up := mockGemini(t, jsonReply(`{"totalTokens": 7}`))
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	schema := refBomb(16, 6)
	body := `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"q"}],"tools":[` +
		`{"name":"ok","input_schema":{"type":"object","properties":{"a":{"type":"string"}}}},` +
		`{"name":"bomb","input_schema":` + schema + `}]}`
	want := fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":"tools.1.input_schema: too large once its $refs are inlined (more than 32 times its %d bytes)"}}`, len(schema))
	for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
		res, got := gw.PostRead(path, body)
		if res.StatusCode != 400 || got != want {
			t.Errorf("%s: got %d %s\nwant 400 %s", path, res.StatusCode, got, want)
		}
	}
	if n := len(up.Requests()); n != 0 {
		t.Fatalf("%d requests reached Gemini", n)
	}
	res, got := gw.PostRead("/v1/messages/count_tokens", `{"model":"claude-x","messages":[{"role":"user","content":"q"}],"tools":[{"name":"small","input_schema":`+refBomb(3, 3)+`}]}`)
	if res.StatusCode != 200 || got != `{"input_tokens":7}` {
		t.Errorf("after the refusal: %d %s", res.StatusCode, got)
	}
	if sent := string(up.Last(t).Body); strings.Count(sent, `{"type":"STRING"}`) != 27 {
		t.Errorf("small schema: %d leaves sent, want 27: %s", strings.Count(sent, `{"type":"STRING"}`), sent)
	}
}

// TestSchemaExpansionOption: schema_expansion raises the bound; it adapts
// to its JSON field and refuses what is not a positive whole number.
func TestSchemaExpansionOption(t *testing.T) {
	up := mockGemini(t, jsonReply(`{"totalTokens": 9}`))
	schema := refBomb(5, 5) // 3125 leaves from well under a kilobyte
	body := `{"model":"claude-x","messages":[{"role":"user","content":"q"}],"tools":[{"name":"wide","input_schema":` + schema + `}]}`
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	if res, got := gw.PostRead("/v1/messages/count_tokens", body); res.StatusCode != 400 {
		t.Fatalf("default bound: %d %s", res.StatusCode, got)
	}
	gw = testgw.Start(t, testgw.SlotGemini, site("\tschema_expansion 1000", up))
	if res, got := gw.PostRead("/v1/messages/count_tokens", body); res.StatusCode != 200 || got != `{"input_tokens":9}` {
		t.Fatalf("schema_expansion 1000: %d %s", res.StatusCode, got)
	}
	if n := strings.Count(string(up.Last(t).Body), `{"type":"STRING"}`); n != 3125 {
		t.Errorf("%d leaves sent, want 3125", n)
	}

	provider := testgw.AdaptProvider(t, ":8080\nthinkgate gemini {\n\tschema_expansion 64\n}\nreverse_proxy https://generativelanguage.googleapis.com")
	if want := `{"name":"gemini","schema_expansion":64}`; string(provider) != want {
		t.Errorf("provider JSON %s, want %s", provider, want)
	}
	p := testgw.PortsFor(testgw.SlotGemini)
	for _, c := range []struct{ opts, want string }{
		{"schema_expansion 0", `schema_expansion: 0 is not allowed; leave the option out for its default`},
		{"schema_expansion -1", `schema_expansion: must be a positive whole number (default 32), got -1`},
		{"schema_expansion many", `schema_expansion: "many" is not a whole number`},
	} {
		cfg := testgw.Preamble(p) + fmt.Sprintf("http://localhost:%d {\nthinkgate gemini {\n\t%s\n}\nrespond ok\n}\n", p.HTTP, c.opts)
		if got := testgw.LoadError(t, testgw.SlotGemini, cfg); !strings.Contains(got, c.want) {
			t.Errorf("%s: load error %q does not contain %q", c.opts, got, c.want)
		}
	}
}
