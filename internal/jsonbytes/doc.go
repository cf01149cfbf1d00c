// Package jsonbytes reads and writes JSON at the byte level, for the hot
// paths where encoding/json's reflection and whole-document validation
// cost too much: every byte of a translated stream's text passes through
// it twice (the end of its string on the way in, the escaper on the way
// out).
//
// Reading: StringEnd finds where a JSON string ends, refusing a raw
// control character as JSON does (the shaped SSE path and the request
// walk rely on that). Every scanner here ends a string by that one rule.
// ScanObject, ScanArray and ScanMembers walk an object or array without
// decoding it, checking structure only, as jsonparser does, but refusing
// a string with a raw control character, which jsonparser lets through;
// their first search in a string is a short run, cheaper than the vector
// search on the short strings of an upstream chunk. AppendUnescaped decodes a
// string's escapes as encoding/json does; ValidValue checks JSON as
// json.Valid does, for the request walk.
//
// Writing: AppendString and AppendStringBody escape a string the way
// encoding/json's Marshal does (HTML characters included), and Encode
// writes a value as json.Encoder with HTML escaping off does; both are the
// one escaper, told which characters to leave as they are.
//
// On amd64 the scanners use AVX2 where the CPU has it (scan_amd64.s);
// elsewhere, and with -tags purego, portable loops that the tests check
// against them.
package jsonbytes
