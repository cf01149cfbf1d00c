package gemini

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// googleError is Google's error body: {"error":{"code","message","status","details"}}.
type googleError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`
		RetryDelay string `json:"retryDelay"`
	} `json:"details"`
}

// parseGoogleError reads an error body, also in the array form
// streamGenerateContent uses without alt=sse.
func parseGoogleError(body []byte) (*googleError, bool) {
	body = bytes.TrimSpace(body)
	var env struct {
		Error *googleError `json:"error"`
	}
	if len(body) > 0 && body[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(body, &list) != nil || len(list) == 0 {
			return nil, false
		}
		body = list[0]
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil || env.Error.Message == "" {
		return nil, false
	}
	return env.Error, true
}

// UpstreamError maps a Gemini error response to an Anthropic error. The HTTP
// status decides the type, with two Gemini quirks put right: an invalid API
// key comes as 400 INVALID_ARGUMENT (reason API_KEY_INVALID) and becomes 401
// authentication_error; 503 UNAVAILABLE ("The model is overloaded") becomes
// 529 overloaded_error, what Anthropic clients expect for that condition. A
// RetryInfo delay becomes Retry-After when the upstream sent none.
func UpstreamError(status int, header http.Header, body []byte) *wire.Error {
	g, ok := parseGoogleError(body)
	if !ok {
		return wire.DefaultUpstreamError(status, header, body)
	}
	e := mapGoogleError(status, g)
	if header != nil {
		e.RetryAfter = header.Get("Retry-After")
	}
	if e.RetryAfter == "" {
		e.RetryAfter = retryAfter(g)
	}
	return e
}

// mapGoogleError maps an error with the HTTP status it came with (0 when it
// came inside a 200 stream: then its own code counts).
func mapGoogleError(status int, g *googleError) *wire.Error {
	if status == 0 || status == http.StatusOK {
		status = g.Code
		if status < 400 {
			status = http.StatusInternalServerError
		}
	}
	e := &wire.Error{Status: status, Type: wire.ErrorTypeForStatus(status), Message: g.Message}
	switch {
	case apiKeyInvalid(g):
		e.Status, e.Type = http.StatusUnauthorized, "authentication_error"
	case status == http.StatusServiceUnavailable || g.Status == "UNAVAILABLE":
		e.Status, e.Type = 529, "overloaded_error"
	}
	return e
}

func apiKeyInvalid(g *googleError) bool {
	for _, d := range g.Details {
		if d.Reason == "API_KEY_INVALID" {
			return true
		}
	}
	return g.Status == "UNAUTHENTICATED"
}

// retryAfter turns a google.rpc.RetryInfo delay ("37s", "1.5s") into whole seconds.
func retryAfter(g *googleError) string {
	for _, d := range g.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") || d.RetryDelay == "" {
			continue
		}
		dur, err := time.ParseDuration(d.RetryDelay)
		if err != nil || dur < 0 {
			continue
		}
		secs := int64((dur + time.Second - 1) / time.Second)
		return strconv.FormatInt(secs, 10)
	}
	return ""
}
