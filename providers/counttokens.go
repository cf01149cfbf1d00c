package providers

import "strconv"

// TokenCounter is a Provider whose upstream has no token-counting
// endpoint: the gateway answers /v1/messages/count_tokens with the
// provider's own count and calls no upstream.
type TokenCounter interface {
	// CountTokens returns the input tokens of the request as it would be
	// sent, or the error the request gets (a *Error for a refused one).
	CountTokens(x *Exchange) (int64, error)
}

// CountTokensBody is the count_tokens answer for n input tokens.
func CountTokensBody(n int64) []byte {
	return append(strconv.AppendInt([]byte(`{"input_tokens":`), n, 10), '}')
}
