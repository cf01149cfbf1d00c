// Package awsstream reads the AWS event-stream encoding
// (application/vnd.amazon.eventstream) that Amazon Q and Amazon Bedrock
// stream their answers in, and maps AWS errors, inside a stream or as a
// whole response, to the gateway's Anthropic errors.
//
// The framing and checksums are aws-sdk-go-v2's decoder; what this package
// adds is what an upstream body needs: frames arriving split anywhere,
// bounded buffering, a corrupt length caught before it is buffered, and a
// body that is not an event stream at all.
package awsstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// Frame layout: [total u32][headers u32][prelude crc u32] headers payload [crc u32].
const (
	preludeLen = 12
	minFrame   = 16
	// MaxFrame bounds one frame (AWS event-stream messages are at most
	// 16 MiB); a larger length is a corrupt prelude, not a reason to buffer.
	MaxFrame = 16 << 20
	// maxBodyQuote bounds a body that is not an event stream, kept for the
	// error message.
	maxBodyQuote = 1 << 20
)

// Message is one decoded event-stream message. Payload is valid only
// during the call that hands it over.
type Message struct {
	Headers eventstream.Headers
	Payload []byte
}

// Header returns the string header name, or "".
func (m Message) Header(name string) string {
	if v, ok := m.Headers.Get(name).(eventstream.StringValue); ok {
		return string(v)
	}
	return ""
}

// Decoder decodes an event stream written to it in pieces split anywhere,
// handing each whole message to its handler. Bytes are kept only while a
// frame is incomplete, so it holds at most one frame (MaxFrame).
type Decoder struct {
	// MaxFrame bounds one frame below the format's own MaxFrame (the
	// max_event_size option); 0 or more than MaxFrame means MaxFrame.
	MaxFrame int

	handle  func(Message) error
	dec     *eventstream.Decoder
	rd      bytes.Reader
	buf     []byte // the head of an incomplete frame, carried between Writes
	payload []byte // the decoder's payload buffer, reused
	checked bool   // the prelude CRC of the frame at the head of buf was checked
	frames  int
	sniffed bool
	notES   bool   // the body is not an event stream (a JSON error, say)
	body    []byte // that body, for the error message
	err     error  // what stopped the stream
}

// NewDecoder returns a decoder that calls handle for each message, in
// order. An error from handle stops the decoder and is returned by Write.
func NewDecoder(handle func(Message) error) *Decoder {
	return &Decoder{
		handle:  handle,
		dec:     eventstream.NewDecoder(),
		payload: make([]byte, 0, 4096),
	}
}

// Frames returns how many whole frames were decoded.
func (d *Decoder) Frames() int { return d.frames }

// Write takes upstream bytes as they arrive.
func (d *Decoder) Write(p []byte) error {
	if d.err != nil {
		return d.err
	}
	if len(p) == 0 {
		return nil
	}
	if !d.sniffed {
		d.sniffed = true
		// A frame starts with its big-endian length, at most 16 MiB, so its
		// first byte is 0 or 1; anything else ('{' above all) is not an
		// event stream.
		d.notES = p[0] > 1
	}
	if d.notES {
		if room := maxBodyQuote - len(d.body); room > 0 {
			d.body = append(d.body, p[:min(len(p), room)]...)
		}
		return nil
	}
	if len(d.buf) > 0 {
		d.buf = append(d.buf, p...)
		n, err := d.decodeFrames(d.buf)
		d.buf = d.buf[:copy(d.buf, d.buf[n:])]
		return d.fail(err)
	}
	// Whole frames are decoded straight from p; only an incomplete tail is copied.
	n, err := d.decodeFrames(p)
	if err != nil {
		return d.fail(err)
	}
	d.buf = append(d.buf, p[n:]...)
	return nil
}

// Close checks the end of the body: EOF inside a frame, before any frame,
// or of a body that was not an event stream is an error. Whether an
// upstream's stream may end after any whole frame is the caller's to
// decide.
func (d *Decoder) Close() error {
	switch {
	case d.err != nil:
		return d.err
	case d.notES:
		return d.fail(BodyError(d.body))
	case len(d.buf) > 0:
		return d.fail(Malformed(fmt.Sprintf("event stream ended inside a frame (%d bytes of it received)", len(d.buf))))
	case d.frames == 0:
		return d.fail(wire.APIError(http.StatusBadGateway, "upstream returned an empty event stream"))
	}
	return nil
}

func (d *Decoder) fail(err error) error {
	if err != nil {
		d.err = err
	}
	return err
}

// decodeFrames decodes the whole frames at the start of b and returns how
// many bytes they took.
func (d *Decoder) decodeFrames(b []byte) (int, error) {
	n := 0
	for {
		rest := b[n:]
		if len(rest) < 8 {
			return n, nil
		}
		total := binary.BigEndian.Uint32(rest)
		headers := binary.BigEndian.Uint32(rest[4:])
		if total < minFrame || total > MaxFrame || headers > total-minFrame {
			return n, Malformed(fmt.Sprintf("bad frame prelude (length %d, headers %d)", total, headers))
		}
		if limit := d.MaxFrame; limit > 0 && int(total) > limit {
			return n, ErrFrameTooLarge
		}
		if len(rest) < int(total) {
			if !d.checked && len(rest) >= preludeLen {
				// Check the prelude CRC now, so a corrupt length is caught
				// at once rather than after buffering up to 16 MiB.
				if err := d.checkPrelude(rest[:preludeLen]); err != nil {
					return n, err
				}
				d.checked = true
			}
			return n, nil
		}
		if err := d.decodeFrame(rest[:total]); err != nil {
			return n, err
		}
		d.checked = false
		n += int(total)
	}
}

// checkPrelude runs the decoder over a frame's first 12 bytes: it verifies
// the prelude CRC before it needs the rest, and then stops at the end of the
// input.
func (d *Decoder) checkPrelude(prelude []byte) error {
	d.rd.Reset(prelude)
	_, err := d.dec.Decode(&d.rd, d.payload[:0])
	if errors.As(err, new(eventstream.ChecksumError)) {
		return Malformed("frame prelude checksum mismatch")
	}
	return nil
}

func (d *Decoder) decodeFrame(frame []byte) error {
	d.rd.Reset(frame)
	msg, err := d.dec.Decode(&d.rd, d.payload[:0])
	if err != nil {
		if errors.As(err, new(eventstream.ChecksumError)) {
			return Malformed("frame checksum mismatch")
		}
		return Malformed("undecodable frame: " + err.Error())
	}
	if d.rd.Len() != 0 {
		return Malformed("frame headers overrun their length")
	}
	if cap(msg.Payload) > cap(d.payload) {
		d.payload = msg.Payload[:0]
	}
	d.frames++
	return d.handle(Message{Headers: msg.Headers, Payload: msg.Payload})
}

// ErrFrameTooLarge reports a frame longer than Decoder.MaxFrame.
var ErrFrameTooLarge = wire.APIError(http.StatusBadGateway, "upstream event-stream event too large")

// Malformed is the error for an event stream the gateway cannot read.
func Malformed(msg string) *wire.Error {
	return wire.APIError(http.StatusBadGateway, "malformed upstream event stream: "+msg)
}
