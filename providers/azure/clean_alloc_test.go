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
	got, changed, err := cleanMessages([]byte("[ "+string(msg)+" ]"), &ch)
	if err != nil || !changed || string(got) != "["+string(want)+"]" || ch.Thinking != 1 || ch.Messages != 0 {
		t.Errorf("got %s (changed %v err %v, %+v)\nwant [%s]", got, changed, err, ch, want)
	}
}
