package responses

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/thinkgate/thinkgate/providers"
)

// maxToolName is OpenAI's limit on function names, which must also match
// ^[a-zA-Z0-9_-]+$.
const maxToolName = 64

// State is what the response translation needs to know about the request.
type State struct {
	// toolNames maps shortened upstream names back to the client's.
	toolNames map[string]string
}

// shorten returns the name to send upstream for a client tool name. A name
// OpenAI accepts is kept; another keeps its valid characters (others become
// '_'), cut to leave room for 8 hex digits of its SHA-256, so that two long
// names stay apart.
func (s *State) shorten(name string) string {
	if validToolName(name) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	const suffix = 1 + 8
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
func (s *State) original(name string) string {
	if s != nil {
		if orig, ok := s.toolNames[name]; ok {
			return orig
		}
	}
	return name
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

// toolUseID returns a call_id in the form Anthropic demands of tool_use ids
// (^[a-zA-Z0-9_-]+$); OpenAI's call_… ids already are. The changed id only
// has to agree with itself when it comes back as call_id.
func toolUseID(id string) string {
	if id == "" {
		return providers.NewID("toolu_")
	}
	b := []byte(id)
	for i, c := range b {
		if !toolNameChar(c) {
			b[i] = '_'
		}
	}
	return string(b)
}
