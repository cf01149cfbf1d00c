package providers

import (
	"path"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatchModel(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		ok            bool
		stars         []string
	}{
		{"openrouter,*", "openrouter,anthropic/claude-sonnet-4", true, []string{"anthropic/claude-sonnet-4"}},
		{"openrouter,*", "openrouter,", true, []string{""}},
		{"openrouter,*", "deepseek,chat", false, nil},
		{"*/*", "a/b/c", true, []string{"a", "b/c"}},
		{"*,*", "p,m,x", true, []string{"p", "m,x"}},
		{"claude-*-haiku-*", "claude-3-5-haiku-20241022", true, []string{"3-5", "20241022"}},
		{"claude-*-haiku-*", "claude-haiku-4-5", false, nil},
		{"*-?", "gpt-4", true, []string{"gpt"}},
		{"[a-c]*", "b/x", true, []string{"/x"}},
		{"[^a-c]*", "b/x", false, nil},
		{`\**`, "*y", true, []string{"y"}},
		{"é*ü", "éxü", true, []string{"x"}},
		{"?", "é", true, nil},
		{"a*b*c", "axxbyybzc", true, []string{"xx", "yybz"}},
		{"exact", "exact", true, nil},
		{"exact", "exactly", false, nil},
		{"[", "[", false, nil},
		{"", "", true, nil},
		{"*", "", true, []string{""}},
	} {
		stars, ok := MatchModel(c.pattern, c.name)
		if ok != c.ok || strings.Join(stars, "|") != strings.Join(c.stars, "|") || len(stars) != len(c.stars) {
			t.Errorf("MatchModel(%q, %q) = %q, %v; want %q, %v", c.pattern, c.name, stars, ok, c.stars, c.ok)
		}
	}
}

func TestModelRuleExpand(t *testing.T) {
	s := &Settings{Models: []ModelRule{
		{From: "openrouter,*", To: "*"},
		{From: "claude-*-haiku-*", To: "vendor/haiku-*-*"},
		{From: "claude-*", To: "gpt-4.1"},
	}}
	for in, want := range map[string]string{
		"openrouter,anthropic/claude-sonnet-4": "anthropic/claude-sonnet-4",
		"claude-3-5-haiku-20241022":            "vendor/haiku-3-5-20241022",
		"claude-opus-4-6":                      "gpt-4.1",
		"other":                                "other",
	} {
		if got := s.mapModel(in); got != want {
			t.Errorf("mapModel(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Stars(`a*[*]\*b*`); got != 2 {
		t.Errorf("Stars = %d, want 2", got)
	}
}

func TestCheckModelGlob(t *testing.T) {
	for p, bad := range map[string]bool{"claude-*": false, "[a-z]x": false, "[^0-9]": false, `a\*`: false,
		"[": true, "[a-": true, `x\`: true, "[]": true, "[z-]": true} {
		if err := CheckModelGlob(p); (err != nil) != bad {
			t.Errorf("CheckModelGlob(%q) = %v, want bad %v", p, err, bad)
		}
	}
}

// FuzzMatchModel: on names without '/', MatchModel agrees with path.Match,
// and the stars it reports, put back in place of the pattern's '*', give a
// pattern that matches the name exactly.
func FuzzMatchModel(f *testing.F) {
	for _, s := range [][2]string{{"claude-*", "claude-3"}, {"a*b*c", "axxbyybzc"}, {"[a-c]?*", "bq"}, {`\**x`, "*yx"}, {"*é*", "aéb"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 64 || len(name) > 256 {
			return
		}
		stars, ok := MatchModel(pattern, name)
		if CheckModelGlob(pattern) != nil {
			if ok {
				t.Fatalf("malformed %q matched %q", pattern, name)
			}
			return
		}
		if !strings.Contains(name, "/") {
			if want, err := path.Match(pattern, name); err == nil && want != ok {
				t.Fatalf("MatchModel(%q, %q) = %v, path.Match says %v", pattern, name, ok, want)
			}
		}
		if !ok {
			return
		}
		if len(stars) != Stars(pattern) {
			t.Fatalf("%d stars reported for %q, which has %d", len(stars), pattern, Stars(pattern))
		}
		var quoted strings.Builder
		k := 0
		for p := 0; p < len(pattern); {
			if pattern[p] == '*' {
				for s := stars[k]; s != ""; {
					_, size := utf8.DecodeRuneInString(s)
					quoted.WriteString(`\` + s[:size])
					s = s[size:]
				}
				k++
				p++
				continue
			}
			w, _, _ := matchOne(pattern[p:], "x")
			quoted.WriteString(pattern[p : p+w])
			p += w
		}
		if _, ok := MatchModel(quoted.String(), name); !ok {
			t.Fatalf("stars %q of %q on %q: %q does not match", stars, pattern, name, quoted.String())
		}
	})
}
