package vertex

import (
	"net/http"
	"strings"

	"github.com/buger/jsonparser"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/gemini"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// AnthropicVersion is the anthropic_version Vertex AI requires in a Claude
// request's body.
const AnthropicVersion = "vertex-2023-10-16"

// countTokensModel stands in the path for count_tokens, whose model is in
// the body.
const countTokensModel = "count-tokens"

// rewriteClaude sends the request as the anthropic provider would, but for
// Vertex's differences: the model moves from the body to the path (it
// stays in count_tokens' body), anthropic_version joins the body, and the
// betas Vertex refuses leave anthropic-beta.
func (p *Provider) rewriteClaude(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	model, err := ClaudeModelName(x.UpstreamModel)
	if err != nil {
		return nil, err
	}
	// RewriteBody sets the upstream model and unsigns the gateway's
	// thinking in the request's fields; the fields are then written again
	// with Vertex's changes.
	if _, err := anthropic.RewriteBody(x); err != nil {
		return nil, err
	}
	req := x.Request
	// The client's member may be spelt in any letter case (encoding/json
	// matched it): it goes, and count_tokens gets "model" as Vertex reads it.
	for k := range req.Fields {
		if strings.EqualFold(k, "model") {
			delete(req.Fields, k)
		}
	}
	method := ":rawPredict"
	switch {
	case x.CountTokens:
		model = countTokensModel
		if err := req.SetField("model", x.UpstreamModel); err != nil {
			return nil, err
		}
	case x.Streaming:
		method = ":streamRawPredict"
	}
	if err := req.SetField("anthropic_version", AnthropicVersion); err != nil {
		return nil, err
	}
	if out.Body, _, err = x.MarshalRequest(nil); err != nil {
		return nil, err
	}
	out.Path = p.modelPath(PublisherAnthropic, model) + method
	// The path says everything; Vertex takes no query of the client's.
	out.RawQuery = ""
	providers.StripClientHeaders(out.Header, true, false)
	if removed := p.betas.apply(out.Header, x.CountTokens); len(removed) > 0 {
		if c := x.Logger.Check(zap.DebugLevel, "vertex: removed anthropic-beta values Vertex refuses"); c != nil {
			c.Write(zap.Strings("betas", removed))
		}
	}
	return &claudeTranslator{anthropic: anthropic.NewTranslator(x, true)}, nil
}

// claudeTranslator is the anthropic provider's translator with Vertex's
// errors: Claude's own are Anthropic-shaped and kept, Vertex's (a missing
// permission, an unknown model, a quota) are Google's JSON errors.
type claudeTranslator struct {
	anthropic *anthropic.Translator
}

func (t *claudeTranslator) Handle(status int, header http.Header) providers.Handling {
	if status >= 300 {
		return providers.Handling{Error: ClaudeError}
	}
	return t.anthropic.Handle(status, header)
}

// ClaudeError maps an error response of a Claude model on Vertex.
func ClaudeError(status int, header http.Header, body []byte) *wire.Error {
	if typ, err := jsonparser.GetString(body, "type"); err == nil && typ == "error" {
		return anthropic.KeepAnthropicError(status, header, body)
	}
	return gemini.UpstreamError(status, header, body)
}

// DefaultDropBetas are the anthropic-beta values Vertex AI refuses with
// 400 ("Unexpected value(s) … for the anthropic-beta header") that clients
// send: first-party features (the Files API, code execution, MCP servers,
// skills, web fetch), and features Vertex had not taken when this list
// was made. drop_betas adds to it.
var DefaultDropBetas = []string{
	"claude-code-20250219",
	"oauth-2025-04-20",
	"files-api-2025-04-14",
	"code-execution-2025-08-25",
	"mcp-client-2025-04-04",
	"mcp-client-2025-11-20",
	"skills-2025-10-02",
	"web-fetch-2025-09-10",
	"prompt-caching-scope-2026-01-05",
	"structured-outputs-2025-11-13",
	"fine-grained-tool-streaming-2025-05-14",
	"token-efficient-tools-2025-02-19",
	"output-128k-2025-02-19",
	"effort-2025-11-24",
	"adaptive-thinking-2026-01-28",
	"fast-mode-2026-02-01",
	"advisor-tool-2026-03-01",
}

// DefaultDropCountTokensBetas are also removed from count_tokens, whose
// endpoint on Vertex refuses them though messages take them.
var DefaultDropCountTokensBetas = []string{"web-search-2025-03-05"}

// RenamedBetas are betas Vertex takes under another name.
var RenamedBetas = map[string]string{
	"advanced-tool-use-2025-11-20": "tool-search-tool-2025-10-19",
}

// betaFilter edits anthropic-beta for Vertex.
type betaFilter struct {
	drop      map[string]bool
	dropCount map[string]bool
	dropAll   bool
}

func newBetaFilter(extra []string) betaFilter {
	f := betaFilter{drop: map[string]bool{}, dropCount: map[string]bool{}}
	for _, b := range append(append([]string(nil), DefaultDropBetas...), extra...) {
		f.dropAll = f.dropAll || b == "*"
		f.drop[strings.ToLower(b)] = true
	}
	for _, b := range DefaultDropCountTokensBetas {
		f.dropCount[b] = true
	}
	return f
}

// apply removes the refused values from every anthropic-beta line and
// renames the renamed ones, keeping the order of the rest; it returns what
// it removed. A header left with no value goes.
func (f betaFilter) apply(h http.Header, countTokens bool) (removed []string) {
	lines := h.Values("Anthropic-Beta")
	if len(lines) == 0 {
		return nil
	}
	var kept []string
	seen := map[string]bool{}
	for _, line := range lines {
		for _, v := range strings.Split(line, ",") {
			v = strings.TrimSpace(v)
			lv := strings.ToLower(v)
			switch {
			case v == "":
			case f.dropAll || f.drop[lv] || countTokens && f.dropCount[lv]:
				removed = append(removed, v)
			default:
				if to, ok := RenamedBetas[lv]; ok {
					v = to
				}
				if !seen[v] {
					seen[v] = true
					kept = append(kept, v)
				}
			}
		}
	}
	if len(kept) == 0 {
		h.Del("Anthropic-Beta")
	} else {
		h.Set("Anthropic-Beta", strings.Join(kept, ","))
	}
	return removed
}
