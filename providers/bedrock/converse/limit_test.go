package converse

import (
	"errors"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// blocksRequest is a request of n one-letter text blocks in one user
// message, padded to pad bytes at the least.
func blocksRequest(n, pad int) string {
	blocks := strings.TrimSuffix(strings.Repeat(`{"type":"text","text":"a"},`, n), ",")
	body := `{"model":"` + claude + `","max_tokens":10,"messages":[{"role":"user","content":[` + blocks + `]}]`
	if short := pad - len(body) - len(`,"metadata":{"user_id":""}}`); short > 0 {
		body += `,"metadata":{"user_id":"` + strings.Repeat("x", short) + `"}`
	}
	return body + "}"
}

// TestCheckBlocks: a request with more content blocks and tools than
// BlocksFree plus one per BytesPerBlock bytes of body gets a 413 naming
// the bound, before its history is decoded; one at the bound converts.
func TestCheckBlocks(t *testing.T) {
	const size = 1 << 20
	limit := BlocksFree + size/BytesPerBlock
	// A system block and a tool count too.
	at := strings.Replace(blocksRequest(limit-2, size), `"messages"`, `"system":"s","tools":[{"name":"f","input_schema":{"type":"object"}}],"messages"`, 1)
	at = at[:len(at)-len(`"}}`)-(len(at)-size)] + `"}}`
	if len(at) != size {
		t.Fatalf("body of %d bytes", len(at))
	}
	x := exchange(t, testSettings(), "", at)
	if err := CheckBlocks(x); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	if _, _, err := ConvertRequest(x, Options{}, nil); err != nil {
		t.Fatal(err)
	}

	over := strings.Replace(at, `"content":[`, `"content":[{"type":"text","text":"b"},`, 1)
	over = over[:len(over)-len(`"}}`)-(len(over)-size)] + `"}}`
	req, err := providers.ScanRequest([]byte(over))
	if err != nil {
		t.Fatal(err)
	}
	x = providers.NewExchange(testSettings(), req, []byte(over), providers.ExchangeOptions{})
	err = CheckBlocks(x)
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Status != 413 || pe.Type != "request_too_large" ||
		pe.Message != "request has more than 3048 content blocks and tools, the most Bedrock's Converse conversion takes for a body of 1048576 bytes (1000, and one per 512 bytes of body)" {
		t.Fatalf("over the bound: %#v", err)
	}
	if !req.Scanned() {
		t.Error("the history was decoded")
	}

	// A tool_result's own blocks count, and a string content is one block.
	nested := `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[` +
		strings.TrimSuffix(strings.Repeat(`{"type":"text","text":"a"},`, BlocksFree+100), ",") + `]}]}]}`
	if err := CheckBlocks(exchange(t, testSettings(), "", nested)); !errors.As(err, &pe) || pe.Status != 413 {
		t.Fatalf("nested blocks: %v", err)
	}
}
