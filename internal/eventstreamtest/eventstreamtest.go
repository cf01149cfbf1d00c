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
	return Encode(h, payload)
}

// Encode encodes one message with headers in their order and payload.
func Encode(headers eventstream.Headers, payload []byte) []byte {
	var b bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: headers, Payload: payload}); err != nil {
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

// AmazonQEvent is an event message as Amazon Q sends it: the same headers as
// Event's, :message-type first.
func AmazonQEvent(eventType string, payload []byte) []byte {
	return Encode(eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("event")},
		{Name: ":event-type", Value: eventstream.StringValue(eventType)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
	}, payload)
}

// AmazonQException is an exception message as Amazon Q sends it, with the
// payload given.
func AmazonQException(exceptionType string, payload []byte) []byte {
	return Encode(eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("exception")},
		{Name: ":exception-type", Value: eventstream.StringValue(exceptionType)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
	}, payload)
}
