package anthropic

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestSplitMessageThinkingOmitted: with split_tags and thinking.display
// "omitted", thinking split out of an Anthropic upstream's text is a
// thinking block with an empty thinking and the gateway's signature over
// that empty text; the answer text is untouched.
func TestSplitMessageThinkingOmitted(t *testing.T) {
	signer := emit.NewSigner([]byte("k"))
	settings := &providers.Settings{SplitTags: true, Signer: signer}
	req, err := wire.ParseRequest([]byte(`{"model":"m","thinking":{"type":"adaptive","display":"omitted"},"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	x := providers.NewExchange(settings, req, nil, providers.ExchangeOptions{})
	got, err := SplitMessage(x, []byte(`{"id":"msg_1","content":[{"type":"text","text":"<thinking>secret</thinking>Paris."}],"stop_reason":"end_turn"}`))
	if err != nil {
		t.Fatal(err)
	}
	sig := signer.Sign(emit.OriginTags, "", "")
	want := `{"id":"msg_1","content":[{"type":"thinking","thinking":"","signature":"` + sig + `"},{"type":"text","text":"Paris."}],"stop_reason":"end_turn"}`
	if string(got) != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}
}
