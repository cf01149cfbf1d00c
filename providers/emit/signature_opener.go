package emit

import (
	"bytes"
	"crypto/hmac"
	"encoding/base64"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// Opener is Signer.Open for the many thinking blocks of one history, read
// from the client's bytes: it reuses one MAC per key and its buffers
// instead of copying each block's text and setting up an HMAC for it.
// It is not safe for concurrent use.
type Opener struct {
	macs    []*blockMAC // the signer's key, then its previous ones
	foreign []byte
	want    []byte
}

// NewOpener returns an Opener for s (nil: one that opens nothing).
func (s *Signer) NewOpener() *Opener {
	o := &Opener{}
	if s != nil {
		o.macs = append(o.macs, s.newBlockMAC())
		for _, p := range s.previous {
			o.macs = append(o.macs, p.newBlockMAC())
		}
	}
	return o
}

// Open is Signer.Open of sig and thinking's bytes. foreign is valid until
// the next call.
func (o *Opener) Open(sig, thinking []byte) (origin Origin, foreign []byte, ok bool) {
	if len(o.macs) == 0 || !wire.IsGatewaySignature(sig) {
		return 0, nil, false
	}
	rest := sig[len(wire.SignaturePrefix)+1:]
	if len(rest) < 1 || rest[0] != '.' {
		return 0, nil, false
	}
	rest = rest[1:]
	dot := bytes.LastIndexByte(rest, '.')
	if dot < 0 {
		return 0, nil, false
	}
	f, err := base64.RawURLEncoding.AppendDecode(o.foreign[:0], rest[:dot])
	if err != nil {
		return 0, nil, false
	}
	o.foreign = f
	origin = Origin(sig[len(wire.SignaturePrefix)])
	for _, m := range o.macs {
		m.Reset()
		m.Write(thinking)
		o.want = m.appendSignature(o.want[:0], origin, f)
		if hmac.Equal(o.want, sig) {
			return origin, f, true
		}
	}
	return 0, nil, false
}
