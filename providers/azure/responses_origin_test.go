package azure

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// TestResponsesReasoningDropped: a redacted_thinking block whose data is
// the gateway's envelope (a Responses reasoning item) never reaches Azure;
// Anthropic's own redacted_thinking stays.
func TestResponsesReasoningDropped(t *testing.T) {
	redacted := providers.NewSigner([]byte(testSigningKey)).Sign(providers.OriginResponses, "rs_2\nenc", "")
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"` + redacted +
		`"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}]}`)
	got, ch, err := New(Config{}).Clean(exchange(t, testSettings(), body))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}]}`
	if string(got) != want || ch.Redacted != 1 {
		t.Errorf("changes %+v\ngot  %s\nwant %s", ch, got, want)
	}
}
