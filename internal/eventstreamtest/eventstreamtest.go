// Package eventstreamtest encodes AWS event-stream messages for tests, with
// aws-sdk-go-v2's encoder, as Bedrock and Amazon Q send them. It imports
// nothing of Caddy, so provider tests can use it.
package eventstreamtest

import (
	"bytes"
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// headerOrder is the order Bedrock writes its headers in.
var headerOrder = []string{":event-type", ":exception-type", ":content-type", ":message-type"}

// Frame encodes one message with the string headers given (those of
// headerOrder, in that order) and payload.
func Frame(headers map[string]string, payload []byte) []byte {
	var h eventstream.Headers
	for _, k := range headerOrder {
		if v, ok := headers[k]; ok {
			h.Set(k, eventstream.StringValue(v))
		}
	}
	var b bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: h, Payload: payload}); err != nil {
		panic(err) // only for headers or payloads beyond the format's limits
	}
	return b.Bytes()
}

// Event is an event message of type eventType with a JSON payload.
func Event(eventType string, payload []byte) []byte {
	return Frame(map[string]string{":event-type": eventType, ":content-type": "application/json", ":message-type": "event"}, payload)
}

// Exception is an exception message, named as a stream spells it
// (throttlingException), with the {"message":…} payload.
func Exception(exceptionType, message string) []byte {
	payload, _ := json.Marshal(map[string]string{"message": message})
	return Frame(map[string]string{":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception"}, payload)
}
