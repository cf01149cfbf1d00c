package amazonq

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/providers"
)

// What the converter (convert.go) builds from the decoded request rather
// than from the client's bytes: the tools, small, and their names.

type wireTool struct {
	ToolSpecification toolSpecification `json:"toolSpecification"`
}

type toolSpecification struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	InputSchema inputSchema `json:"inputSchema"`
}

type inputSchema struct {
	JSON json.RawMessage `json:"json"`
}

// Limits and placeholders. Amazon Q rejects a request with an empty user or
// assistant content ("Improperly formed request"), so empty turns get a
// short neutral text.
const (
	// maxToolName is the longest tool name Amazon Q accepts; longer names
	// (MCP tools often are) are shortened and mapped back in the response.
	maxToolName = 64
	// maxToolDescription is Amazon Q's limit on a tool description; longer
	// descriptions are cut and given in full in a TOOL DOCUMENTATION section
	// of the current message.
	maxToolDescription = 10240

	placeholderToolResults = "(tool results attached)"
	placeholderUser        = "(empty message)"
	placeholderToolUse     = "(tool use)"
	placeholderAssistant   = "(empty response)"
	placeholderNoOutput    = "(no output)"
	placeholderImageOutput = "(image output attached to the message)"
	// continuePrompt is the current message when the conversation ends with
	// an assistant turn (an Anthropic prefill): Amazon Q cannot continue a
	// partial answer, so it is asked to.
	continuePrompt = "Continue"
)

var defaultInputSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// state is the per-request state the stream needs: the original names of
// tools whose names were shortened for Amazon Q.
type state struct {
	toolNames map[string]string // shortened → original
}

// originalToolName maps a name from the upstream back to the client's.
func (st *state) originalToolName(name string) string {
	if st != nil {
		if orig, ok := st.toolNames[name]; ok {
			return orig
		}
	}
	return name
}

type converter struct {
	p        *Provider
	x        *providers.Exchange
	st       *state
	system   []string
	toolDocs []string
}

// tools converts the client tools. Server tools (web_search_…, bash_…)
// have no schema and run only at Anthropic: they are left out.
func (c *converter) tools() []wireTool {
	var out []wireTool
	for _, tl := range c.x.Request.Tools {
		if !tl.IsCustom() || tl.Name == "" {
			continue
		}
		desc := tl.Description
		if strings.TrimSpace(desc) == "" {
			desc = tl.Name // Amazon Q rejects an empty description
		}
		if len(desc) > maxToolDescription {
			c.toolDocs = append(c.toolDocs, "Tool: "+tl.Name+"\nFull Description:\n"+desc+"\n")
			note := "… (cut; the full description is in the TOOL DOCUMENTATION section of the message)"
			desc = truncateUTF8(desc, maxToolDescription-len(note)) + note
		}
		schema := json.RawMessage(bytes.TrimSpace(tl.InputSchema))
		if len(schema) == 0 || string(schema) == "null" {
			schema = defaultInputSchema
		}
		out = append(out, wireTool{ToolSpecification: toolSpecification{
			Name: c.toolName(tl.Name), Description: desc, InputSchema: inputSchema{JSON: schema},
		}})
	}
	return out
}

// toolName shortens a name over Amazon Q's limit, deterministically (so the
// same tool in history and in tools gets the same name), and remembers it.
func (c *converter) toolName(name string) string {
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	short := truncateUTF8(name, maxToolName-9) + "_" + hex.EncodeToString(sum[:4])
	if c.st.toolNames == nil {
		c.st.toolNames = make(map[string]string)
	}
	c.st.toolNames[short] = name
	return short
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
