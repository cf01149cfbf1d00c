package wire

import (
	"reflect"
	"testing"
)

// decodeSeeds are requests whose content the walk decodes, and requests
// with each thing it leaves to encoding/json.
var decodeSeeds = []string{
	`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
	`{"model":"claude-x","max_tokens":100,"stream":true,"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],"thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig"},{"type":"text","text":"a"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"x"}],"is_error":true}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[ {"type" : "text" , "text":"a\n\t\"b\\\/c\b\f\r"} , {"type":"search_result","source":"https://x","content":[]} ]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"\u00e9\ud800"}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"Type":"text","text":"case"}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":null}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_use","input":null},{"type":"tool_result","is_error":1}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":["x"]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[null]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","content":{"a":1}}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","ſignature":"long s","K":1}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","t\u0065xt":"escaped name"}]}]}`,
	`{"Model":"m","messages":[]}`,
	`{"model":"m","model":"n","messages":[]}`,
	`{"model":"m","messages":[],"max_tokens":"5"}`,
	`{"model":"m","messages":[],"max_tokens":1.5,"stream":1}`,
	`{"model":null,"messages":[]}`,
	`{"model":"m\u00e9","m\u0065ssages":[]}`,
	`{"model":"m","messages":[{"Role":"user","content":"x"}]}`,
	`{"model":"m","messages":[{"role":"user","role":"assistant","content":"x"}]}`,
	`{"model":"m","messages":[{"role":"user","content":null}]}`,
	`{"model":"m","messages":[{"role":5}]}`,
	`{"model":"m","messages":{}}`,
	`{"model":"m","messages":null}`,
	`{"model":"m","messages":[1]}`,
	`{"model":"m","messages":[{"role":"user"}],"thinking":{"type":"nope"}}`,
	`{"model":"m","messages":[],"thinking":false,"temperature":0.5,"top_p":1,"top_k":3,"stop_sequences":["a"],"metadata":{"user_id":"u"},"tool_choice":{"type":"auto"},"tools":[{"name":"t","input_schema":{}}],"system":"s","extra":{"x":[1,2]}}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"}],}]}`,
	"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\x01\"}]}",
	`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_use","input":{"a":01}}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_use","input":[1,]}]}]} `,
	`{"model":"m","messages":[]} x`,
	`{"model":"m","messages":[],"x":tru}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a\q"}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"ty\qpe":"text"}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text"}]}]`,
	`{"model":"m","messages":[{"role":"user","content":"\u001b[31mred\u001b[0m \u00e9 \ud83d\ude00 \u0000 \uFFFF"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"\ud800"},{"role":"user","content":"\ud83d\u0041"},{"role":"user","content":"\udc00\ud800"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"\ud83d"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"\u12"}]}`,
	`[]`, `"x"`, ``, `{"model":"m"`, ` {"messages" : [ { "role" : "user" , "content" : [ ] } ] } `,
	"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"bad \xff utf-8\"}]}]}",
	`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_use","input":"s","id":"i","name":"n","data":"d","thinking":"t","signature":"g","tool_use_id":"u"}]}]}`,
	`{"model":"m","messages":[],"tools":[]}`,
	`{"model":"m","messages":[],"tools":[{"name":"a","description":"d \"q\" é","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},{"type":"web_search_20250305","name":"web_search","max_uses":5}]}`,
	`{"model":"m","messages":[],"tools":[{"Name":"a"}]}`,
	`{"model":"m","messages":[],"tools":[{"name":"a","name":"b"}]}`,
	`{"model":"m","messages":[],"tools":[{"name":"a","input_schema":null}]}`,
	`{"model":"m","messages":[],"tools":[{"name":5}]}`,
	`{"model":"m","messages":[],"tools":[null]}`,
	`{"model":"m","messages":[],"tools":{}}`,
	`{"model":"m","messages":[],"tools":[{"input_schema":A`,
	`{"model":"m","messages":[],"tools":[{"name":"a","input_schema":{"type":"object"}`,
}

// parseBothWays parses body with the walk and with encoding/json alone.
func parseBothWays(t *testing.T, body []byte) {
	t.Helper()
	fast, fastErr := ParseRequest(body)
	typed, typedErr := decodeRequest(body)
	if (fastErr == nil) != (typedErr == nil) || (fastErr != nil && fastErr.Error() != typedErr.Error()) {
		t.Fatalf("errors differ for %q:\nwalk:  %v\ntyped: %v", body, fastErr, typedErr)
	}
	checkOrder(t, body, fast)
	if !reflect.DeepEqual(fast, typed) {
		t.Fatalf("requests differ for %q:\nwalk:  %+v\ntyped: %+v", body, fast, typed)
	}
	if fast == nil {
		return
	}
	a, errA := fast.MarshalFields()
	b, errB := typed.MarshalFields()
	fast.SetMessages(fast.Messages)
	typed.SetMessages(typed.Messages)
	c, errC := fast.MarshalFields()
	d, errD := typed.MarshalFields()
	if string(a) != string(b) || string(c) != string(d) || (errA == nil) != (errB == nil) || (errC == nil) != (errD == nil) {
		t.Fatalf("bodies differ for %q:\n%s\n%s\n%s\n%s", body, a, b, c, d)
	}
}

// TestDecodeWalkMatchesTyped: every seed, whether the walk decodes it or
// hands it to encoding/json, gives the request and the error encoding/json
// alone gives.
func TestDecodeWalkMatchesTyped(t *testing.T) {
	for _, s := range decodeSeeds {
		parseBothWays(t, []byte(s))
	}
}

// TestDecodeWalkTakesTheCommonShape: the walk itself (not encoding/json)
// decodes the requests clients send, escapes included, and leaves the
// unusual ones to encoding/json.
func TestDecodeWalkTakesTheCommonShape(t *testing.T) {
	r, ok := walkRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"a\"\n","cache_control":{"type":"ephemeral"}},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":true}]}]}`))
	if !ok || !r.Stream || len(r.Messages) != 1 {
		t.Fatalf("walk: ok=%v %+v", ok, r)
	}
	blocks := r.Messages[0].Content.Blocks
	if len(blocks) != 2 || blocks[0].Text != "a\"\n" || !blocks[1].IsError || blocks[1].Content.Blocks[0].Text != "x" {
		t.Fatalf("walk: %+v", blocks)
	}
	r, ok = walkRequest([]byte(`{"messages":[{"role":"user","content":"\u001b[31m\u00e9\ud83d\ude00"}]}`))
	if !ok || r.Messages[0].Content.Blocks[0].Text != "\x1b[31mé😀" {
		t.Fatalf("\\u escapes: ok=%v %+v", ok, r)
	}
	for _, fallback := range []string{`[{"Text":"a"}]`, `[{"text":"\ud800"}]`, `[{"text":null}]`, `[{"text":"a","text":"b"}]`} {
		body := `{"model":"m","messages":[{"role":"user","content":` + fallback + `}]}`
		if _, ok := walkRequest([]byte(body)); ok {
			t.Errorf("%s: walked, want encoding/json", fallback)
		}
	}
}

// FuzzDecodeWalk: for any body, ParseRequest with the walk gives the same
// request, error and passthrough body as with encoding/json alone.
func FuzzDecodeWalk(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { parseBothWays(t, body) })
}
