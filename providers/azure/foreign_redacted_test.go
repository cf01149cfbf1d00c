package azure

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers/emit"
)

// TestCleanForeignRedacted: a redacted_thinking block whose data is the
// gateway's envelope (another upstream's encrypted reasoning) never reaches
// Azure; Anthropic's own stays.
func TestCleanForeignRedacted(t *testing.T) {
	data := emit.NewSigner([]byte("k")).Sign(emit.OriginOpenRouter, `{"type":"reasoning.encrypted","data":"gAAAA"}`, "")
	in := `{"model":"m","messages":[{"role":"assistant","content":[{"type":"redacted_thinking","data":"` + data + `"},{"type":"redacted_thinking","data":"EmwK"},{"type":"text","text":"a"}]}]}`
	want := `{"model":"m","messages":[{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwK"},{"type":"text","text":"a"}]}]}`
	got, ch, err := New(Config{}).Clean(exchange(t, testSettings(), []byte(in)))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want || ch.Redacted != 1 {
		t.Errorf("got  %s (%d dropped)\nwant %s", got, ch.Redacted, want)
	}
}
