package openai

import "testing"

// TestConvertRequestFromBytesReaderRules: blocks the shared raw-block
// reader reads by encoding/json's rules (a source member repeated or null)
// or leaves to the typed converter (a member name in another case) give
// the typed converter's body, or its error, either way.
func TestConvertRequestFromBytesReaderRules(t *testing.T) {
	for _, body := range []string{
		`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA","Data":"BB"}}]}]}`,
		`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/a","url":null,"media_type":"a","media_type":"b"}}]}]}`,
		`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","data":"d","Type":"base64"}}]}]}`,
		`{"model":"m","max_tokens":5,"messages":[{"content":[{"text":"a","type":"text"}],"role":"user"}]}`,
	} {
		x, err := scannedExchange(t, testSettings(), []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _, gotErr := ConvertRequest(x, Config{})
		want, _, wantErr := convertTyped(exchange(t, testSettings(), body), Config{})
		if string(got) != string(want) || errText(gotErr) != errText(wantErr) {
			t.Errorf("%s:\nfrom bytes %s %v\ntyped      %s %v", body, got, gotErr, want, wantErr)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
