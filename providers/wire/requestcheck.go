package wire

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// Anthropic's API refuses some requests that a converting upstream would
// take, or refuse in its own words: CheckAnthropicRules refuses them the way
// Anthropic does, before anything is sent. The table of these checks is in
// docs/configuration.md ("Anthropic's request checks").

// minThinkingBudget is the smallest thinking.budget_tokens Anthropic takes.
const minThinkingBudget = 1024

// userBlockTypes are the content-block types Anthropic's API knows in a
// message; a user turn holding any other type is refused.
var userBlockTypes = []string{
	"bash_code_execution_tool_result", "code_execution_tool_result", "container_upload",
	"document", "image", "mcp_tool_result", "mcp_tool_use", "redacted_thinking",
	"search_result", "server_tool_use", "text", "text_editor_code_execution_tool_result",
	"thinking", "tool_reference", "tool_result", "tool_search_tool_result", "tool_use",
	"web_fetch_tool_result", "web_search_tool_result",
}

// CheckAnthropicRules returns the 400 invalid_request_error Anthropic's API
// answers r with, or nil. countTokens: r is a count_tokens request, which
// has no max_tokens. It reads the messages from r.Fields, as sent, so a
// request the parse only scanned (ScanRequest) is not decoded for it. r
// has passed ParseRequest or ScanRequest: its JSON is valid and messages
// is present.
func CheckAnthropicRules(r *Request, countTokens bool) *Error {
	if absent(r.Fields["model"]) {
		return InvalidRequest("model: Field required")
	}
	if !countTokens {
		if absent(r.Fields["max_tokens"]) {
			return InvalidRequest("max_tokens: Field required")
		}
		if r.MaxTokens < 1 {
			return InvalidRequest("max_tokens: Input should be greater than or equal to 1")
		}
	}
	if t := r.Thinking; t.Present && t.Bool == nil && t.Type == "enabled" {
		switch {
		case t.BudgetTokens == 0 && !hasBudget(r.Fields["thinking"]):
			return InvalidRequest("thinking.enabled.budget_tokens: Field required")
		case t.BudgetTokens < minThinkingBudget:
			return InvalidRequest(fmt.Sprintf("thinking.enabled.budget_tokens: Input should be greater than or equal to %d", minThinkingBudget))
		case !countTokens && t.BudgetTokens >= r.MaxTokens:
			return InvalidRequest("`max_tokens` must be greater than `thinking.budget_tokens`")
		}
	}
	return checkMessages(r.Fields["messages"])
}

// absent: a field not sent, or sent as null.
func absent(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func hasBudget(thinking []byte) bool {
	_, _, _, err := jsonparser.Get(thinking, "budget_tokens")
	return err == nil
}

// turn is what checkMessages keeps of the previous message: its role and
// the ids of its tool_use blocks.
type turn struct {
	assistant bool
	toolUses  [][]byte
}

// checkMessages walks the messages array (valid JSON) once: it refuses an
// empty array, a user turn's block of a type Anthropic does not know, and a
// tool_result whose tool_use_id is not a tool_use of the message before.
func checkMessages(messages []byte) *Error {
	var (
		prev, cur turn
		n         int
		refusal   *Error
	)
	_, err := jsonbytes.ScanArrayAt(messages, 0, func(at int) (int, error) {
		i := n
		n++
		cur = turn{toolUses: cur.toolUses[:0]}
		var role, content []byte
		end, err := jsonbytes.ScanObjectAt(messages, at, func(key []byte, v int) (int, error) {
			val, _, end, err := jsonbytes.SkipValue(messages, v)
			switch string(key) {
			case "role":
				role = val
			case "content":
				content = messages[v:end]
			}
			return end, err
		})
		if err != nil {
			return end, err
		}
		if string(role) == "system" {
			// A system turn (the gateway takes one where a client sends it)
			// is no turn of the conversation: a tool_result after it
			// answers the assistant turn before it.
			return end, nil
		}
		cur.assistant = string(role) == "assistant"
		if refusal == nil && len(content) > 0 && content[0] == '[' {
			refusal = checkBlocks(i, content, string(role) == "user", &prev, &cur)
		}
		prev, cur = cur, prev
		return end, nil
	})
	switch {
	case err != nil:
		return InvalidRequest("messages: " + err.Error())
	case refusal != nil:
		return refusal
	case n == 0:
		return InvalidRequest("messages: at least one message is required")
	}
	return nil
}

// checkBlocks checks the content array of message i.
func checkBlocks(i int, content []byte, user bool, prev, cur *turn) *Error {
	var refusal *Error
	j := -1
	_, err := jsonbytes.ScanArrayAt(content, 0, func(at int) (int, error) {
		j++
		var typ, id, toolUseID []byte
		hasType := false
		end, err := jsonbytes.ScanObjectAt(content, at, func(key []byte, v int) (int, error) {
			val, _, end, err := jsonbytes.SkipValue(content, v)
			switch string(key) {
			case "type":
				typ, hasType = val, true
			case "id":
				id = val
			case "tool_use_id":
				toolUseID = val
			}
			return end, err
		})
		if err != nil || refusal != nil {
			return end, err
		}
		path := func() string { return fmt.Sprintf("messages.%d.content.%d", i, j) }
		switch {
		case string(typ) == "tool_use":
			cur.toolUses = append(cur.toolUses, id)
		case !user:
		case !hasType:
			refusal = InvalidRequest(path() + ".type: Field required")
		case !knownBlockType(typ):
			refusal = InvalidRequest(fmt.Sprintf("%s: Input tag '%s' found using 'type' does not match any of the expected tags: '%s'",
				path(), typ, strings.Join(userBlockTypes, "', '")))
		case string(typ) == "tool_result" && !(prev.assistant && containsID(prev.toolUses, toolUseID)):
			refusal = InvalidRequest(fmt.Sprintf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
				"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", path(), unescaped(toolUseID)))
		}
		return end, nil
	})
	if err != nil {
		return InvalidRequest(fmt.Sprintf("messages.%d.content: %v", i, err))
	}
	return refusal
}

func knownBlockType(typ []byte) bool {
	for _, t := range userBlockTypes {
		if string(typ) == t {
			return true
		}
	}
	return false
}

// containsID compares ids as sent; ids are plain ASCII (toolu_…, call_…),
// and one spelled with escapes is unescaped first.
func containsID(ids [][]byte, id []byte) bool {
	for _, have := range ids {
		if bytes.Equal(have, id) {
			return true
		}
	}
	if bytes.IndexByte(id, '\\') < 0 && !anyEscaped(ids) {
		return false
	}
	want := unescaped(id)
	for _, have := range ids {
		if unescaped(have) == want {
			return true
		}
	}
	return false
}

func anyEscaped(ids [][]byte) bool {
	for _, id := range ids {
		if bytes.IndexByte(id, '\\') >= 0 {
			return true
		}
	}
	return false
}

func unescaped(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	s, err := jsonbytes.AppendUnescaped(nil, raw)
	if err != nil {
		return string(raw)
	}
	return string(s)
}
