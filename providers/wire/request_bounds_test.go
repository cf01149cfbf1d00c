package wire

import (
	"strconv"
	"strings"
	"testing"
)

// toolsRequest is a request with n tiny tools; odd spells the tools
// member with another case, which only encoding/json reads.
func toolsRequest(n int, odd bool) []byte {
	var b strings.Builder
	name := "tools"
	if odd {
		name = "Tools"
	}
	b.WriteString(`{"model":"m","messages":[{"role":"user","content":"x"}],"` + name + `":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"t` + strconv.Itoa(i) + `","input_schema":{}}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// TestMaxTools: a request with more than MaxTools tool definitions gets a
// 400 naming the bound, read either way, however the member is spelled;
// one with MaxTools is read.
func TestMaxTools(t *testing.T) {
	for _, odd := range []bool{false, true} {
		for _, read := range []func([]byte) (*Request, error){ParseRequest, ScanRequest} {
			r, err := read(toolsRequest(MaxTools, odd))
			if err != nil || len(r.Tools) != MaxTools {
				t.Fatalf("odd %v: %d tools: %v", odd, MaxTools, err)
			}
			_, err = read(toolsRequest(MaxTools+1, odd))
			e, ok := err.(*Error)
			if !ok || e.Status != 400 || e.Type != "invalid_request_error" ||
				e.Message != "tools: more than 4096 tools; the gateway takes at most 4096 tool definitions per request" {
				t.Errorf("odd %v: %d tools: %#v", odd, MaxTools+1, err)
			}
		}
	}
}

// TestMaxMessages: a request with more than MaxMessages messages gets a
// 400 naming the bound, read either way; one with MaxMessages is read.
func TestMaxMessages(t *testing.T) {
	build := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"model":"m","messages":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"role":"user","content":"a"}`)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	for _, read := range []func([]byte) (*Request, error){ParseRequest, ScanRequest} {
		if _, err := read(build(MaxMessages)); err != nil {
			t.Fatal(err)
		}
		_, err := read(build(MaxMessages + 1))
		e, ok := err.(*Error)
		if !ok || e.Status != 400 || e.Message != "messages: more than 100000 messages; a request holds at most 100000" {
			t.Errorf("%#v", err)
		}
	}
}
