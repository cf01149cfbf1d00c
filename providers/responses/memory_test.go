package responses

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// signedHistory is a Claude Code–like history of n tool loops whose
// assistant turns hold thinking the gateway signed (from tags, so it goes
// back in tags) and one a Responses upstream issued (a reasoning item).
func signedHistory(n int) []byte {
	type obj = map[string]any
	thinking := strings.Repeat("I should look at the file and then run the tests again. ", 24)
	msgs := []any{obj{"role": "user", "content": "Fix the failing test."}}
	for i := range n {
		id := fmt.Sprintf("toolu_%d", i)
		sig := testSigner.Sign(emit.OriginTags, "", thinking)
		if i%4 == 0 {
			sig = respSig(fmt.Sprintf("rs_%d", i), "enc", thinking)
		}
		msgs = append(msgs,
			obj{"role": "assistant", "content": []any{
				obj{"type": "thinking", "thinking": thinking, "signature": sig},
				obj{"type": "text", "text": "Let me read the file."},
				obj{"type": "tool_use", "id": id, "name": "Read", "input": obj{"path": fmt.Sprintf("f%d.go", i)}},
			}},
			obj{"role": "user", "content": []any{obj{"type": "tool_result", "tool_use_id": id, "content": strings.Repeat("x := 1\n", 40)}}})
	}
	body, _ := json.Marshal(obj{"model": "claude-test", "max_tokens": 1024, "stream": true,
		"tools": []any{obj{"name": "Read", "input_schema": obj{"type": "object"}}}, "messages": msgs})
	return body
}

// TestSignedHistoryCostsItsBytes: the history's signatures are checked
// from the client's bytes (emit.Opener), so converting a history of
// signed thinking allocates little beyond the upstream body. Before, each
// thinking block's text and signature were copied into Go strings and an
// HMAC set up for it, twice per block: twice the body in garbage on a
// Claude Code session, which took the peak past twice the body.
func TestSignedHistoryCostsItsBytes(t *testing.T) {
	body := signedHistory(2000)
	x := exchange(t, nil, string(body))
	out, alloc := providertest.Allocated(t, func() ([]byte, error) {
		out, _, err := ConvertRequest(x, Config{})
		return out, err
	})
	t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
	if !providertest.RaceEnabled && alloc > uint64(len(out))*5/4 {
		t.Errorf("converting %d bytes to %d allocated %d bytes, want at most 1.25 times the upstream body", len(body), len(out), alloc)
	}
	if !strings.Contains(string(out), `"type":"reasoning","id":"rs_0"`) || !strings.Contains(string(out), `<thinking>I should look`) {
		t.Errorf("the history's thinking is not in the upstream body: %.400s", out)
	}
}
