package converse

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/thinkgate/thinkgate/providers"
)

// The Converse conversion decodes the request into Go values and builds
// Converse's from them: a few hundred bytes for each content block and
// tool, however small the block is in the body. A request of many tiny
// blocks (31 MiB of one-letter text blocks is 1.25 million of them) would
// cost gigabytes; the number of blocks is bounded by the body's size so
// that what a request holds beyond its body stays within twice the body
// (docs/performance.md, "Memory on every request shape").

const (
	// BlocksFree is the number of content blocks (a string content counts
	// as one) and tools any request may have.
	BlocksFree = 1000
	// BytesPerBlock is the body bytes each block and tool past BlocksFree
	// takes at the least on average.
	BytesPerBlock = 512
)

// errOver stops the count at the bound.
var errOver = errors.New("converse: over the bound on blocks")

// CheckBlocks refuses, with a 413 naming the bound, a request with more
// content blocks and tools than BlocksFree + len(body)/BytesPerBlock. It
// reads the history from the client's bytes, before anything is decoded.
func CheckBlocks(x *providers.Exchange) error {
	limit := BlocksFree + len(x.Body)/BytesPerBlock
	n := len(x.Request.Tools)
	h, err := providers.NewHistoryReader(x.Body)
	if err != nil {
		return providers.InvalidRequest("invalid request: " + err.Error())
	}
	var b, sub providers.HistoryBlock
	count := func(_ int, _ *providers.HistoryBlock) error {
		if n++; n > limit {
			return errOver
		}
		return nil
	}
	err = h.EachBlock(h.System(), &b, count)
	if err == nil {
		err = h.EachMessage(func(_ int, m *providers.HistoryMessage) error {
			return h.EachBlock(m.Content, &b, func(j int, b *providers.HistoryBlock) error {
				if err := count(j, b); err != nil {
					return err
				}
				return h.EachBlock(b.Content, &sub, count)
			})
		})
	}
	switch {
	case errors.Is(err, errOver):
		return &providers.Error{Status: http.StatusRequestEntityTooLarge, Type: "request_too_large", Message: fmt.Sprintf(
			"request has more than %d content blocks and tools, the most Bedrock's Converse conversion takes for a body of %d bytes (%d, and one per %d bytes of body)",
			limit, len(x.Body), BlocksFree, BytesPerBlock)}
	case err != nil:
		return err
	}
	return nil
}
