package emit

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// TestEmitterThinkingOmitted: with thinking.display "omitted" a thinking
// block opens and closes with its signature (covering the empty text the
// client sends back, and the upstream's own signature), with no
// thinking_delta; text is untouched. The collected message carries the
// same block with thinking "".
func TestEmitterThinkingOmitted(t *testing.T) {
	calls := func(em *Emitter) {
		startMessage(em)
		em.ThinkingStart(nil)
		em.Thinking([]byte("secret reasoning"))
		em.Signature(OriginGemini, []byte("gsig"))
		em.ThinkingEnd()
		em.Text([]byte("answer"))
		em.Finish("end_turn", "", endUsage)
	}
	e := NewEmitter(FormThinking, NewSigner(testKey))
	e.SetThinkingDisplay(wire.DisplayOmitted)
	calls(e)
	sig := tsig(OriginGemini, "gsig", "")
	want := "event: message_start\n" +
		`data: {"type":"message_start","message":{"id":"` + testMessageID + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":3,"output_tokens":0}}}` + "\n\n" +
		"event: content_block_start\n" +
		`data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}` + "\n\n" +
		"event: content_block_delta\n" +
		`data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"` + sig + `"}}` + "\n\n" +
		"event: content_block_stop\n" +
		`data: {"type":"content_block_stop","index":0}` + "\n\n" +
		"event: content_block_start\n" +
		`data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}` + "\n\n" +
		"event: content_block_delta\n" +
		`data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"answer"}}` + "\n\n" +
		"event: content_block_stop\n" +
		`data: {"type":"content_block_stop","index":1}` + "\n\n" +
		"event: message_delta\n" +
		`data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":3,"output_tokens":12}}` + "\n\n" +
		"event: message_stop\n" +
		`data: {"type":"message_stop"}` + "\n\n"
	if got := string(e.Events()); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	first := NewEmitter(FormThinking, nil)
	first.SetThinkingDisplay(wire.DisplayOmitted)
	startMessage(first)
	first.ThinkingStart(nil)
	if first.Thinking([]byte("x")); !first.Content {
		t.Error("an omitted thinking block does not count as the first content")
	}
	if _, _, ok := NewSigner(testKey).Open(sig, ""); !ok {
		t.Error("the signature does not verify against the empty thinking the client sends back")
	}

	col := NewCollector(FormThinking, NewSigner(testKey))
	col.SetThinkingDisplay(wire.DisplayOmitted)
	calls(col)
	wantMsg := `{"id":"` + testMessageID + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		`{"type":"thinking","thinking":"","signature":"` + sig + `"},{"type":"text","text":"answer"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":3,"output_tokens":12}}`
	if got := string(col.MessageJSON()); got != wantMsg {
		t.Errorf("message:\n%s\nwant:\n%s", got, wantMsg)
	}
}

// TestEmitterThinkingOmittedTextForm: the text form has no signature to
// keep, so omitted thinking leaves no block at all.
func TestEmitterThinkingOmittedTextForm(t *testing.T) {
	col := NewCollector(FormText, nil)
	col.SetThinkingDisplay(wire.DisplayOmitted)
	startMessage(col)
	col.ThinkingStart(&thinkparse.Meta{})
	col.Thinking([]byte("secret"))
	col.ThinkingEnd()
	col.Text([]byte("answer"))
	col.Finish("end_turn", "", endUsage)
	want := `{"id":"` + testMessageID + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"answer"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":3,"output_tokens":12}}`
	if got := string(col.MessageJSON()); got != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}
}
