package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// BenchmarkApplyCard: what a card costs a 1 MB request of each hostile
// shape when it lowers max_tokens (one copy of the body, one walk of its
// top level) and its input takes no images or PDFs (the messages read
// for them when their bytes might hold one), against a handler without
// cards. The request-cost benchmark (bench -phase request) runs without
// cards.
func BenchmarkApplyCard(b *testing.B) {
	const size = 1 << 20
	carded := &Handler{ModelInfo: []ModelCard{{Model: "claude-*", MaxInputTokens: 200000, MaxTokens: 512}}}
	for _, s := range requestshapes.Shapes {
		body := s.Build(size)
		req, err := wire.ParseRequest(body)
		if err != nil {
			b.Fatal(err)
		}
		for _, h := range []struct {
			name string
			h    *Handler
		}{{"no_cards", &Handler{}}, {"card", carded}} {
			b.Run(s.Name+"/"+h.name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				buf := make([]byte, 0, len(body)+64)
				for i := 0; i < b.N; i++ {
					r := *req
					r.Fields = make(map[string]json.RawMessage, len(req.Fields))
					for k, v := range req.Fields {
						r.Fields[k] = v
					}
					out, e := h.h.applyCard(&r, body, func(int) []byte { return buf[:0] })
					if e != nil || (h.h == carded) != strings.Contains(string(out[:80]), `"max_tokens":512`) {
						b.Fatalf("%v %s", e, out[:80])
					}
				}
			})
		}
	}
}
