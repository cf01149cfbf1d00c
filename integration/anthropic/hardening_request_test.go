package anthropic_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// TestStaleEnvelopeAfterRestart: a gateway started without signing_key has
// a key of its own, so the thinking blocks it signed before a restart no
// longer verify. A Claude Code conversation carrying them goes on: the
// stale blocks are dropped (with thinking off for the tool turn that opened
// with one), and Anthropic, which refuses any signature it did not issue,
// never sees them.
func TestStaleEnvelopeAfterRestart(t *testing.T) {
	before := emit.NewSigner([]byte("the random key of the previous run"))
	stale := before.Sign(emit.OriginTags, "", "Need the weather.")
	reqBody := `{"model":"claude-sonnet-4-5","max_tokens":1024,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[` +
		`{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Need the weather.","signature":"` + stale + `"},{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C"}]}]}`
	want := `{"max_tokens":1024,"messages":[` +
		`{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C"}]}],"model":"claude-sonnet-4-5"}`
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"signature":"tg1`) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `+"`signature`"+` in `+"`thinking`"+` block"}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, messageJSON)
	})
	gw := testgw.Start(t, testgw.SlotAnthropic, fmt.Sprintf("thinkgate anthropic {\n\tsplit_tags\n}\nreverse_proxy %s", up.Addr()))
	res, got := gw.PostRead("/v1/messages", reqBody)
	if res.StatusCode != 200 || got != `{"id":"msg_01Nonstream","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Paris is \u003cb\u003erainy\u003c/b\u003e \u0026 mild."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":9}}` {
		t.Errorf("client got %d %s", res.StatusCode, got)
	}
	if sent := string(up.Last(t).Body); sent != want {
		t.Errorf("upstream body\n%s\nwant\n%s", sent, want)
	}
}
