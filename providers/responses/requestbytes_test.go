package responses

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// diffConfigs are the configurations FuzzResponsesMatchesTyped picks from.
var diffConfigs = []Config{
	{},
	{Store: true, ReasoningSummary: SummaryDetailed},
	{ReasoningSummary: SummaryOff},
}

// FuzzResponsesMatchesTyped: for any body, the conversion from the
// client's bytes (of a request read by ScanRequest, as the handler reads
// it, and of one read by ParseRequest, as a thinkgate matcher reads it)
// and the typed reference (request_typed_test.go) write the same bytes
// and shorten the same tool names, or fail with the same error.
func FuzzResponsesMatchesTyped(f *testing.F) {
	dir := filepath.Join("testdata", "requests")
	ents, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".in.json") {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			s := string(b)
			for k, v := range historySignatures {
				s = strings.ReplaceAll(s, k, v)
			}
			f.Add([]byte(s), byte(0))
			f.Add([]byte(s), byte(0x41))
		}
	}
	for i, s := range fuzzcheck.Seeds {
		f.Add([]byte(s), byte(i))
	}
	f.Add([]byte(`{"model":"m","messages":[{"Role":"user","CONTENT":[{"type":"text","Text":"x","TEXT":null},{"t\u0079pe":"image","source":{"type":"url","url":"u"},"Source":{"Type":"base64","data":"d","media_type":"image/png"}},{"type":"document","source":{"type":"base64","data":"JVBE"}},{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}},{"type":"text","text":""}]}]},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"`+respSig("rs_1", "enc", "t")+`"},{"type":"text","text":"a"},{"type":"tool_use","id":"i","name":"n","input":null},{"type":"redacted_thinking","data":"`+respSig("rs_2", "e2", "")+`","thinking":"x"}]}],"SYSTEM":"s","system":[{"type":"text","text":"y"}]}`), byte(1))
	f.Fuzz(func(t *testing.T, body []byte, mode byte) {
		checkMatchesTyped(t, body, mode)
		checkMatchesTyped(t, providertest.BuiltRequest(body), mode)
	})
}

// checkMatchesTyped converts body both ways under the configuration mode
// picks and fails on any difference.
func checkMatchesTyped(t *testing.T, body []byte, mode byte) {
	t.Helper()
	cfg := diffConfigs[int(mode)%len(diffConfigs)]
	s := testSettings()
	s.Parse.Tags = []string{"thinking"}
	if mode&0x80 != 0 {
		s.Parse.Tags = []string{"think"}
	}
	if mode&0x40 != 0 {
		s.DefaultThinking = false
	}
	opts := providers.ExchangeOptions{}
	if mode&0x20 != 0 {
		opts.Path = "/v1/messages/count_tokens"
	}
	parsed, perr := wire.ParseRequest(body)
	if perr != nil {
		return
	}
	want, wantState, werr := convertTyped(providers.NewExchange(s, parsed, body, opts), cfg)
	for _, read := range []func([]byte) (*wire.Request, error){wire.ScanRequest, wire.ParseRequest} {
		req, err := read(body)
		if err != nil {
			t.Fatalf("body %s: read again: %v", body, err)
		}
		got, gotState, gerr := ConvertRequest(providers.NewExchange(s, req, body, opts), cfg)
		if (werr == nil) != (gerr == nil) || werr != nil && fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("body %s\ntyped: %v\nfrom bytes: %v", body, werr, gerr)
		}
		if werr != nil {
			continue
		}
		if string(got) != string(want) {
			t.Fatalf("body %s\nfrom bytes:\n%s\ntyped:\n%s", body, got, want)
		}
		if !maps.Equal(*gotState, *wantState) {
			t.Fatalf("tool names differ")
		}
	}
}
