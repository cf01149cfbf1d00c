package wire

import "testing"

func TestSearchResultSource(t *testing.T) {
	r, err := ParseRequest([]byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"search_result","source":"https://example.com","title":"t","content":[{"type":"text","text":"x"}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b := r.Messages[0].Content.Blocks[0]
	if b.Source.Type != "string" || b.Source.URL != "https://example.com" {
		t.Fatal(b.Source)
	}
}
