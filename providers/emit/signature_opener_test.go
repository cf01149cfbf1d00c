package emit

import (
	"bytes"
	"testing"
)

// TestOpenerMatchesOpen: the Opener accepts exactly the signatures
// Signer.Open accepts, with the same origin and foreign signature, across
// a key rotation.
func TestOpenerMatchesOpen(t *testing.T) {
	old := NewSigner([]byte("old-key"))
	cur := NewSigner([]byte("new-key"), []byte("old-key"))
	other := NewSigner([]byte("other-key"))
	sigs := []struct{ sig, thinking string }{
		{cur.Sign(OriginTags, "", "plan"), "plan"},
		{cur.Sign(OriginGemini, "R2Vt", "thought"), "thought"},
		{old.Sign(OriginGemini, "b2xk", "rotated"), "rotated"},
		{cur.Sign(OriginTags, "", "plan"), "plan, altered"},
		{other.Sign(OriginTags, "", "plan"), "plan"},
		{cur.Sign(OriginTags, "", ""), ""},
		{"EqQBCkgIARABGAIiQL", "anthropic's"},
		{"tg1t.", "x"}, {"tg1t..", "x"}, {"tg1tx.a.b", "x"}, {"tg1t.!!.abc", "x"}, {"", ""},
	}
	for _, s := range []*Signer{cur, old, nil} {
		o := s.NewOpener()
		for _, c := range sigs {
			origin, foreign, ok := s.Open(c.sig, c.thinking)
			gotOrigin, gotForeign, gotOK := o.Open([]byte(c.sig), []byte(c.thinking))
			if gotOK != ok || gotOrigin != origin || !bytes.Equal(gotForeign, []byte(foreign)) {
				t.Errorf("%q over %q: Opener %v %q %v, Open %v %q %v", c.sig, c.thinking, gotOrigin, gotForeign, gotOK, origin, foreign, ok)
			}
		}
	}
}
