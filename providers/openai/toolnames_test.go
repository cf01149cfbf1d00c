package openai

import (
	"github.com/thinkgate/thinkgate/providers/wire"
)

// validToolName: the tests check the names sent upstream by OpenAI's rule.
func validToolName(name string) bool { return wire.ValidToolName(name) }
