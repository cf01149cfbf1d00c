package azure

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// signedHistorySeeds are histories the scan takes whole (true) or leaves
// to the walk (false).
var signedHistorySeeds = map[string]bool{
	`{"model":"claude-x","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQBCkYIBxgCKkB"},{"type":"redacted_thinking","data":"EmwKAhgB"},{"type":"text","text":"a"}]}],"thinking":{"type":"enabled","budget_tokens":2048}}`: true,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]}],"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":{}}}]}`:                                                                                                   true,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t"}]},{"role":"user","content":"q"}],"thinking":{"type":"enabled"}}`:                                                                                                                                     false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":""}]}]}`:                                                                                                                                                                                  false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"tg1t.a.b"}]}]}`:                                                                                                                                                                          false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"a\/b"}]}]}`:                                                                                                                                                                              false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thin\u006bing","thinking":"t","signature":"s"}]}]}`:                                                                                                                                                                            false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"redacted_thinking","data":""}]}]}`:                                                                                                                                                                                             false,
	`{"model":"m","messages":[{"role":"user","content":" \n"}]}`:                                                                                                                                                                                                                                     false,
	`{"model":"m","messages":[{"role":"user","content":"\u00a0"}]}`:                                                                                                                                                                                                                                  false,
	`{"model":"m","messages":[{"role":"user","content":[]}]}`:                                                                                                                                                                                                                                        false,
	`{"model":"m","messages":[{"role":"user"}]}`: false,
	`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"user","content":"  "}],"system":[{"type":"thinking","thinking":"s"}]}`: false,
	`{"model":"m","messages":[{"role":"user","content":"q"}],"system":[{"type":"thinking","thinking":"s"}]}`:                                true,
	// Messages encoding/json reads otherwise than the cleaner's walk (by
	// the first member named exactly content) are left to the walk.
	`{"model":"m","messages":[{"Role":"user","content":"q"}]}`:                                   false,
	`{"model":"m","messages":[{"role":"user","Content":"q"}]}`:                                   false,
	`{"model":"m","messages":[{"role":"user","role":"user","content":"q"}]}`:                     false,
	`{"model":"m","messages":[{"role":"user","content":"q","x":1}]}`:                             true,
	`{"model":"m","messages":[{"Role":"user","CONTENT":"q"}]}`:                                   false,
	`{"model":"m","messages":[{"role":"user","content":"q","content":null}]}`:                    false,
	`{"model":"m","messages":[{"role":"user","content":"q","content":" "}]}`:                     false,
	`{"model":"m","messages":[{"role":"user","content":" ","c\u006fntent":"q"}]}`:                false,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"thinking"}],"content":"q"}]}`:   false,
	`{"model":"m","messages":[{"role":"user","content":"q","Content":[{"type":"thinking"}]}]}`:   false,
	`{"model":"m","messages":[{"role":"user","content":null,"role":"assistant","content":"q"}]}`: false,
	// Blocks encoding/json reads otherwise than the cleaner's walk (by the
	// first member named exactly type, signature or data) are taken whole
	// only when the walk cannot take one for thinking.
	`{"model":"m","messages":[{"role":"assistant","content":[{"Type":"text","text":null,"text":"a"}]}]}`:                   true,
	`{"model":"m","messages":[{"role":"assistant","content":[{"Type":"thinking","thinking":"t"}]}]}`:                       true,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"text","TYPE":"thinking","Signature":""}]}]}`:         true,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"","signature":"EqQB"}]}]}`:    false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","Signature":"EqQB"}]}]}`:                   false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","signature":"EqQB","signature":null}]}]}`:  false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"Type":"text","type":"redacted_thinking","data":"EmwK"}]}]}`: false,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwK","DATA":""}]}]}`:     false,
	`{"MODEL":"m","messages":[{"role":"user","content":"q"}],"model":null,"stream":null}`:                                  true,
}

// TestSignedHistory: the scan takes a history whole only where the walk
// would drop nothing.
func TestSignedHistory(t *testing.T) {
	for body, want := range signedHistorySeeds {
		req, err := wire.ScanRequest([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if got := req.SignedHistory(); got != want {
			t.Errorf("%s: SignedHistory() = %v, want %v", body, got, want)
		}
		cleanTrustingScan(t, []byte(body))
	}
}

// cleanTrustingScan cleans a scanned body taking the scan's word for its
// history and walking it, and fails on any difference.
func cleanTrustingScan(t *testing.T, body []byte) {
	t.Helper()
	if req, err := wire.ScanRequest(body); err == nil {
		cleanToggled(t, req, body, &keepHistory, "scan's word", "walked")
	}
}

// FuzzCleanSignedHistory: cleanTrustingScan for any request.
func FuzzCleanSignedHistory(f *testing.F) {
	for s := range signedHistorySeeds {
		f.Add([]byte(s))
	}
	for _, s := range append(append(append([]string(nil), oneBufferSeeds...), cleanSeeds...), fuzzcheck.Seeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(cleanTrustingScan)
}
