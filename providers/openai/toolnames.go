package openai

import (
	"crypto/sha256"
	"encoding/hex"
)

// maxToolName is OpenAI's limit on function names, which must also match
// ^[a-zA-Z0-9_-]+$.
const maxToolName = 64

// State is what the response translation needs to know about the request.
type State struct {
	// toolNames maps the names sent upstream back to the client's, for the
	// names that had to be shortened.
	toolNames map[string]string
}

// shorten returns the name to send upstream for a client tool name,
// remembering how to map it back. Names that OpenAI accepts are kept; others
// keep their valid characters (others become '_'), cut to leave room for a
// hash of the full name, so different long names stay different.
func (s *State) shorten(name string) string {
	if validToolName(name) {
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
	if s.toolNames == nil {
		s.toolNames = make(map[string]string)
	}
	s.toolNames[short] = name
	return short
}

// original maps an upstream tool name back to the client's.
func (s *State) original(name []byte) string {
	if s != nil {
		if orig, ok := s.toolNames[string(name)]; ok {
			return orig
		}
	}
	return string(name)
}

func validToolName(name string) bool {
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

// toolUseID returns an upstream tool-call id in the form Anthropic demands of
// tool_use ids (^[a-zA-Z0-9_-]+$), so the history can later go to any
// upstream. The upstream keeps no state, so the changed id only has to agree
// with itself when it comes back in tool_use and tool_result blocks.
func toolUseID(id []byte) string {
	if len(id) == 0 {
		return ""
	}
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
