package providers_test

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/amazonq"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/bedrock/converse"
	"github.com/thinkgate/thinkgate/providers/gemini"
)

// The request shapes that cost a converter the most per byte of body
// (docs/performance.md, "Memory by request shape"): each is about size
// bytes of one thing repeated. The anthropic rows put the shape in the
// assistant turns of a history the gateway signed, which the passthrough
// must rewrite.

// convShape is one shape: body builds a request of about size bytes.
type convShape struct {
	name string
	body func(signer *providers.Signer, size int) []byte
}

// shapeBody closes a request around its messages and tools.
func shapeBody(tools, messages string) []byte {
	return []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true` + tools +
		`,"messages":[` + messages + `]}`)
}

// signedTurn is an assistant turn opening with thinking the gateway
// signed, then rest.
func signedTurn(signer *providers.Signer, rest string) string {
	sig := signer.Sign(providers.OriginTags, "", "plan")
	return `{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"` + sig + `"}` + rest + `]}`
}

func repeatJoin(s string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+",", n), ",")
}

var convShapes = []convShape{
	{"tiny-blocks", func(signer *providers.Signer, size int) []byte {
		const blk = `{"type":"text","text":"a"}`
		n := size / (len(blk) + 1)
		return shapeBody("", `{"role":"user","content":"go"},`+
			signedTurn(signer, ","+repeatJoin(blk, n))+`,{"role":"user","content":"on"}`)
	}},
	{"many-messages", func(signer *providers.Signer, size int) []byte {
		pair := `{"role":"user","content":"a"},` + signedTurn(signer, `,{"type":"text","text":"b"}`)
		n := size / (len(pair) + 1)
		return shapeBody("", repeatJoin(pair, n)+`,{"role":"user","content":"on"}`)
	}},
	{"deep-tool-input", func(signer *providers.Signer, size int) []byte {
		const depth = 5000
		input := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
		var msgs []string
		for i := 0; len(msgs)*(len(input)+300) < size; i++ {
			id := "toolu_" + strconv.Itoa(i)
			msgs = append(msgs, `{"role":"user","content":"go"}`,
				signedTurn(signer, `,{"type":"tool_use","id":"`+id+`","name":"t","input":`+input+`}`),
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}]}`,
				`{"role":"assistant","content":"done"}`)
		}
		return shapeBody(`,"tools":[{"name":"t","input_schema":{"type":"object"}}]`,
			strings.Join(msgs, ",")+`,{"role":"user","content":"on"}`)
	}},
	{"deep-schemas", func(signer *providers.Signer, size int) []byte {
		const depth = 400
		schema := strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat("}}", depth)
		n := size / (len(schema) + 40)
		var tools []string
		for i := range n {
			tools = append(tools, `{"name":"t`+strconv.Itoa(i)+`","input_schema":`+schema+`}`)
		}
		return shapeBody(`,"tools":[`+strings.Join(tools, ",")+`]`,
			`{"role":"user","content":"go"},`+signedTurn(signer, `,{"type":"text","text":"b"}`)+`,{"role":"user","content":"on"}`)
	}},
	{"empty-strings", func(signer *providers.Signer, size int) []byte {
		n := size / 3
		input := `{"a":[` + repeatJoin(`""`, n) + `]}`
		return shapeBody(`,"tools":[{"name":"t","input_schema":{"type":"object"}}]`,
			`{"role":"user","content":"go"},`+
				signedTurn(signer, `,{"type":"tool_use","id":"toolu_1","name":"t","input":`+input+`}`)+
				`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}`)
	}},
	{"many-tools", func(signer *providers.Signer, size int) []byte {
		const tool = `{"name":"t%d","input_schema":{"type":"object"}}`
		n := size / (len(tool) + 6)
		tools := make([]string, n)
		for i := range tools {
			tools[i] = fmt.Sprintf(tool, i)
		}
		return shapeBody(`,"tools":[`+strings.Join(tools, ",")+`]`,
			`{"role":"user","content":"go"},`+signedTurn(signer, `,{"type":"text","text":"b"}`)+`,{"role":"user","content":"on"}`)
	}},
}

// convPeakHeap runs f while sampling the heap and returns f's peak above
// the heap before it, garbage not yet collected included.
func convPeakHeap(f func()) uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	note := func() {
		if h := read(); h > base && h-base > peak.Load() {
			peak.Store(h - base)
		}
	}
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Microsecond)
		defer t.Stop()
		for {
			note()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	note()
	close(done)
	<-sampled
	return peak.Load()
}

// converseProvider runs the Bedrock Converse conversion as the bedrock
// provider does (its Rewrite also signs, which needs credentials).
type converseProvider struct{}

func (converseProvider) ScansRequest() bool { return true }

func (converseProvider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	if err := converse.CheckBlocks(x); err != nil {
		return nil, err
	}
	if err := x.Request.Complete(); err != nil {
		return nil, err
	}
	body, st, err := converse.ConvertRequest(x, converse.Options{}, nil)
	out.Body = body
	return converse.NewTranslator(x, st), err
}

// BenchmarkRequestShapes measures the peak heap one request holds beyond
// its body, from the scan to the upstream body, for each shape and each
// provider this file covers (peak-x: the peak as a multiple of the body).
// THINKGATE_SHAPE_MB sets the body's size (default 8).
//
//	go test ./providers/ -run '^$' -bench BenchmarkRequestShapes -benchtime 1x
func BenchmarkRequestShapes(b *testing.B) {
	size := 8 << 20
	if v, err := strconv.Atoi(os.Getenv("THINKGATE_SHAPE_MB")); err == nil && v > 0 {
		size = v << 20
	}
	signer := providers.NewSigner([]byte("bench-signing-key"))
	convs := []struct {
		name string
		p    providers.Provider
	}{
		{"gemini", gemini.New(gemini.Config{APIKey: "k"})},
		{"amazonq", amazonq.New(amazonq.Config{APIKey: "k"})},
		{"anthropic", anthropic.New(anthropic.Config{APIKey: "k"})},
		{"converse", converseProvider{}},
	}
	for _, sh := range convShapes {
		body := sh.body(signer, size)
		for _, c := range convs {
			b.Run(sh.name+"/"+c.name, func(b *testing.B) {
				s := &providers.Settings{SplitTags: true, DefaultThinking: true, Signer: signer}
				if c.name != "anthropic" {
					s.Models = []providers.ModelRule{{From: "claude-*", To: "gemini-2.5-pro"}}
				}
				if c.name == "converse" {
					s.Models = []providers.ModelRule{{From: "claude-*", To: "anthropic.claude-sonnet-4-5-20250929-v1:0"}}
				}
				var peak uint64
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					var out *providers.Outbound
					var rerr error
					p := convPeakHeap(func() {
						req, err := providers.ParseRequestFor(c.p, body)
						if err != nil {
							rerr = err
							return
						}
						x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: "/v1/messages"})
						out = &providers.Outbound{Path: x.Path, Header: http.Header{}}
						_, rerr = c.p.Rewrite(x, out)
					})
					if rerr != nil {
						b.Logf("refused: %v", truncate(rerr.Error(), 200))
					}
					peak = max(peak, p)
					runtime.KeepAlive(out)
				}
				b.ReportMetric(float64(peak)/float64(len(body)), "peak-x")
				b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			})
		}
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
