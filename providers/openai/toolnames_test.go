package openai

import "github.com/thinkgate/thinkgate/providers"

// validToolName: the tests check the names sent upstream by OpenAI's rule.
func validToolName(name string) bool { return providers.ValidToolName(name) }
