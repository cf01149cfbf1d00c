package jsonbytes

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// Shapes like the providers' upstream requests: omitempty, pointers,
// interfaces, raw JSON, nested slices, maps, and things the walk hands to
// the encoder whole.
type encInner struct {
	Text    *string         `json:"text,omitempty"`
	Thought bool            `json:"thought,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Any     any             `json:"any"`
	Data    []byte          `json:"data,omitempty"`
	N       float64         `json:"n,omitempty"`
	M       map[string]any  `json:"m,omitempty"`
	skipped int
	Dash    int `json:"-"`
	Plain   string
}

type encAddr struct{ V string }

func (a *encAddr) MarshalJSON() ([]byte, error) { return []byte(`{"addr":` + `"` + a.V + `"}`), nil }

type encEmbedded struct {
	encAddr
	X int `json:"x"`
}

type encOuter struct {
	Model    string         `json:"model"`
	Contents []encInner     `json:"contents"`
	Nested   [][]encInner   `json:"nested,omitempty"`
	Ptr      *encInner      `json:"ptr,omitempty"`
	Addr     encAddr        `json:"addr"`
	AddrPtr  *encAddr       `json:"addrPtr"`
	Emb      encEmbedded    `json:"emb"`
	Stringly int            `json:"stringly,string"`
	When     time.Time      `json:"when"`
	Arr      [2]int         `json:"arr"`
	Iface    any            `json:"iface,omitempty"`
	Raw      []any          `json:"raw"`
	Opt      *float64       `json:"opt,omitempty"`
	Tags     map[string]int `json:"tags"`
}

// encoderOutput is what json.Encoder without HTML escaping writes.
func encoderOutput(t *testing.T, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func checkEncodeJSON(t *testing.T, v any) {
	t.Helper()
	got, err := Encode(v, 0)
	if want := encoderOutput(t, v); err != nil || string(got) != want {
		t.Fatalf("Encode:\n got  %s (%v)\n want %s", got, err, want)
	}
}

// TestEncodeJSON: Encode writes what json.Encoder writes, for values
// and pointers alike.
func TestEncodeJSON(t *testing.T) {
	text, f := "a <b> & \u2028 \"q\"\n", 0.0
	v := encOuter{
		Model: "m",
		Contents: []encInner{
			{Text: &text, Thought: true, Args: json.RawMessage(` { "a" : [1, 2] } `), Any: map[string]any{"z": 1, "a": []any{nil, "x"}}, Data: []byte("bin"), N: 1.5e300, skipped: 3, Dash: 4, Plain: "p"},
			{},
		},
		Nested:  [][]encInner{{{Plain: "in"}}, nil, {}},
		Ptr:     &encInner{Any: &text},
		Addr:    encAddr{V: "v"},
		AddrPtr: &encAddr{V: "w"},
		Emb:     encEmbedded{encAddr{V: "e"}, 2},
		When:    time.Unix(1700000000, 5).UTC(),
		Arr:     [2]int{1, 2},
		Iface:   encInner{Plain: "i"},
		Raw:     []any{json.RawMessage(`{"k" : 1}`), json.Number("12.50")},
		Opt:     &f,
	}
	checkEncodeJSON(t, v)
	checkEncodeJSON(t, &v)
	checkEncodeJSON(t, encOuter{})
	// Inside an interface nothing is addressable: a pointer-receiver
	// MarshalJSON does not apply there, as in encoding/json.
	inIface := encOuter{Iface: encOuter{Addr: encAddr{V: "in iface"}, Raw: []any{json.Number("1"), nil, &text}}}
	checkEncodeJSON(t, inIface)
	checkEncodeJSON(t, &inIface)
	checkEncodeJSON(t, []any{nil, 1, "s"})
	checkEncodeJSON(t, nil)
}

// FuzzEncodeJSON: for any JSON decoded into the shapes above, Encode
// and json.Encoder agree byte for byte.
func FuzzEncodeJSON(f *testing.F) {
	f.Add([]byte(`{"model":"m","contents":[{"text":"x<y","args":{"a":1},"any":[1,"2",{"b":null}],"n":3}],"nested":[[{"Plain":"q"}]],"ptr":{"thought":true},"raw":[1,{"a":"\u2028"}],"opt":0,"tags":{"b":1,"a":2}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v encOuter
		if json.Unmarshal(data, &v) != nil {
			return
		}
		checkEncodeJSON(t, v)
		checkEncodeJSON(t, &v)
	})
}
