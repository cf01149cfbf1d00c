package eventstreamtest

import (
	"bytes"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// The frames decode with the SDK's decoder to the headers and payload given.
func TestFramesDecode(t *testing.T) {
	for _, tc := range []struct {
		frame                    []byte
		messageType, name, value string
		payload                  string
	}{
		{Event("messageStart", []byte(`{"role":"assistant"}`)), "event", ":event-type", "messageStart", `{"role":"assistant"}`},
		{Exception("throttlingException", "Slow down."), "exception", ":exception-type", "throttlingException", `{"message":"Slow down."}`},
	} {
		m, err := eventstream.NewDecoder().Decode(bytes.NewReader(tc.frame), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Headers.Get(":message-type"); got == nil || got.String() != tc.messageType {
			t.Errorf(":message-type %v, want %s", got, tc.messageType)
		}
		if got := m.Headers.Get(tc.name); got == nil || got.String() != tc.value {
			t.Errorf("%s %v, want %s", tc.name, got, tc.value)
		}
		if got := m.Headers.Get(":content-type"); got == nil || got.String() != "application/json" {
			t.Errorf(":content-type %v", got)
		}
		if string(m.Payload) != tc.payload {
			t.Errorf("payload %s, want %s", m.Payload, tc.payload)
		}
	}
}
