package openai

import (
	"fmt"
	"strings"
)

// pdfFilename names every PDF sent as a file part: Anthropic's document
// block has no file name, and Chat Completions wants one.
const pdfFilename = "document.pdf"

// checkDocument reports a document block, block j of message i, with no
// Chat Completions form: a plain-text document is text and a base64 PDF a
// file part; a URL source is refused rather than fetched (the gateway
// fetches nothing), and so are other sources and media types.
func checkDocument(blk *rawBlock, i, j int) error {
	src := &blk.Source
	st := "missing"
	if src.Present {
		st = sourceType(src)
		switch {
		case st == "text", isPDF(blk):
			return nil
		case st == "url":
			return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j),
				"document block with a url source (the gateway fetches nothing: send the document as base64 data or text)")
		}
		st += " " + src.MediaType.TextString()
	}
	return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("document block (source %s)", strings.TrimSpace(st)))
}

// isPDF reports a document block holding a base64 PDF.
func isPDF(blk *rawBlock) bool {
	src := &blk.Source
	return src.Present && sourceType(src) == "base64" && src.MediaType.TextString() == "application/pdf"
}

// file writes a PDF document block as a file part with its data in a
// data: URL.
func (w *partWriter) file(blk *rawBlock) {
	b := w.b
	w.end()
	if w.parts > 0 {
		b.out = append(b.out, ',')
	}
	w.parts++
	b.out = append(b.out, `{"type":"file","file":{"filename":"`+pdfFilename+`","file_data":"data:application/pdf;base64,`...)
	b.appendStr(blk.Source.Data)
	b.out = append(b.out, `"}}`...)
}
