package providers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/cputime"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/amazonq"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/azure"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/gemini"
	"github.com/thinkgate/thinkgate/providers/openai"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// BenchmarkRequestConversion measures the CPU cost of a request from its
// body to the upstream body: ParseRequest alone, then reading the request
// as the handler does (ParseRequestFor: a scan for anthropic, azure and
// openai) and each provider's Rewrite, on the 1 MB Claude Code request of
// BenchmarkRequestMemory. Besides MB/s and allocs/op it reports ms-per-MB,
// the figure the targets are stated in, and cpu-ms/MB, the process's CPU
// time per MB (garbage collection included), which a busy machine
// disturbs less. Run with
//
//	go test ./providers/ -run '^$' -bench BenchmarkRequestConversion -benchtime 20x
//
// "scan" is ScanRequest alone. "anthropic" is the passthrough with nothing to change (the client's
// model name, the history signed by the gateway for tag-derived thinking is
// not present); "anthropic-unsign" is one whose gateway-signed history must
// be rewritten. A "-reused" row is the row before it with the upstream's
// body written into buffers reused from one request to the next, as the
// gateway's pools give them (Exchange.NewBody), instead of fresh ones.
func BenchmarkRequestConversion(b *testing.B) {
	signer := emit.NewSigner([]byte("bench-signing-key"))
	body := claudeCodeRequest(signer, 1<<20)
	plain := claudeCodeRequest(nil, 1<<20)
	convs := []struct {
		name string
		p    providers.Provider
		body []byte
	}{
		{"parse", nil, body},
		{"scan", nil, body},
		{"anthropic", anthropic.New(anthropic.Config{APIKey: "k"}), plain},
		{"anthropic-unsign", anthropic.New(anthropic.Config{APIKey: "k"}), body},
		{"anthropic-unsign-reused", anthropic.New(anthropic.Config{APIKey: "k"}), body},
		{"azure", azure.New(azure.Config{APIKey: "k"}), body},
		{"azure-reused", azure.New(azure.Config{APIKey: "k"}), body},
		{"openai", openai.New(openai.Config{APIKey: "k"}), body},
		{"openai-reused", openai.New(openai.Config{APIKey: "k"}), body},
		{"gemini", gemini.New(gemini.Config{APIKey: "k"}), body},
		{"gemini-reused", gemini.New(gemini.Config{APIKey: "k"}), body},
		{"amazonq", amazonq.New(amazonq.Config{APIKey: "k"}), body},
		{"amazonq-reused", amazonq.New(amazonq.Config{APIKey: "k"}), body},
	}
	for _, c := range convs {
		b.Run(c.name, func(b *testing.B) {
			s := &providers.Settings{SplitTags: true, DefaultThinking: true, Signer: signer}
			if c.name != "anthropic" {
				s.Models = []providers.ModelRule{{From: "claude-*", To: "gemini-2.5-pro"}}
			}
			if strings.HasPrefix(c.name, "anthropic-unsign") {
				s.Models = nil
			}
			var bodies reusedBodies
			var newBody func(int) []byte
			if strings.HasSuffix(c.name, "-reused") {
				newBody = bodies.newBody
			}
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				read := providers.ParseRequestFor
				if c.name == "scan" {
					read = func(_ any, body []byte) (*wire.Request, error) { return wire.ScanRequest(body) }
				}
				req, err := read(c.p, c.body)
				if err != nil {
					b.Fatal(err)
				}
				bodies.next = 0
				x := providers.NewExchange(s, req, c.body, providers.ExchangeOptions{Path: "/v1/messages", NewBody: newBody})
				out := &providers.Outbound{Path: x.Path, Header: http.Header{}}
				if c.p != nil {
					if _, err := c.p.Rewrite(x, out); err != nil {
						b.Fatal(err)
					}
				}
			}
			mb := float64(len(c.body)) / (1 << 20)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/mb, "ms/MB")
			b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/1e6/float64(b.N)/mb, "cpu-ms/MB")
		})
	}
}

// reusedBodies hands out the same buffers on every request, in the order
// asked for, as the gateway's pools do once they are warm.
type reusedBodies struct {
	bufs [][]byte
	next int
}

func (r *reusedBodies) newBody(n int) []byte {
	if r.next == len(r.bufs) {
		r.bufs = append(r.bufs, nil)
	}
	if cap(r.bufs[r.next]) < n {
		r.bufs[r.next] = make([]byte, 0, n)
	}
	r.next++
	return r.bufs[r.next-1][:0]
}
