package caddymodule

import (
	"bytes"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/providers"
)

// usageScanner reads the usage of an Anthropic-format response the gateway
// passes through untouched (the anthropic and azure providers without
// split_tags), so that a named client's token limits count it as they
// count a translated one. It keeps at most maxUsageLine bytes: a stream's
// current line (usage lines are short; a longer line is skipped), or the
// end of a Message body, where its usage is.
type usageScanner struct {
	x      *providers.Exchange
	stream bool
	buf    []byte
	skip   bool // the current stream line is over the bound
	// sentBytes is the content a translated stream sent (cutusage.go).
	sentBytes int64
}

const maxUsageLine = 64 << 10

var (
	dataPrefix = []byte("data:")
	usageKey   = []byte(`"usage"`)
)

// write takes the next bytes of the body.
func (s *usageScanner) write(p []byte) {
	if !s.stream {
		s.buf = append(s.buf, p...)
		if len(s.buf) > maxUsageLine {
			s.buf = append(s.buf[:0], s.buf[len(s.buf)-maxUsageLine:]...)
		}
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.keep(p)
			return
		}
		s.keep(p[:i])
		if !s.skip {
			s.line(s.buf)
		}
		s.buf, s.skip = s.buf[:0], false
		p = p[i+1:]
	}
}

// end reads a Message body's usage once the body is complete: its last
// "usage" member (a Message's own follows its content).
func (s *usageScanner) end() {
	if s.stream {
		return
	}
	i := bytes.LastIndex(s.buf, usageKey)
	if i < 0 {
		return
	}
	rest := bytes.TrimLeft(s.buf[i+len(usageKey):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return
	}
	if u, typ, _, err := jsonparser.Get(rest[1:]); err == nil && typ == jsonparser.Object {
		s.x.Usage = mergeUsage(u, s.x.Usage)
	}
}

func (s *usageScanner) keep(p []byte) {
	if s.skip || len(s.buf)+len(p) > maxUsageLine {
		s.skip, s.buf = true, s.buf[:0]
		return
	}
	s.buf = append(s.buf, p...)
}

// line reads a stream line: message_start's and message_delta's usage.
func (s *usageScanner) line(l []byte) {
	l = bytes.TrimSuffix(l, []byte("\r"))
	if !bytes.HasPrefix(l, dataPrefix) || !bytes.Contains(l, usageKey) {
		return
	}
	data := l[len(dataPrefix):]
	typ, _ := jsonparser.GetString(data, "type")
	path := []string{"usage"}
	if typ == "message_start" {
		path = []string{"message", "usage"}
	} else if typ != "message_delta" {
		return
	}
	if u, _, _, err := jsonparser.Get(data, path...); err == nil {
		s.x.Usage = mergeUsage(u, s.x.Usage)
	}
}

// mergeUsage updates prev with the counts u gives.
func mergeUsage(u []byte, prev providers.Usage) providers.Usage {
	get := func(k string, old int64) int64 {
		if n, err := jsonparser.GetInt(u, k); err == nil {
			return n
		}
		return old
	}
	return providers.Usage{
		InputTokens:              get("input_tokens", prev.InputTokens),
		OutputTokens:             get("output_tokens", prev.OutputTokens),
		CacheCreationInputTokens: get("cache_creation_input_tokens", prev.CacheCreationInputTokens),
		CacheReadInputTokens:     get("cache_read_input_tokens", prev.CacheReadInputTokens),
	}
}
