// Package sse decodes an upstream's Server-Sent Events stream as it
// arrives, split anywhere: Decoder calls a Handler for each complete event,
// bounded in line and event size (ErrLineTooLong, ErrEventTooLarge, both
// 502 api_error errors the emitter reports). WriteShaped adds a fast path
// for the long run of delta events that differ only in one string: a
// translator records the Shape of one, and the rest reach it as that
// string alone, without SSE or JSON parsing.
//
// Writing the client's Anthropic events is not here: that is the emitter's,
// in package providers.
package sse
