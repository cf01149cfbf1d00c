package wire_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestScanMemoryOnOddMessages: a message the typed walk leaves to
// encoding/json (a member name in another case or with escapes, a
// repeated or null member, a null message, a role missing or not one
// checkRequest takes) costs the scan no more than the body, however many
// tiny blocks follow it: a 4 MiB tiny_blocks body with one such message
// allocates under 2× its size (a full typed parse of it, ~60×).
func TestScanMemoryOnOddMessages(t *testing.T) {
	base := requestshapes.TinyBlocks(4 << 20)
	const turn = `{"role":"user","content":[`
	if !bytes.Contains(base, []byte(turn)) {
		t.Fatalf("tiny_blocks no longer starts its turn with %s", turn)
	}
	for _, c := range []struct {
		name, turn string
		err        string // ParseRequest's, "" for none
	}{
		{"cased name", `{"Role":"user","content":[`, ""},
		{"escaped name", `{"r\u006fle":"user","CONTENT":[`, ""},
		{"escaped role", `{"role":"us\u0065r","content":[`, ""},
		{"repeated role", `{"role":"assistant","role":"user","content":[`, ""},
		{"null role", `{"role":"user","role":null,"content":[`, ""},
		{"null content", `{"role":"user","content":null,"content":[`, ""},
		{"repeated content", `{"role":"user","content":"x","content":[`, ""},
		{"missing role", `{"content":[`, `messages.0.role: must be "user" or "assistant", got ""`},
		{"other role", `{"role":"bot","content":[`, `messages.0.role: must be "user" or "assistant", got "bot"`},
		{"null message", `null,{"role":"user","content":[`, `messages.0.role: must be "user" or "assistant", got ""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := bytes.Replace(base, []byte(turn), []byte(c.turn), 1)
			var req *wire.Request
			var err error
			allocated := providertest.AllocatedBy(func() { req, err = wire.ScanRequest(body) })
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("ScanRequest: %v, want error %q", err, c.err)
			}
			ratio := float64(allocated) / float64(len(body))
			t.Logf("%d bytes allocated for a %d-byte body (%.3f×)", allocated, len(body), ratio)
			if ratio > 2 {
				t.Errorf("ScanRequest allocated %d bytes for a %d-byte body (%.1f×), want at most 2×", allocated, len(body), ratio)
			}
			if err == nil && (!req.Scanned() || req.MessageCount() != 1) {
				t.Errorf("ScanRequest decoded the history (Scanned=%v, %d messages)", req.Scanned(), req.MessageCount())
			}
		})
	}
}

// TestScanMemoryOnOddMembers: a block member or a top-level member
// encoding/json reads otherwise than by its first exact name (another
// case, escapes, repeated, null) costs the scan no more than the body: a
// 4 MiB tiny_blocks body with such a member allocates under 2× its size
// (the full typed parse it fell back to, ~27×).
func TestScanMemoryOnOddMembers(t *testing.T) {
	base := requestshapes.TinyBlocks(4 << 20)
	const block, head = `{"type":"text","text":"a"}`, `{"model":`
	if !bytes.Contains(base, []byte(block)) || !bytes.HasPrefix(base, []byte(head)) {
		t.Fatalf("tiny_blocks no longer starts with %s or holds %s", head, block)
	}
	for _, c := range []struct {
		name, old, new string
		all            bool // every block, else the first
	}{
		{"block member in another case", block, `{"Type":"text","TEXT":"a"}`, true},
		{"block member with escapes", block, `{"type":"text","t\u0065xt":"a"}`, false},
		{"repeated block member", block, `{"type":"text","text":"a","text":"b"}`, false},
		{"null block member", block, `{"type":"text","text":"a","signature":null}`, true},
		{"odd source member", block, `{"type":"image","source":{"Type":"base64","data":"x","data":null}}`, false},
		{"top-level member in another case", head, `{"MAX_TOKENS":1,"model":`, false},
		{"repeated top-level member", head, `{"model":"x","stream":false,"model":`, false},
		{"null top-level member", head, `{"system":null,"temperature":null,"model":`, false},
		{"odd tool member", head, `{"tools":[{"Name":"t","name":null,"input_schema":{}}],"model":`, false},
		{"model with a lone surrogate", head, `{"model":"\ud800",` + "\"model\":\"x\xff\",\"model\":", false},
		{"block type with invalid UTF-8", block, "{\"type\":\"text\xff\",\"text\":\"a\"}", true},
		{"signature with a lone surrogate", block, `{"type":"thinking","thinking":"a","signature":"\udc00"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 1
			if c.all {
				n = -1
			}
			body := bytes.Replace(base, []byte(c.old), []byte(c.new), n)
			var req *wire.Request
			var err error
			allocated := providertest.AllocatedBy(func() { req, err = wire.ScanRequest(body) })
			if err != nil {
				t.Fatalf("ScanRequest: %v", err)
			}
			ratio := float64(allocated) / float64(len(body))
			t.Logf("%d bytes allocated for a %d-byte body (%.3f×)", allocated, len(body), ratio)
			if ratio > 2 {
				t.Errorf("ScanRequest allocated %d bytes for a %d-byte body (%.1f×), want at most 2×", allocated, len(body), ratio)
			}
			if !req.Scanned() || req.MessageCount() != 1 {
				t.Errorf("ScanRequest decoded the history (Scanned=%v, %d messages)", req.Scanned(), req.MessageCount())
			}
		})
	}
	t.Run("odd_members shape", func(t *testing.T) {
		body := requestshapes.OddMembers(4 << 20)
		var req *wire.Request
		var err error
		allocated := providertest.AllocatedBy(func() { req, err = wire.ScanRequest(body) })
		if err != nil || !req.Scanned() || req.Model != "claude-sonnet-4-5" || req.Fields["Max_Tokens"] == nil {
			t.Fatalf("ScanRequest: %v, %+v", err, req)
		}
		if allocated > uint64(len(body))*2 {
			t.Errorf("ScanRequest allocated %d bytes for a %d-byte body, want at most 2×", allocated, len(body))
		}
	})
}
