package caddymodule

import (
	"bytes"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/providers"
)

// passthroughReader reads a response the gateway passes through untouched
// (the anthropic and azure providers without split_tags) once, for all
// that need it: the request's span (tracing.go) and a named client's token
// limits, which count a passed-through response's usage as they count a
// translated one. Both therefore see the same numbers. The bytes it reads
// are the ones the client gets: the gateway drops the client's
// Accept-Encoding (thinkgate.go), so the transport asks for gzip itself
// and hands over the body decompressed.
type passthroughReader struct {
	x *providers.Exchange
	// read is the span's reading, or the reader's own when no span records.
	read  *responseReading
	trace *exchangeTrace // nil when the span does not record
	// count: a named client counts the usage (only a 2xx's).
	count  bool
	status int
	stream bool
	// body is a whole body: all of it, up to maxObservedBody, while a span
	// reads it; past that bound, or without a span, only its last
	// maxUsageTail bytes, where a Message's usage is.
	body []byte
	tail bool
}

// maxObservedBody bounds the passed-through non-streaming body kept whole
// to read its id, stop reason, content and usage for the span.
const maxObservedBody = 1 << 20

// maxUsageTail bounds the end of a body kept to read only its usage.
const maxUsageTail = 64 << 10

var usageKey = []byte(`"usage"`)

// newPassthroughReader returns the reader of a response with status, or
// nil when nothing reads it.
func newPassthroughReader(x *providers.Exchange, trace *exchangeTrace, count bool, status int) *passthroughReader {
	count = count && status < 300
	if trace == nil && !count {
		return nil
	}
	r := &passthroughReader{x: x, trace: trace, count: count, status: status, stream: x.Streaming}
	if trace != nil {
		r.read = &trace.responseReading
	} else {
		r.read = &responseReading{partIdx: -1}
		r.tail = true
	}
	return r
}

// write takes the next bytes of the body.
func (r *passthroughReader) write(p []byte) {
	if r.stream {
		r.read.observeEvents(p)
		return
	}
	if !r.tail {
		if len(r.body)+len(p) <= maxObservedBody {
			r.body = append(r.body, p...)
			return
		}
		// Past the bound only a Message's usage is read, from its end.
		r.tail, r.body = true, bytes.Clone(r.body[max(0, len(r.body)-maxUsageTail):])
	}
	if r.status >= 300 {
		r.body = nil // an error's body is read whole or not at all
		return
	}
	r.body = append(r.body, p...)
	if len(r.body) > maxUsageTail {
		r.body = append(r.body[:0], r.body[len(r.body)-maxUsageTail:]...)
	}
}

// end reads a whole body once it is complete and hands the usage to the
// named client's count.
func (r *passthroughReader) end() {
	switch {
	case r.stream:
	case !r.tail && r.status < 300:
		r.read.observeMessage(r.body)
	case !r.tail:
		if s, err := jsonparser.GetString(r.body, "error", "type"); err == nil && r.trace.errType == "" {
			r.trace.errType = s
		}
	case r.status < 300:
		if u := lastUsage(r.body); u != nil {
			r.read.observeUsage(u)
		}
	}
	r.body = nil
	if r.count && r.read.sawUsage {
		r.x.Usage = r.read.usage
	}
}

// lastUsage returns the object of the last "usage" member in the end of a
// Message body: the Message's own, which follows its content.
func lastUsage(tail []byte) []byte {
	i := bytes.LastIndex(tail, usageKey)
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(tail[i+len(usageKey):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return nil
	}
	if u, typ, _, err := jsonparser.Get(rest[1:]); err == nil && typ == jsonparser.Object {
		return u
	}
	return nil
}
