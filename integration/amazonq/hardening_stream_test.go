package amazonq_test

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestHardeningLoneSurrogate: a lone surrogate escape in an
// assistantResponseEvent is U+FFFD, as encoding/json has it, and the
// escapes beside it decode; the stream no longer fails with "bad string".
func TestHardeningLoneSurrogate(t *testing.T) {
	up := upstream(t, join(
		event(t, "assistantResponseEvent", `{"content":"a\ud800b\n<thinking>t\udc00"}`),
		event(t, "assistantResponseEvent", `{"content":"</thinking>\ud83d\ude00 ok"}`),
		metadata(t, 5, 3),
	), 7)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	msg, _ := gw.Stream(userParams())
	if len(msg.Content) != 3 || msg.Content[0].Text != "a\uFFFDb\n" || msg.Content[1].Thinking != "t\uFFFD" || msg.Content[2].Text != "😀 ok" {
		t.Errorf("SDK message: %s", msg.RawJSON())
	}
}
