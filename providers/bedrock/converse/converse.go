// Package converse converts Anthropic Messages requests into Amazon
// Bedrock's Converse API (converse, converse-stream, count-tokens) and its
// answers back. It knows nothing of paths, hosts or credentials: the bedrock
// provider sends what it converts.
package converse

import (
	"errors"

	"github.com/thinkgate/thinkgate/providers"
)

// Options are the Converse conversion's options; the bedrock provider's
// Config embeds them.
type Options struct{}

// Validate checks the options.
func (Options) Validate() error { return nil }

// State is what the response to one converted request needs to know.
type State struct{}

// ConvertRequest converts x's request into a Converse request body (for
// count_tokens, a count-tokens body).
func ConvertRequest(x *providers.Exchange, opts Options) ([]byte, *State, error) {
	return nil, nil, errors.New("the Converse conversion is not built yet")
}

// NewTranslator returns the translator of the response to the request
// ConvertRequest converted.
func NewTranslator(x *providers.Exchange, st *State) providers.Translator {
	return nil
}
