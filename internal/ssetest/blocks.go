package ssetest

import "fmt"

// The expected lines of Summary for whole content blocks, each sent as one
// delta, and the usage object of message_delta; a test builds a stream's
// expected summary from them with Seq.

// UsageJSON is the usage object Summary shows for these token counts.
func UsageJSON(in, out, cacheRead int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":%d}`, in, cacheRead, out)
}

// ThinkingBlock is a thinking block at index i with its signature.
func ThinkingBlock(i int, text, signature string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"thinking","thinking":""}`, i),
		fmt.Sprintf("thinking_delta %d %s", i, Quote(text)),
		fmt.Sprintf("signature_delta %d %s", i, Quote(signature)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

// RedactedBlock is a redacted_thinking block at index i.
func RedactedBlock(i int, data string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"redacted_thinking","data":%s}`, i, Quote(data)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

// TextBlock is a text block at index i.
func TextBlock(i int, text string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"text","text":""}`, i),
		fmt.Sprintf("text_delta %d %s", i, Quote(text)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

// ToolBlock is a tool_use block at index i whose input comes in one delta.
func ToolBlock(i int, id, name, input string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"tool_use","id":%s,"name":%s,"input":{}}`, i, Quote(id), Quote(name)),
		fmt.Sprintf("input_json_delta %d %s", i, Quote(input)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

// Seq joins the lines of parts.
func Seq(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// WriteSizes are the upstream write sizes a provider's streams are tested
// with: byte by byte, across every boundary, and whole.
var WriteSizes = []int{1, 2, 3, 7, 64, 1 << 20}
