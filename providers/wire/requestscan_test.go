package wire

import (
	"reflect"
	"testing"

	"github.com/buger/jsonparser"
	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// scanSeeds add to decodeSeeds what only the scan looks at: the gateway's
// envelope in its places, and image sources.
var scanSeeds = []string{
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"tg1t.Zm9v.bWFj"}]}]}`,
	`{"model":"m","messages":[{"content":[{"signature":"tg1g.Zm9v.bWFj","thinking":"t","type":"thinking"}],"role":"assistant"}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"thinking","thinking":"t","signature":"tg1t.Zm9v.bWFj"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"redacted_thinking","signature":"tg1t.Zm9v.bWFj"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t"},{"type":"thinking","signature":"tg1tx.a"},{"type":"thinking","signature":"EqQBtg1t.a"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1\u0074.Zm9v.bWFj"}]}]}`,
	"{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"signature\":\"tg1\xff.Zm9v.bWFj\"}]}]}",
	`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]},{"role":"assistant","content":"tg1t.a.b"}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]},{"role":"bot","content":"x"}]}`,
	`{"model":"m","messages":[{"content":"x"}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":null,"data":"AAAA","extra":[1]}}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":5}}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"Data":"x"}}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"data":"x","data":"y"}}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":[]}]}]}`,
	"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"data\":\"\xff\"}}]}]}",
	`{"model":"m","system":[{"type":"text","text":"s"},{"type":"thinking","signature":"tg1t.a.b"}],"messages":[]}`,
	`{"model":"m","system":5,"messages":[]}`,
	// Messages the typed walk leaves to encoding/json, which the scan
	// reads itself (scanMessage).
	`{"model":"m","messages":[{"Role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"r\u006fle":"assistant","CONTENT":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"user","role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","role":"user","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","role":null,"content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}],"content":null}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}],"content":"x"}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":null,"content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"us\u0065r","content":"x"},{"role":"a\u0073sistant","content":"y"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"},null]}`,
	`{"model":"m","messages":[{"role":null,"content":"x"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"bot"},{"role":"tool"}]}`,
	`{"model":"m","messages":[{"role":"\ud800","content":"x"}]}`,
	"{\"model\":\"m\",\"messages\":[{\"role\":\"\xffuser\",\"content\":\"x\"}]}",
	`{"model":"m","messages":[{"role":5,"content":"x"}]}`,
	`{"model":"m","messages":[{"role":"bot","content":"x"}],"max_tokens":"x"}`,
	`{"model":"m","messages":[{"role":"bot","content":"x"},{"role":"user","content":5}]}`,
	`{"model":"m","messages":[{"role":"bot","content":"x"}],"x":[}`,
	`{"model":"m","messages":[{"ROLE":"user","rOlE":"assistant","Content":"x","conTent":null}]}`,
	`{"model":"m","messages":[{"role":"user","ro\u017fe":"x","content":"x"}]}`,
	"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"\xffrole\":\"x\",\"content\":\"x\"}]}",
	// Blocks and top-level members read by encoding/json's rules
	// (scanBlock, walker.request with oddMembers), which the scan also
	// reads itself.
	`{"model":"m","messages":[{"role":"assistant","content":[{"Type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"TYPE":"thinking","SIGNATURE":"tg1t.a.b","Thinking":"t"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b","type":"text"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b","signature":null}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"x","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b","signature":"x"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","sign\u0061ture":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","ſignature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thin\u212aing","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":null,"type":"redacted_thinking","Data":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQB"},{"type":"thinking","signature":"EqQB","signature":"EqQC"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":null,"signature":"EqQB"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","text":null},{"type":"text","Text":"a","text":"b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_result","content":null},{"type":"tool_result","Content":[{"type":"text","text":"x"}]},{"type":"tool_result","content":"a","content":[{"Text":"y","type":"text"}]}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"image","source":null},{"type":"image","Source":{"DATA":"x","Type":"base64","media_Type":null}}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"image","source":{"type":"base64","data":"a"},"source":{"media_type":"image/png"}},{"type":"image","source":{"type":"base64"},"source":"s"},{"type":"image","source":"s","source":{"url":"u"}}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"image","source":{"data":"a","data":"b","DaTa":null,"d\u0061ta":"c","x":[1]}}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_result","is_error":null},{"type":"tool_result","IS_ERROR":true},{"type":"tool_result","is_error":true,"is_error":false}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","input":null},{"type":"tool_use","Input":{}},{"type":"tool_use","input":{},"input":[1]}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","ID":"a","id":"b","Name":"n","tool_use_ID":"t"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"Type":5}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","TEXT":5}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_result","Is_Error":"x"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"image","Source":5}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"image","source":{"Url":5}}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"Type":"\ud800"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","text":"a","text":"b",}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","Text":[}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"thinking","Signature":"tg1t.a.b"}]}]}`,
	`{"Model":"m","messages":[]}`,
	`{"model":"a","model":"b","messages":[]}`,
	`{"model":"a","model":null,"messages":[]}`,
	`{"mod\u0065l":"a","messages":[]}`,
	`{"MESSAGES":[{"role":"user","content":"x"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"}],"Messages":null}`,
	`{"model":"m","messages":null,"messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"}],"messages":[{"role":"assistant","content":"y"},{"role":"user","content":"z"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"user","content":"z"}],"messages":[{"content":"y"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"}],"messages":null}`,
	`{"model":"m","messages":[{"role":"bot"}],"messages":null,"messages":[{"role":"user","content":"x"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"}],"messages":null,"Messages":[{"role":"bot"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x"}],"stream":true,"stream":false}`,
	`{"model":"m","messages":[{"role":"user","content":"x"}],"Stream":true,"stream":null}`,
	`{"model":"m","messages":[{"role":"user","content":"x"}],"ſtream":true}`,
	`{"model":"m","messages":[],"system":"a","system":null}`,
	`{"model":"m","messages":[],"SYSTEM":[{"type":"text","text":"s"}]}`,
	`{"model":"m","messages":[],"system":null,"System":[{"Type":"thinking","signature":"tg1t.a.b"}]}`,
	`{"model":"m","messages":[],"max_tokens":1,"max_tokens":null,"Max_Tokens":5,"temperature":1,"temperature":null,"Top_P":0.5,"top_k":1,"top_k":2}`,
	`{"model":"m","messages":[],"metadata":{"user_id":"a"},"Metadata":{},"stop_sequences":["a","b"],"stop_sequences":["c"]}`,
	`{"model":"m","messages":[],"tool_choice":{"type":"tool","name":"x"},"Tool_Choice":{"type":"any"}}`,
	`{"model":"m","messages":[],"thinking":{"type":"enabled","budget_tokens":5},"thinking":null}`,
	`{"model":"m","messages":[],"Thinking":true,"thinking":{"type":"adaptive"}}`,
	`{"model":"m","messages":[],"tools":[{"name":"a"}],"tools":[{"name":"b"},{"name":"c"}]}`,
	`{"model":"m","messages":[],"tools":[{"name":"a"},{"name":"b"}],"tools":[{"name":"c"}]}`,
	`{"model":"m","messages":[],"tools":[{"name":"a"}],"tools":null}`,
	`{"model":"m","messages":[],"tools":[{"name":"a"}],"TOOLS":[]}`,
	`{"model":"m","messages":[],"x":1,"x":2,"X":null}`,
	`{"model":"m","messages":[],"Model":5}`,
	`{"model":"m","messages":[],"Stream":"x"}`,
	`{"model":"m","messages":[],"stream":true,"stream":1}`,
	`{"model":"m","messages":[],"tools":null,"Tools":5}`,
	`{"model":"m","messages":[],"System":5}`,
	`{"model":"m","messages":[],"Messages":5}`,
	`{"model":"m","messages":[],"Thinking":{"type":"x"}}`,
	`{"model":"m","messages":[],"Model":"a",}`,
	`{"model":n000}`,
	`{"model":"\ud800x\udc00","messages":[]}`,
	"{\"model\":\"a\xffb\",\"messages\":[]}",
	`{"model":"m","messages":[{"role":"user","content":[{"type":"thinking","signature":"\udc00","Data":"\ud83d\ude00"}]}]}`,
	`{"model":"m","messages":[],"tools":[{"Name":"t","name":null,"DESCRIPTION":"d","input_schema":null},{"n\u0061me":"\udc00","type":"x","type":"custom"}]}`,
	`{"model":"m","messages":[],"tools":[{"name":"t","input_schema":{},"INPUT_SCHEMA":[1]},{"Input_Schema":null,"ſchema":1}]}`,
	`{"model":"m","messages":[],"tools":[{"Name":5}]}`,
	`{"model":"m","messages":[],"tools":[{"name":"a","name":"b"},null]}`,
	`{"model":"m","messages":[],"stream":nul}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":nul}]}]}`,
	"{\"model\":\"m\",\"messages\":[],\"mod\xffel\":1,\"mod\xffel\":2}",
}

// scanBothWays checks ScanRequest against ParseRequest for body: the same
// error, the same findings, and after Complete the same request.
func scanBothWays(t *testing.T, body []byte) {
	t.Helper()
	scanned, scanErr := ScanRequest(body)
	parsed, parseErr := ParseRequest(body)
	if (scanErr == nil) != (parseErr == nil) || (scanErr != nil && scanErr.Error() != parseErr.Error()) {
		t.Fatalf("errors differ for %q:\nscan:  %v\nparse: %v", body, scanErr, parseErr)
	}
	if parsed == nil {
		return
	}
	if scanned.Model != parsed.Model || scanned.Stream != parsed.Stream ||
		!reflect.DeepEqual(scanned.Thinking, parsed.Thinking) || scanned.GatewayThinking != parsed.GatewayThinking ||
		!reflect.DeepEqual(scanned.Fields, parsed.Fields) || !reflect.DeepEqual(scanned.Tools, parsed.Tools) {
		t.Fatalf("findings differ for %q:\nscan:  %+v\nparse: %+v", body, scanned, parsed)
	}
	if err := scanned.Complete(); err != nil {
		t.Fatalf("Complete %q: %v", body, err)
	}
	checkOrder(t, body, scanned)
	checkOrder(t, body, parsed)
	if scanned.Scanned() || !reflect.DeepEqual(scanned, parsed) {
		t.Fatalf("completed request differs for %q:\nscan:  %+v\nparse: %+v", body, scanned, parsed)
	}
}

// TestScanMatchesParse: every seed gives ScanRequest's findings and error
// as ParseRequest gives them, and Complete the rest.
func TestScanMatchesParse(t *testing.T) {
	for _, s := range append(append([]string(nil), decodeSeeds...), scanSeeds...) {
		scanBothWays(t, []byte(s))
	}
}

// TestScanFindsGatewayThinking: the scan itself (no full parse) reads the
// common shapes, finds the gateway's envelope only on an assistant turn's
// thinking, and leaves the history undecoded.
func TestScanFindsGatewayThinking(t *testing.T) {
	for _, c := range []struct {
		body   string
		signed bool
	}{
		{scanSeeds[0], true},
		{scanSeeds[1], true},
		{scanSeeds[2], false}, // a user turn
		{scanSeeds[3], false}, // not a thinking block
		{scanSeeds[4], false}, // not the envelope's shape
		{scanSeeds[5], true},  // escaped
		{scanSeeds[7], false}, // inside a tool_result, or text
		{scanSeeds[10], false},
		{scanSeeds[16], false}, // the system prompt is not history
		{scanSeeds[18], true},  // a name in another case
		{scanSeeds[19], true},  // a name with escapes
		{scanSeeds[20], true},  // the last role is the message's
		{scanSeeds[21], false}, // and it is a user's
		{scanSeeds[22], true},  // a null role leaves it as it was
		{scanSeeds[23], false}, // a null content empties it
		{scanSeeds[24], false}, // the last content is the message's
		{scanSeeds[25], true},
	} {
		r, ok := scanRequest([]byte(c.body))
		if !ok {
			t.Errorf("%s: scan gave up", c.body)
			continue
		}
		if r.GatewayThinking != c.signed || r.Messages != nil || !r.Scanned() {
			t.Errorf("%s: GatewayThinking=%v Messages=%v, want %v and none decoded", c.body, r.GatewayThinking, r.Messages, c.signed)
		}
	}
	// A role checkRequest rejects is found by the scan, its error kept
	// until the rest of the body is checked.
	for _, s := range []string{scanSeeds[8], scanSeeds[9], scanSeeds[27], scanSeeds[28], scanSeeds[29], scanSeeds[30], scanSeeds[31]} {
		if r, ok := scanRequest([]byte(s)); !ok || r.scan.badRole == nil {
			t.Errorf("%s: scan gave up or took the role", s)
		}
	}
	for _, s := range []string{scanSeeds[11], scanSeeds[32], scanSeeds[33], scanSeeds[34], scanSeeds[35]} {
		if _, ok := scanRequest([]byte(s)); ok {
			t.Errorf("%s: scanned, want ParseRequest", s)
		}
	}
}

// FuzzScanRequest: for any body, ScanRequest agrees with ParseRequest.
func FuzzScanRequest(f *testing.F) {
	for _, s := range append(append([]string(nil), decodeSeeds...), scanSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { scanBothWays(t, body) })
}

// checkOrder checks a request's FieldOrder against the body's own names
// and clears it, so that requests decoded with and without it compare
// equal.
func checkOrder(t *testing.T, body []byte, r *Request) {
	t.Helper()
	if r == nil || r.order == nil {
		return
	}
	var names []string
	err := jsonbytes.ScanObject(body, func(key, _ []byte, _ jsonparser.ValueType, _ int) error {
		names = append(names, string(key)) // the walk records plain names only
		return nil
	})
	if err != nil || !reflect.DeepEqual(names, r.order) {
		t.Fatalf("FieldOrder of %q = %q, the body has %q (%v)", body, r.order, names, err)
	}
	r.order = nil
}

// TestLastUserMessageSize: the scan measures the last message's bytes as the
// client sent them; a decoded request does not know them.
func TestLastUserMessageSize(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}, {"role":"assistant","content":"yo"} ,{"content":[{"type":"text","text":"go on"}],"role":"user"} ]}`)
	last := `{"content":[{"type":"text","text":"go on"}],"role":"user"}`
	req, err := ScanRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if got := req.LastUserMessageSize(); got != len(last) {
		t.Errorf("LastUserMessageSize() = %d, want %d", got, len(last))
	}
	for _, body := range []string{
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"},{"content":"be brief","role":"system"}]}`,
	} {
		req, err := ScanRequest([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := req.LastUserMessageSize(); got != -1 {
			t.Errorf("%s: LastUserMessageSize() = %d, want -1 (the last message is not the user's)", body, got)
		}
	}
	if err := req.Complete(); err != nil {
		t.Fatal(err)
	}
	if got := req.LastUserMessageSize(); got != -1 {
		t.Errorf("LastUserMessageSize() after Complete = %d, want -1", got)
	}
	parsed, err := ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if got := parsed.LastUserMessageSize(); got != -1 {
		t.Errorf("LastUserMessageSize() of a parsed request = %d, want -1", got)
	}
}

// TestScanReadsOddMembers: a block member or a top-level member in
// another case, with escapes, repeated or null is read by the scan itself
// (no full parse), by encoding/json's rules: the last of a repeated member,
// a null that leaves a string as it was. Two messages arrays, merged
// element by element, and a value of another type are left to
// ParseRequest.
func TestScanReadsOddMembers(t *testing.T) {
	signed := func(blocks string) string {
		return `{"model":"m","messages":[{"role":"assistant","content":[` + blocks + `]}]}`
	}
	for _, c := range []struct {
		body   string
		signed bool
	}{
		{signed(`{"Type":"thinking","signature":"tg1t.a.b"}`), true},
		{signed(`{"TYPE":"thinking","SIGNATURE":"tg1t.a.b"}`), true},
		{signed(`{"type":"thinking","sign\u0061ture":"tg1t.a.b"}`), true},
		{signed(`{"type":"thinking","ſignature":"tg1t.a.b"}`), true},
		{signed(`{"type":"thinking","thin\u212aing":"t","signature":"tg1t.a.b"}`), true},
		{signed(`{"type":"thin\u212aing","signature":"tg1t.a.b"}`), false}, // a value is not folded
		{signed(`{"type":"text","type":"thinking","signature":"tg1t.a.b"}`), true},
		{signed(`{"type":"thinking","signature":"tg1t.a.b","type":"text"}`), false},
		{signed(`{"type":"thinking","signature":"tg1t.a.b","signature":null}`), true},
		{signed(`{"type":"thinking","signature":"tg1t.a.b","signature":"x"}`), false},
		{signed(`{"type":null,"type":"redacted_thinking","Data":"tg1t.a.b"}`), true},
		{signed(`{"type":"image","Source":{"DATA":"x","Type":"base64","media_Type":null}},{"type":"thinking","signature":"tg1t.a.b"}`), true},
		{signed(`{"type":"tool_result","Content":null,"IS_ERROR":null,"Input":null}`), false},
		{`{"model":"m","messages":null,"Messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`, true},
		{`{"MODEL":"m","model":null,"Stream":true,"x":1,"x":2,"messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`, true},
		{`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]}],"messages":null,"messages":[{"role":"user","content":"x"}]}`, false},
		// Strings the walk leaves to encoding/json, read as it reads them.
		{scanSeeds[6], false},
		{signed("{\"type\":\"thinking\",\"signature\":\"tg1t.a.b\",\"thinking\":\"\xff\"},{\"type\":\"text\xff\"}"), true},
		{signed(`{"type":"thinking","signature":"tg1t.a.b\ud800"}`), true},
		{"{\"model\":\"\xff\\ud800\",\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"signature\":\"tg1t.a.b\"}]}]}", true},
		{`{"model":"m","tools":[{"Name":"t","name":null,"DESCRIPTION":"d","input_schema":null},{"n\u0061me":"\udc00","type":"x","type":"custom"}],"messages":[{"role":"assistant","content":[{"type":"thinking","signature":"tg1t.a.b"}]}]}`, true},
	} {
		r, ok := scanRequest([]byte(c.body))
		if !ok {
			t.Errorf("%s: scan gave up", c.body)
			continue
		}
		if r.GatewayThinking != c.signed || r.Messages != nil || !r.Scanned() {
			t.Errorf("%s: GatewayThinking=%v Messages=%v, want %v and none decoded", c.body, r.GatewayThinking, r.Messages, c.signed)
		}
		scanBothWays(t, []byte(c.body))
	}
	// A block with an odd member that a passthrough's walk of the history
	// (azure's cleaner, by a block's first member named exactly type) may
	// take for thinking is no surely signed one: the walk decides it
	// (SignedHistory). One it takes for no thinking it keeps.
	for s, want := range map[string]bool{
		signed(`{"type":"thinking","Signature":"EqQB"}`):                            false,
		signed(`{"type":"thinking","signature":"EqQB","signature":"EqQC"}`):         false,
		signed(`{"type":"thinking","thinking":null,"signature":"EqQB"}`):            false,
		signed(`{"Type":"text","type":"redacted_thinking","text":null}`):            false,
		signed(`{"Type":"text","text":null,"text":"a"},{"type":"text","text":"b"}`): true,
		signed(`{"Type":"thinking","thinking":"t"}`):                                true,
		signed(`{"type":"text","TYPE":"thinking","Signature":""}`):                  true,
	} {
		if r, ok := scanRequest([]byte(s)); !ok || r.SignedHistory() != want {
			t.Errorf("%s: scanned %v, SignedHistory %v, want %v", s, ok, !want, want)
		}
	}
	if r, ok := scanRequest([]byte(signed(`{"type":"thinking","thinking":"t","signature":"EqQB"}`))); !ok || !r.SignedHistory() {
		t.Errorf("a plain signed block: SignedHistory false")
	}
	// The messages named in another case are no messages to checkRequest.
	if _, err := ScanRequest([]byte(`{"model":"m","Messages":[{"role":"user","content":"x"}]}`)); err == nil || err.Error() != InvalidRequest("messages: Field required").Error() {
		t.Errorf("Messages: %v, want messages: Field required", err)
	}
	for _, s := range []string{
		signed(`{"Type":5}`),
		signed(`{"type":"image","source":{"Url":5}}`),
		`{"model":"m","messages":[],"Stream":"x"}`,
	} {
		if _, ok := scanRequest([]byte(s)); ok {
			t.Errorf("%s: scanned, want ParseRequest", s)
		}
	}
}
