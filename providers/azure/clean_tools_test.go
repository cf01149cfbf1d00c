package azure

import (
	"encoding/json"
	"testing"
)

// cleanToolsSeeds are tool lists in every shape cleanTools handles.
var cleanToolsSeeds = []string{
	`[{"name":"Read","description":"Reads a file.\nUse it.","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}]`,
	`[{"name":"a","input_schema":{}},{"type":"web_search_20250305","name":"web_search","max_uses":5}]`,
	`[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}]`,
	`[{"type":"function","name":"f","description":"d","parameters":null}]`,
	`[{"type":"function","function":null,"name":"g"}]`,
	`[{"type":"custom","custom":{"name":"c","description":"x","input_schema":{"type":"object"}}}]`,
	`[{"type":"custom","name":"c","input_schema":{}}]`,
	`[{"type":"custom","custom":"no","name":"c"}]`,
	`[{"name":"t","input_schema":{},"cache_control":{"type":"ephemeral"}}]`,
	`[{"name":"t","input_schema":{},"strict":true,"type":"custom"}]`,
	`[{"type":7,"name":"n","input_schema":{}}]`,
	`[{"type":"bash_20250124","name":"bash"}]`,
	`[{"type":"x","name":"x","input_schema":{"a":1}}]`,
	`[ {"name" : "s" , "input_schema" : { } } , null , 3 , "t" ]`,
	`[{"name":"d","name":"e","input_schema":{}}]`,
	`[{"na\u006de":"esc","input_schema":{}}]`,
	`[{"type":"fun\u0063tion","name":"f"}]`,
	`[{"type":"function","function":{"name":"f","name":"g"}}]`,
	`{"name":"not a list"}`,
	`[]`,
}

// TestCleanToolsBytes: the byte walk takes the common shapes itself and
// writes what the decoding path writes.
func TestCleanToolsBytes(t *testing.T) {
	leaves := map[string]bool{ // what it leaves to encoding/json
		`[{"name":"d","name":"e","input_schema":{}}]`:              true,
		`[{"na\u006de":"esc","input_schema":{}}]`:                  true,
		`[{"type":"fun\u0063tion","name":"f"}]`:                    true,
		`[{"type":"function","function":{"name":"f","name":"g"}}]`: true,
		`{"name":"not a list"}`:                                    true,
	}
	for _, raw := range cleanToolsSeeds {
		got, n, ok := cleanToolsBytes([]byte(raw))
		if ok == leaves[raw] {
			t.Errorf("%s: byte walk ok = %v", raw, ok)
			continue
		}
		if ok {
			checkCleanTools(t, raw, got, n)
		}
	}
	// One conversion, byte for byte.
	got, n, _ := cleanToolsBytes([]byte(`[ {"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}} , {"name":"k","input_schema":{}} ]`))
	if want := `[{"name":"f","description":"d","input_schema":{"type":"object"}},{"name":"k","input_schema":{}}]`; string(got) != want || n != 1 {
		t.Errorf("got %s (%d changed), want %s (1 changed)", got, n, want)
	}
}

func FuzzCleanToolsBytes(f *testing.F) {
	for _, s := range cleanToolsSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return // the request scan has checked the body
		}
		if got, n, ok := cleanToolsBytes([]byte(raw)); ok {
			checkCleanTools(t, raw, got, n)
		}
	})
}

// checkCleanTools holds the byte walk's list and count to the decoding
// path's (whose list counts only when a tool changed).
func checkCleanTools(t *testing.T, raw string, got []byte, n int) {
	t.Helper()
	var ch Changes
	want, err := cleanToolsDecoded([]byte(raw), &ch)
	if err != nil {
		t.Fatalf("%s: the decoding path failed: %v", raw, err)
	}
	if n != ch.Tools || n > 0 && string(got) != string(want) {
		t.Fatalf("%s:\nbytes   %s (%d changed)\ndecoded %s (%d changed)", raw, got, n, want, ch.Tools)
	}
}

// TestCleanToolsUnchangedIsRead: a list with nothing to change is only
// read, not copied (Clean sends the client's list): on 4,096 tools with
// large schemas the copy was a second body's worth of memory.
func TestCleanToolsUnchangedIsRead(t *testing.T) {
	raw := []byte(`[{"name":"a","input_schema":{"type":"object","properties":{"p":{"type":"string"}}}},{"type":"web_search_20250305","name":"web_search"}]`)
	allocs := testing.AllocsPerRun(10, func() {
		got, n, ok := cleanToolsBytes(raw)
		if !ok || n != 0 || &got[0] != &raw[0] || len(got) != len(raw) {
			t.Fatalf("got %s (%d changed, ok %v), want the list as it is", got, n, ok)
		}
	})
	if allocs > 4 {
		t.Errorf("reading an unchanged list made %v allocations, want at most 4", allocs)
	}
}
