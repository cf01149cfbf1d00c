package openai

import "testing"

// TestPDFDocument: a base64 PDF document block becomes a file part with
// its data in a data: URL, between the text parts around it; alone, it is
// still a part list.
func TestPDFDocument(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"between texts",
			`[{"type":"text","text":"Read this."},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"},"title":"Spec"},{"type":"text","text":"Summarise it."}]`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Read this."},{"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"}},{"type":"text","text":"Summarise it."}]}],"max_tokens":1}`},
		{"alone",
			`[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0="}}]}],"max_tokens":1}`},
		{"with a text document",
			`[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"notes"},{"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0="}}]}],"max_tokens":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, nil, `{"model":"m","max_tokens":1,"thinking":false,"messages":[{"role":"user","content":`+tc.content+`}]}`)
			body, _, err := ConvertRequest(x, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if string(body) != tc.want {
				t.Errorf("got  %s\nwant %s", body, tc.want)
			}
		})
	}
}
