package azure

import (
	"testing"

	"github.com/buger/jsonparser"
)

// TestCleanMessageInPlace: a message whose blocks are dropped is the
// message with its content array replaced where it stands, spacing around
// it kept, as jsonparser.Set writes it.
func TestCleanMessageInPlace(t *testing.T) {
	msg := []byte(`{ "role" : "assistant" , "content" :  [ {"type":"thinking","thinking":"t"} , {"type":"text","text":"x"} ]  , "z" : 1 }`)
	want, err := jsonparser.Set(msg, []byte(`[{"type":"text","text":"x"}]`), "content")
	if err != nil {
		t.Fatal(err)
	}
	var ch Changes
	got, _, keep, changed, err := appendCleanMessage([]byte("prefix"), nil, msg, &ch)
	if err != nil || !keep || !changed || string(got) != "prefix"+string(want) || ch.Thinking != 1 {
		t.Errorf("got %s (keep %v changed %v err %v, %+v)\nwant prefix%s", got, keep, changed, err, ch, want)
	}
}
