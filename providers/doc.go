// Package providers is the contract a provider package (providers/<name>)
// is written against: Provider, Translator, Handling, Exchange, Outbound
// and Settings, with the helpers providers share (model renaming, effort
// and output_config, headers and query, count_tokens bodies). It is the
// one package doc a provider author reads; two leaf packages hold the
// rest. providers/wire is the Anthropic Messages API as the client speaks
// it: the Request and its parse and scan, the HistoryReader that reads a
// history from the body's bytes, Anthropic's request rules, tool names,
// and Error (the API's error, which the stream decoders providers/sse and
// providers/awsstream return too). providers/emit is the Anthropic event
// grammar: the Emitter with its two outputs (an SSE stream, a whole
// Message) and the Signer of the gateway's thinking blocks. None of the
// three has Caddy in it: caddymodule wires them into Caddy, so a provider
// is tested and benchmarked alone.
//
// A provider implements Provider. It holds only its configuration (its
// own Config type, whose JSON tags are the provider's part of the Caddy
// config and whose Validate is the one check of it); everything about one
// request lives in the Exchange (the parsed Request, the shared Settings,
// the model names, the logger) and in the Translator its Rewrite returns.
// A provider plugs in at that one place: when the upstream's status and
// headers arrive, the Translator's Handle says how the body is handled (a
// Handling): passed through, a stream translated as it flows, a whole
// body translated, or an error mapped. For a stream the provider hands
// over a constructor of its StreamTranslator (Handling.NewStream); the
// gateway makes the emitter with its sink in one call
// (emit.NewStreamEmitter),
// the translator on it, and flushes the emitter after every Write. The
// sink gets the events with the stream's StreamStatus, so nothing asks the
// stream back; Emitter.Abort alone decides how a failing stream ends (an
// HTTP error before anything was sent, an error event after).
// The request side converts the client's Anthropic request, a
// wire.Request that wire.ParseRequest or wire.ScanRequest read and that shares the memory of the body, into
// the upstream's: body, path, query and headers (StripClientHeaders and
// ClientQuery decide what of the client's may pass).
//
// The response side never writes Anthropic events itself. It hands
// content to an emit.Emitter (Text, Thinking, ToolUseStart, ToolInput, Finish,
// Fail …), which alone owns the event grammar: block indexes, starts and
// stops, merging and splitting of deltas, signatures. The same Emitter
// made by emit.NewCollector builds a non-streaming Message instead. Thinking
// tags in the model's text go through thinkparse, whose sink is the
// Emitter. Thinking blocks the gateway creates are signed with the Signer
// in Settings, so that they can be recognised when the client sends them
// back in its history.
//
// Errors the client sees are *wire.Error values, already in Anthropic's shape
// (type and message, with the HTTP status); upstream errors are mapped into
// them.
//
// Two packages do the byte-level work: providers/sse decodes an upstream's
// event stream as it arrives (with a fast path for runs of delta events of
// one shape), and internal/jsonbytes scans, unescapes and writes JSON
// without encoding/json's reflection on the hot paths. The invariants every
// provider's tests check, its fuzz targets included, are in
// internal/fuzzcheck; golden files are compared by internal/golden.
package providers
