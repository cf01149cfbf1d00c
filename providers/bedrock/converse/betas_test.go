package converse

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
)

// The client's betas reach Claude as additionalModelRequestFields.anthropic_beta,
// beside its thinking; a model of another family, which refuses fields it
// does not know, gets none.
func TestConvertBetas(t *testing.T) {
	body := `{"model":"` + claude + `","max_tokens":8000,"thinking":{"type":"enabled","budget_tokens":2000},"messages":[{"role":"user","content":"Hi"}]}`
	betas := []string{"interleaved-thinking-2025-05-14", "context-1m-2025-08-07"}
	for _, tc := range []struct{ golden, body string }{
		{"betas_claude", body},
		{"betas_other_family", strings.Replace(body, claude, "deepseek.r1-v1:0", 1)},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			x := exchange(t, testSettings(), "", tc.body)
			out, _, err := ConvertRequest(x, Options{}, betas)
			if err != nil {
				t.Fatal(err)
			}
			golden.JSON(t, "requests/"+tc.golden+".json", out)
		})
	}
}
