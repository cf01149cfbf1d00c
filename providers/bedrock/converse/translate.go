package converse

import (
	"net/http"

	"github.com/thinkgate/thinkgate/providers"
)

// Translator translates the answer to one converted request.
type Translator struct {
	x  *providers.Exchange
	st *State
}

// Handle says how the upstream's answer is handled.
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	return providers.Handling{}
}
