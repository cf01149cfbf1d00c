package openai

import (
	"bytes"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// OpenRouter takes Anthropic's cache_control on a content part and passes
// it to the models that honour it (Anthropic's, Gemini's), so with an
// OpenRouter upstream a text block's breakpoint goes on the text part it
// ends; every other Chat Completions server has no equivalent and gets
// none (docs/providers/openai.md, Prompt caching).

// cacheControl is a breakpoint as OpenRouter takes it.
type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// openRouter reports an OpenRouter upstream: one configured with its
// thinking mode or its reasoning history.
func (c *converter) openRouter() bool {
	return c.cfg.ThinkingMode == ModeOpenRouter || c.cfg.ReasoningHistory == HistoryOpenRouter
}

// breakpoint is the cache_control of a block as the client sent it (raw),
// encoded as it goes upstream, or nil when the upstream is not
// OpenRouter or the block has none.
func (c *converter) breakpoint(raw []byte) []byte {
	if !c.openRouter() || len(raw) == 0 || raw[0] != '{' || !bytes.Contains(raw, []byte(`"cache_control"`)) {
		return nil
	}
	v, typ, _, err := jsonparser.Get(raw, "cache_control")
	if err != nil || typ != jsonparser.Object {
		return nil
	}
	var cc cacheControl
	cc.Type, _ = jsonparser.GetString(v, "type")
	cc.TTL, _ = jsonparser.GetString(v, "ttl")
	if cc.Type == "" {
		return nil
	}
	enc, err := jsonbytes.Encode(&cc, 32)
	if err != nil {
		return nil
	}
	return enc
}
