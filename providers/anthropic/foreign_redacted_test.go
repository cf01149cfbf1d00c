package anthropic

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestForeignRedactedDropped: a redacted_thinking block whose data is the
// gateway's envelope wraps another upstream's encrypted reasoning
// (OpenRouter's); Anthropic would refuse the request for it, so it is
// dropped. Anthropic's own redacted_thinking stays.
func TestForeignRedactedDropped(t *testing.T) {
	data := testSigner.Sign(emit.OriginOpenRouter, `{"type":"reasoning.encrypted","data":"gAAAA"}`, "")
	body := `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"` + data + `"},` +
		`{"type":"redacted_thinking","data":"EmwKAhgBEgy3"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}]}`
	want := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}],"model":"m"}`
	req, err := wire.ParseRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	got, err := RewriteBody(providers.NewExchange(&providers.Settings{Signer: testSigner}, req, []byte(body), providers.ExchangeOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
