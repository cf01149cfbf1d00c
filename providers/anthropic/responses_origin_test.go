package anthropic

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestResponsesReasoningDropped: history blocks a Responses upstream issued
// (a signed thinking block and a redacted_thinking block whose data is the
// gateway's envelope) never reach Anthropic, which would refuse the whole
// request for a signature it did not issue; Anthropic's own
// redacted_thinking stays.
func TestResponsesReasoningDropped(t *testing.T) {
	thinking := testSigner.Sign(emit.OriginResponses, "rs_1\nenc", "plan")
	redacted := testSigner.Sign(emit.OriginResponses, "rs_2\nenc", "")
	body := `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"` + thinking +
		`"},{"type":"redacted_thinking","data":"` + redacted + `"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}]}`
	want := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}],"model":"m"}`
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
