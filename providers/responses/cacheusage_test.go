package responses

import (
	"bytes"
	"testing"

	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

// The Responses API counts cached input inside input_tokens
// (input_tokens_details.cached_tokens) and reports no cache writes; the
// client gets input_tokens without the cached part and the cached part as
// cache_read_input_tokens, in a stream and in a whole message.
const cachedUsageWant = `{"input_tokens":86,"cache_creation_input_tokens":0,"cache_read_input_tokens":1920,"output_tokens":300}`

func TestCachedUsageStream(t *testing.T) {
	up := rt.New("resp_1", "gpt-5").Message("msg_1", "a", 0).Completed(rt.Usage(2006, 1920, 300, 120)).Bytes()
	out, err := runStream(t, NewTranslator(exchange(t, nil, streamRequest), nil), up, 7)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"stop_reason":"end_turn","stop_sequence":null},"usage":` + cachedUsageWant + `}`; !bytes.Contains(out, []byte(want)) {
		t.Errorf("stream has no %s:\n%s", want, out)
	}
}

func TestCachedUsageMessage(t *testing.T) {
	body := rt.New("resp_1", "gpt-5").Message("msg_1", "a", 0).Response("completed", rt.Usage(2006, 1920, 300, 120))
	out, err := NewTranslator(exchange(t, nil, messageRequest), nil).Message(body)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"usage":` + cachedUsageWant; !bytes.Contains(out, []byte(want)) {
		t.Errorf("message has no %s:\n%s", want, out)
	}
}
