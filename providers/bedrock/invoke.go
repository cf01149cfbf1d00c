package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// AnthropicVersion is the anthropic_version InvokeModel takes for Claude.
const AnthropicVersion = "bedrock-2023-05-31"

// DefaultDropBetas are the anthropic-beta values never sent to Bedrock:
// first-party-only ones a client talking to api.anthropic.com sends, which
// Bedrock refuses as an invalid beta flag.
var DefaultDropBetas = []string{
	"claude-code-20250219", // Claude Code's first-party marker
	"oauth-2025-04-20",     // claude.ai subscription OAuth; Bedrock has IAM
}

// InvokeBody is the InvokeModel body of x's request: the body the anthropic
// provider would send (gateway-signed thinking undone), without model and
// stream, with anthropic_version, and with the client's betas (its
// anthropic-beta header values, then any anthropic_beta of the body, less
// the dropped ones) as anthropic_beta. The client's body is not changed.
func (p *Provider) InvokeBody(x *providers.Exchange, h http.Header) ([]byte, error) {
	body, err := anthropic.RewriteBody(x)
	if err == nil && len(body) == 0 {
		// An exchange made without the client's bytes: its parsed request.
		if err = x.Request.Complete(); err == nil {
			body, err = x.Request.MarshalFields()
		}
	}
	if err != nil {
		return nil, err
	}
	betas := p.betas(h.Values("Anthropic-Beta"), body)
	// A new buffer: jsonparser.Set below edits in place, and the client's
	// body is kept intact (a fallback may send it again).
	if body, err = withoutGatewayMembers(x.NewBody, body); err != nil {
		return nil, wire.InvalidRequest("request body: " + err.Error())
	}
	if body, err = jsonparser.Set(body, []byte(`"`+AnthropicVersion+`"`), "anthropic_version"); err != nil {
		return nil, wire.InvalidRequest("request body: " + err.Error())
	}
	if len(betas) > 0 {
		b, _ := json.Marshal(betas)
		if body, err = jsonparser.Set(body, b, "anthropic_beta"); err != nil {
			return nil, wire.InvalidRequest("request body: " + err.Error())
		}
	}
	if x.CountTokens && x.Request.MaxTokens <= 0 {
		// A count_tokens request has no max_tokens, which InvokeModel
		// requires; it does not change the count. With thinking on it must
		// exceed the budget.
		n := 1
		if x.Request.Thinking.BudgetTokens > 0 {
			n = x.Request.Thinking.BudgetTokens + 1
		}
		if body, err = jsonparser.Set(body, []byte(strconv.Itoa(n)), "max_tokens"); err != nil {
			return nil, wire.InvalidRequest("request body: " + err.Error())
		}
	}
	return body, nil
}

// betas collects the betas to send, in order and once each.
func (p *Provider) betas(lines []string, body []byte) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if v == "" || seen[v] || p.dropAll || p.dropBetas[strings.ToLower(v)] {
			return
		}
		seen[v] = true
		out = append(out, v)
	}
	for _, line := range lines {
		for _, v := range strings.Split(line, ",") {
			add(v)
		}
	}
	_, _ = jsonbytes.ScanObjectAt(body, 0, func(key []byte, at int) (int, error) {
		value, typ, end, err := jsonbytes.SkipValue(body, at)
		if err == nil && typ == jsonparser.Array && memberIs(key, "anthropic_beta") {
			_, _ = jsonparser.ArrayEach(value, func(v []byte, typ jsonparser.ValueType, _ int, _ error) {
				if typ == jsonparser.String {
					if s, err := jsonparser.ParseString(v); err == nil {
						add(s)
					}
				}
			})
		}
		return end, err
	})
	return out
}

// gatewayMembers are the top-level members of an InvokeModel body that the
// gateway writes or leaves out, whatever the client sent: the model is in
// the path, the stream in the action, and anthropic_version and
// anthropic_beta are set below.
var gatewayMembers = []string{"model", "stream", "anthropic_version", "anthropic_beta"}

// withoutGatewayMembers writes body's top-level object again, in a new
// buffer of newBody's, without the gatewayMembers. A member is one of them in any letter
// case and however escaped, as encoding/json matches it (a client's
// "Model" is its model): InvokeModel refuses a member it does not know.
func withoutGatewayMembers(newBody func(int) []byte, body []byte) ([]byte, error) {
	out := newBody(len(body) + 64)
	out = append(out, '{')
	_, err := jsonbytes.ScanObjectAt(body, 0, func(key []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(body, at)
		if err != nil {
			return -1, err
		}
		for _, name := range gatewayMembers {
			if memberIs(key, name) {
				return end, nil
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, key...)
		out = append(out, '"', ':')
		out = append(out, body[at:end]...)
		return end, nil
	})
	if err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// memberIs reports whether a member's raw name is name, as encoding/json
// matches names: unescaped, in any letter case.
func memberIs(key []byte, name string) bool {
	var buf [32]byte
	k, err := jsonbytes.Unescape(key, buf[:0])
	return err == nil && strings.EqualFold(string(k), name)
}

// CountTokensBody wraps an InvokeModel body for Bedrock's CountTokens.
func CountTokensBody(invokeBody []byte) []byte {
	const head, tail = `{"input":{"invokeModel":{"body":"`, `"}}}`
	b := make([]byte, 0, len(head)+base64.StdEncoding.EncodedLen(len(invokeBody))+len(tail))
	b = append(b, head...)
	b = base64.StdEncoding.AppendEncode(b, invokeBody)
	return append(b, tail...)
}

// Translator is the translator of an InvokeModel response.
type Translator struct {
	x *providers.Exchange
}

// NewTranslator returns the translator of the InvokeModel response to x.
func NewTranslator(x *providers.Exchange) *Translator { return &Translator{x: x} }

// Handle translates every response: an InvokeModel answer is never the
// client's as it is (an event stream, Bedrock's error documents).
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	x := t.x
	switch {
	case status >= 300:
		return providers.Handling{Error: awsstream.UpstreamError}
	case x.CountTokens:
		return providers.Handling{Body: CountTokensAnswer}
	case x.Streaming:
		return providers.Handling{NewStream: t.NewStream}
	}
	return providers.Handling{Body: t.Message}
}

// Message translates InvokeModel's answer, an Anthropic Message: with
// split_tags its text is split as the anthropic provider splits it;
// otherwise only the model name changes back to the client's.
func (t *Translator) Message(body []byte) ([]byte, error) {
	x := t.x
	if x.Settings.SplitTags {
		return anthropic.SplitMessage(x, body)
	}
	if typ, err := jsonparser.GetString(body, "type"); err != nil || typ != "message" {
		return nil, wire.APIError(http.StatusBadGateway, "malformed upstream message: not an Anthropic Message")
	}
	if x.ClientModel != x.UpstreamModel {
		m, _ := json.Marshal(x.ClientModel)
		var err error
		if body, err = jsonparser.Set(body, m, "model"); err != nil {
			return nil, wire.APIError(http.StatusBadGateway, "malformed upstream message: "+err.Error())
		}
	}
	in, _ := jsonparser.GetInt(body, "usage", "input_tokens")
	out, _ := jsonparser.GetInt(body, "usage", "output_tokens")
	x.Usage.InputTokens, x.Usage.OutputTokens = in, out
	return body, nil
}

// CountTokensAnswer turns CountTokens' {"inputTokens":N} into Anthropic's
// {"input_tokens":N}.
func CountTokensAnswer(body []byte) ([]byte, error) {
	n, err := jsonparser.GetInt(body, "inputTokens")
	if err != nil || n < 0 {
		return nil, wire.APIError(http.StatusBadGateway, "malformed upstream count-tokens answer: no inputTokens")
	}
	return append(strconv.AppendInt([]byte(`{"input_tokens":`), n, 10), '}'), nil
}
