package caddymodule

import (
	"fmt"
	"net/http"
	"time"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// answerCountTokens answers count_tokens for a provider that counts
// itself (providers.TokenCounter): no upstream is called.
func answerCountTokens(w http.ResponseWriter, c providers.TokenCounter, x *providers.Exchange, m *exchangeMetrics, fail func(*wire.Error) error) error {
	n, err := c.CountTokens(x)
	if err != nil {
		return fail(wire.AsError(err))
	}
	body := providers.CountTokensBody(n)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	m.status = http.StatusOK
	m.firstByte = time.Now()
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}
