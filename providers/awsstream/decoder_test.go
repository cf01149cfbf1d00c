package awsstream

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// frame encodes one message with the SDK's encoder.
func frame(t testing.TB, headers map[string]string, payload string) []byte {
	t.Helper()
	var h eventstream.Headers
	for k, v := range headers {
		h.Set(k, eventstream.StringValue(v))
	}
	return eventstreamtest.Encode(h, []byte(payload))
}

func event(t testing.TB, typ, payload string) []byte {
	return frame(t, map[string]string{":message-type": "event", ":event-type": typ}, payload)
}

// collect decodes data written in pieces of n bytes and returns
// "type:payload" per message, and the errors of Write and Close.
func collect(data []byte, n int) (got []string, werr, cerr error) {
	d := NewDecoder(func(m Message) error {
		if err := Exception(m); err != nil {
			return err
		}
		got = append(got, m.Header(":event-type")+":"+string(m.Payload))
		return nil
	})
	for len(data) > 0 && werr == nil {
		k := min(n, len(data))
		werr = d.Write(data[:k])
		data = data[k:]
	}
	cerr = d.Close()
	return got, werr, cerr
}

func TestDecoderSplitAnywhere(t *testing.T) {
	data := append(event(t, "chunk", `{"bytes":"YQ=="}`), event(t, "chunk", `{"bytes":"Yg=="}`)...)
	want := []string{`chunk:{"bytes":"YQ=="}`, `chunk:{"bytes":"Yg=="}`}
	for n := 1; n <= len(data); n++ {
		got, werr, cerr := collect(data, n)
		if werr != nil || cerr != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("pieces of %d: %q, %v, %v", n, got, werr, cerr)
		}
	}
}

func TestDecoderEnds(t *testing.T) {
	whole := event(t, "chunk", `{}`)
	corrupt := append([]byte(nil), whole...)
	corrupt[len(corrupt)-1] ^= 1
	huge := append([]byte(nil), whole...)
	huge[0] = 1 // 16 MiB + a little
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "upstream returned an empty event stream"},
		{"cut inside a frame", string(whole[:len(whole)-3]), "malformed upstream event stream: event stream ended inside a frame (" + strconv.Itoa(len(whole)-3) + " bytes of it received)"},
		{"checksum", string(corrupt), "malformed upstream event stream: frame checksum mismatch"},
		{"length past the bound", string(huge), "malformed upstream event stream: bad frame prelude (length 16777276, headers 42)"},
		{"not an event stream", `{"message":"slow down","__type":"ThrottlingException"}`, "ThrottlingException: slow down"},
		{"html", "<html>bad gateway</html>", "upstream answered without an event stream: <html>bad gateway</html>"},
	} {
		_, werr, cerr := collect([]byte(tc.data), 7)
		err := cerr
		if werr != nil {
			err = werr
		}
		var e *wire.Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Message, tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestException(t *testing.T) {
	for _, tc := range []struct {
		name         string
		headers      map[string]string
		payload      string
		status       int
		typ, message string
	}{
		{"bedrock throttling", map[string]string{":message-type": "exception", ":exception-type": "throttlingException"},
			`{"message":"Too many requests"}`, 429, "rate_limit_error", "ThrottlingException: Too many requests"},
		{"bedrock input too long", map[string]string{":message-type": "exception", ":exception-type": "validationException"},
			`{"message":"Input is too long for requested model."}`, 400, "invalid_request_error", "prompt is too long: Input is too long for requested model. (ValidationException)"},
		{"model stream error", map[string]string{":message-type": "exception", ":exception-type": "modelStreamErrorException"},
			`{"message":"boom","originalStatusCode":500}`, 502, "api_error", "ModelStreamErrorException: boom"},
		{"amazon q too long", map[string]string{":message-type": "exception", ":exception-type": "ValidationException"},
			`{"message":"Input is too big","reason":"CONTENT_LENGTH_EXCEEDS_THRESHOLD"}`, 400, "invalid_request_error", "prompt is too long: Input is too big (ValidationException: CONTENT_LENGTH_EXCEEDS_THRESHOLD)"},
		{"unknown", map[string]string{":message-type": "exception", ":exception-type": "weirdException"},
			`plain words`, 502, "api_error", "WeirdException: plain words"},
		{"error message", map[string]string{":message-type": "error", ":error-code": "InternalFailure", ":error-message": "oops"},
			``, 502, "api_error", "InternalFailure: oops"},
	} {
		e := Exception(Message{Headers: decodeHeaders(t, tc.headers), Payload: []byte(tc.payload)})
		if e == nil || e.Status != tc.status || e.Type != tc.typ || e.Message != tc.message {
			t.Errorf("%s: %+v", tc.name, e)
		}
	}
	if e := Exception(Message{Headers: decodeHeaders(t, map[string]string{":message-type": "event"})}); e != nil {
		t.Errorf("an event is an exception: %+v", e)
	}
}

func decodeHeaders(t *testing.T, m map[string]string) eventstream.Headers {
	var h eventstream.Headers
	for k, v := range m {
		h.Set(k, eventstream.StringValue(v))
	}
	return h
}

func TestUpstreamError(t *testing.T) {
	h := http.Header{"X-Amzn-Errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}, "Retry-After": {"3"}}
	e := UpstreamError(400, h, []byte(`{"message":"messages: field required"}`))
	if e.Status != 400 || e.Type != "invalid_request_error" || e.Message != "ValidationException: messages: field required" || e.RetryAfter != "3" {
		t.Errorf("%+v", e)
	}
	e = UpstreamError(403, nil, []byte(`{"Message":"The security token included in the request is invalid.","__type":"com.amazon.coral.service#UnrecognizedClientException"}`))
	if e.Status != 403 || e.Message != "UnrecognizedClientException: The security token included in the request is invalid." {
		t.Errorf("%+v", e)
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add(append(event(f, "chunk", `{"bytes":"YQ=="}`), event(f, "x", `{}`)...), uint8(3))
	f.Add([]byte(`{"message":"x"}`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		var total int
		d := NewDecoder(func(m Message) error {
			total += len(m.Payload)
			_ = Exception(m)
			return nil
		})
		step := int(n%16) + 1
		for len(data) > 0 {
			k := min(step, len(data))
			if d.Write(data[:k]) != nil {
				break
			}
			data = data[k:]
		}
		_ = d.Close()
		if len(d.buf) > MaxFrame {
			t.Fatalf("held %d bytes", len(d.buf))
		}
	})
}

// A frame longer than the configured bound (max_event_size) ends the
// stream before it is buffered whole; one within it passes.
func TestDecoderMaxFrame(t *testing.T) {
	small := event(t, "chunk", `{"bytes":"YQ=="}`)
	big := event(t, "chunk", `{"bytes":"`+strings.Repeat("A", 200)+`"}`)
	var got int
	d := NewDecoder(func(Message) error { got++; return nil })
	d.MaxFrame = len(small) + 10
	if err := d.Write(small); err != nil || got != 1 {
		t.Fatalf("a frame within the bound: %v, %d messages", err, got)
	}
	err := d.Write(big[:20])
	if err != ErrFrameTooLarge {
		t.Fatalf("a frame past the bound: %v", err)
	}
	if e := d.Close(); e != ErrFrameTooLarge {
		t.Fatalf("Close after it: %v", e)
	}
	if ErrFrameTooLarge.Status != 502 || string(ErrFrameTooLarge.Body()) != `{"type":"error","error":{"type":"api_error","message":"upstream event-stream event too large"}}` {
		t.Fatalf("%d %s", ErrFrameTooLarge.Status, ErrFrameTooLarge.Body())
	}
}
