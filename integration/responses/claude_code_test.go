package responses_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/emit"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

// TestClaudeCodeTurn: a request shaped like a real Claude Code turn (cached
// system blocks, a trailing role:"system" message, a dozen tools one
// deferred and one named past 64 characters, adaptive thinking,
// temperature 1, context_management, output_config, metadata.user_id,
// ?beta=true) reaches the upstream as exactly the Responses request in
// testdata/claude_code.upstream.json, with the upstream's credentials and
// none of the client's; the answer's reasoning, text and call come back
// with the call under the client's tool name.
func TestClaudeCodeTurn(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "claude_code.request.json"))
	if err != nil {
		t.Fatal(err)
	}
	const mcpTool = "mcp__claude_ai_Google_Drive__search_files_in_shared_drive_by_owner_and_date"
	const sentName = "mcp__claude_ai_Google_Drive__search_files_in_shared_dri_96e6f744"
	answer := rt.New("resp_cc", "gpt-5").Reasoning("rs_cc", enc1, []string{"The test expects an empty rest."}, 4).
		Message("msg_cc", "I'll search the drive.", 3).Call("fc_cc", "call_Xy12", sentName, `{"query":`, `"parser spec"}`).
		Completed(rt.Usage(5120, 4096, 64, 20))
	up := upstream(t, 17, answer)
	t.Setenv("THINKGATE_TEST_OPENAI_KEY", "sk-from-env")
	gw := testgw.Start(t, testgw.SlotResponses, "thinkgate responses {\n\tapi_key {env.THINKGATE_TEST_OPENAI_KEY}\n\tsigning_key "+signingKey+
		"\n\tmodel claude-* gpt-5\n}\nreverse_proxy "+up.Addr())

	got := events(t, gw, "/v1/messages?beta=true", string(body),
		"anthropic-beta", "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27",
		"anthropic-dangerous-direct-browser-access", "true", "x-app", "cli", "Accept-Encoding", "br")

	req := up.Last(t)
	if req.Path != "/v1/responses" || req.RawQuery != "" || req.Method != "POST" {
		t.Errorf("upstream got %s %s?%s", req.Method, req.Path, req.RawQuery)
	}
	if h := req.Header; h.Get("Authorization") != "Bearer sk-from-env" || h.Get("X-Api-Key") != "" ||
		h.Get("Anthropic-Version") != "" || h.Get("Anthropic-Beta") != "" || h.Get("Anthropic-Dangerous-Direct-Browser-Access") != "" ||
		strings.Contains(h.Get("Accept-Encoding"), "br") || h.Get("Content-Type") != "application/json" {
		t.Errorf("upstream headers %v", h)
	}
	golden.JSON(t, "claude_code.upstream.json", req.Body)

	thinking := "The test expects an empty rest."
	testgw.Diff(t, "events", got, []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 ` + q(thinking),
		`signature_delta 0 ` + q(signer.Sign(emit.OriginResponses, "rs_cc\n"+enc1, thinking)),
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "I'll search the drive."`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"tool_use","id":"call_Xy12","name":"` + mcpTool + `","input":{}}`,
		`input_json_delta 2 "{\"query\":\"parser spec\"}"`,
		"content_block_stop 2",
		"message_delta tool_use",
		"message_stop",
	})
}
