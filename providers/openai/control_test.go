package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestRawControlCharacterFailsStream: a chunk whose string holds a raw
// control character is not JSON; the stream fails on it as on any
// malformed chunk, after the text that came before, however it is split.
func TestRawControlCharacterFailsStream(t *testing.T) {
	upstream := openaitest.New().Delta(`{"content":"Hi"}`).Delta("{\"content\":\"a\tb\"}").Finish("stop").Done().Bytes()
	for _, n := range ssetest.WriteSizes {
		x := exchange(t, nil, streamRequest)
		out, err := runStream(t, NewTranslator(x, nil, 0), upstream, n)
		e := wire.AsError(err)
		if e == nil || e.Status != 502 || e.Type != "api_error" || !strings.HasPrefix(e.Message, "malformed upstream response: chunk is not valid JSON: ") {
			t.Fatalf("writes of %d: error %v", n, err)
		}
		got, _ := summary(t, out)
		msg, _ := json.Marshal(e.Message)
		diff(t, "events", got, ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "Hi"), line(`error {"type":"api_error","message":`+string(msg)+`}`)))
	}
}
