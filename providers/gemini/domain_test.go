package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// splitToolID returns a gateway tool_use id's parts: random base, MAC and
// payload (base64url).
func splitToolID(t *testing.T, id string) (base, mac, payload64 string) {
	t.Helper()
	if len(id) < toolIDRandom+len(toolIDMarker)+toolIDMACLen || id[toolIDRandom:toolIDRandom+len(toolIDMarker)] != toolIDMarker {
		t.Fatalf("not a carrying id: %q", id)
	}
	rest := id[toolIDRandom+len(toolIDMarker):]
	return id[:toolIDRandom], rest[:toolIDMACLen], rest[toolIDMACLen:]
}

// TestToolIDIsNotAThinkingSignature: the MAC inside an issued tool_use id,
// rearranged as a thinking block's envelope (the id's random part as the
// thinking, its payload as the foreign signature), does not verify, so it
// cannot smuggle a thought with a chosen thoughtSignature to Gemini.
func TestToolIDIsNotAThinkingSignature(t *testing.T) {
	s := testSettings()
	id := encodeToolID(s.Signer, []byte("U0lHTkFUVVJF"), []byte("call-1"))
	base, mac, payload64 := splitToolID(t, id)
	forged := "tg1" + string(emit.OriginGemini) + "." + payload64 + "." + mac
	if _, _, ok := s.Signer.Open(forged, base); ok {
		t.Fatalf("tool id %q verifies as the thinking signature %q", id, forged)
	}

	// Through the converter: the forged thought is dropped; the tool_use
	// keeps its own signature.
	history := map[string]any{
		"model": "gemini-2.5-flash", "max_tokens": 10,
		"messages": []any{
			map[string]any{"role": "user", "content": "q"},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": base, "signature": forged},
				map[string]any{"type": "tool_use", "id": id, "name": "f", "input": map[string]any{}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"},
			}},
		},
	}
	body, _ := json.Marshal(history)
	out, err := rewrite(t, New(Config{APIKey: "k"}), exchange(t, s, string(body)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"model","parts":[{"functionCall":{"id":"call-1","name":"f","args":{}},"thoughtSignature":"U0lHTkFUVVJF"}]}`
	if !strings.Contains(string(out.Body), want) || strings.Contains(string(out.Body), `"thought":true`) {
		t.Errorf("upstream body %s\nwant the model turn %s and no thought", out.Body, want)
	}
}

// TestThinkingSignatureIsNotAToolID: a thinking envelope the gateway issued
// (origin Gemini), rearranged as a tool_use id, carries nothing.
func TestThinkingSignatureIsNotAToolID(t *testing.T) {
	s := emit.NewSigner([]byte(testKey))
	base := providers.NewID(toolIDPrefix)
	payload := "\x00\x03abccall"
	env := s.Sign(emit.OriginGemini, payload, base)
	parts := strings.Split(env, ".")
	id := base + toolIDMarker + parts[2] + parts[1]
	if sig, callID, ok := decodeToolID(s, id); ok {
		t.Fatalf("thinking signature %q decodes as tool id %q: sig %q call %q", env, id, sig, callID)
	}
	// The same payload issued as a tool id does decode.
	if sig, callID, ok := decodeToolID(s, encodeToolID(s, []byte("abc"), []byte("call"))); !ok || sig != "abc" || callID != "call" {
		t.Fatalf("issued id: %q %q %v", sig, callID, ok)
	}
	// Thinking signatures are in the key's own domain: one computed without
	// any domain still verifies.
	if _, _, ok := s.Open(env, base); !ok {
		t.Fatal("thinking signature no longer verifies")
	}
}
