package providers

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
	for _, s := range []string{scanSeeds[6], scanSeeds[11], scanSeeds[12], scanSeeds[32], scanSeeds[33], scanSeeds[34], scanSeeds[35]} {
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
