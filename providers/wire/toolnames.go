package wire

import (
	"crypto/sha256"
	"encoding/hex"
)

// maxToolName is OpenAI's limit on function names (Chat Completions and
// Responses alike), which must also match ^[a-zA-Z0-9_-]+$.
const maxToolName = 64

// ToolNames maps the tool names sent to an upstream with OpenAI's rules for
// function names back to the client's, for the names that had to be
// shortened. Nil maps every name to itself.
type ToolNames map[string]string

// Shorten returns the name to send upstream for a client tool name,
// remembering how to map it back. A name OpenAI accepts is kept; another
// keeps its valid characters (others become '_'), cut to leave room for 8
// hex digits of its SHA-256, so that two long names stay apart.
func (t *ToolNames) Shorten(name string) string {
	if ValidToolName(name) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	const suffix = 1 + 8 // "_" + 8 hex digits
	b := make([]byte, 0, maxToolName)
	for i := 0; i < len(name) && len(b) < maxToolName-suffix; i++ {
		c := name[i]
		if !toolNameChar(c) {
			c = '_'
		}
		b = append(b, c)
	}
	b = append(b, '_')
	b = hex.AppendEncode(b, sum[:4])
	short := string(b)
	if *t == nil {
		*t = make(ToolNames)
	}
	(*t)[short] = name
	return short
}

// Original maps an upstream tool name back to the client's; a nil t maps
// every name to itself.
func (t *ToolNames) Original(name []byte) string {
	if t != nil {
		if orig, ok := (*t)[string(name)]; ok {
			return orig
		}
	}
	return string(name)
}

// ValidToolName reports whether OpenAI accepts name as a function name.
func ValidToolName(name string) bool {
	if name == "" || len(name) > maxToolName {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !toolNameChar(name[i]) {
			return false
		}
	}
	return true
}

func toolNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// ToolUseID returns an upstream tool-call id in the form Anthropic demands
// of tool_use ids (^[a-zA-Z0-9_-]+$), so that the history can later go to
// any upstream: every other character becomes '_'. The upstream keeps no
// state, so the changed id only has to agree with itself when it comes back
// in tool_use and tool_result blocks. An empty id stays empty: what stands
// in for a missing one is the caller's choice.
func ToolUseID(id []byte) string {
	ok := true
	for _, c := range id {
		if !toolNameChar(c) {
			ok = false
			break
		}
	}
	if ok {
		return string(id)
	}
	b := make([]byte, len(id))
	for i, c := range id {
		if !toolNameChar(c) {
			c = '_'
		}
		b[i] = c
	}
	return string(b)
}
