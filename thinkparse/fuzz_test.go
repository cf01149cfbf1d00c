package thinkparse

import (
	"strings"
	"testing"
)

// fuzzOptions derives Options from the mode byte:
//
//	bit 0: StartInThinking
//	bit 1: ParseInCodeFences
//	bit 2: Tags {"thinking","think"} (else the default {"thinking"})
//	bits 3-5: MaxTagLen 0 (default) or 7*k, k=1..7 (exercises overflow)
func fuzzOptions(mode uint8) Options {
	o := Options{
		StartInThinking:   mode&1 != 0,
		ParseInCodeFences: mode&2 != 0,
		MaxTagLen:         7 * int(mode>>3&7),
	}
	if mode&4 != 0 {
		o.Tags = []string{"thinking", "think"}
	}
	return o
}

func FuzzParse(f *testing.F) {
	for _, tc := range cases {
		var mode uint8
		if tc.opts.StartInThinking {
			mode |= 1
		}
		if tc.opts.ParseInCodeFences {
			mode |= 2
		}
		if len(tc.opts.Tags) > 0 {
			mode |= 4
		}
		f.Add(tc.input, []byte{3, 1, 5}, mode)
	}
	f.Add("a<thinking>b</thinking>c", []byte{}, uint8(0))
	f.Add("<think>x</think>\n```\n<thinking>y</thinking>\n```\n", []byte{1}, uint8(4))
	f.Add(`<thinking thought="&amp;&#x41;" confidence='0.1'/>`, []byte{2, 9}, uint8(8))
	f.Fuzz(func(t *testing.T, input string, cuts []byte, mode uint8) {
		opts := fuzzOptions(mode)
		checkFuzz(t, input, cuts, opts)
		if x := expand(input); x != input {
			checkFuzz(t, x, cuts, opts)
		}
	})
}

// fuzzTokens lets short fuzz inputs reach deep parser states: expand
// replaces each byte 0x01..len(fuzzTokens) by its token.
var fuzzTokens = []string{
	"<thinking>", "</thinking>", "<think>", "</think>", "```\n", "\n~~~", ` thought="`,
	`" `, "/>", ` confidence='0.3'`, "<thinking", "&amp;", "\n", "   ", "</thinking",
	` thought_type="x">`, "<think", "</think ", "\n````", `&#x1F600;`, "<", "\t>",
}

func expand(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if c := int(s[i]); c >= 1 && c <= len(fuzzTokens) {
			sb.WriteString(fuzzTokens[c-1])
		} else {
			sb.WriteByte(s[i])
		}
	}
	return sb.String()
}

func checkFuzz(t *testing.T, input string, cuts []byte, opts Options) {
	whole := parseChunks(t, opts, input, max(len(input), 1))

	k := 0
	next := func() int {
		if len(cuts) == 0 {
			return 1
		}
		c := cuts[k%len(cuts)]
		k++
		return int(c%37) + 1
	}
	if got := parseSplits(t, opts, input, next); !evsEqual(got, whole) {
		t.Fatalf("input %q opts %+v chunking %v differs:\n got   %s\n whole %s", input, opts, cuts, evsString(got), evsString(whole))
	}
	if got := parseChunks(t, opts, input, 1); !evsEqual(got, whole) {
		t.Fatalf("input %q opts %+v byte-at-a-time differs:\n got   %s\n whole %s", input, opts, evsString(got), evsString(whole))
	}

	if opts.MaxTagLen == 0 && len(input) < DefaultMaxTagLen && plainOnly(input, opts) {
		if want := reference(input, opts); !evsEqual(whole, want) {
			t.Fatalf("input %q opts %+v differs from reference:\n got  %s\n want %s", input, opts, evsString(whole), evsString(want))
		}
	}
}

func tagsOf(opts Options) []string {
	if len(opts.Tags) == 0 {
		return []string{"thinking"}
	}
	return opts.Tags
}

// plainOnly reports whether input can hold no attribute or whitespace tag
// forms: no "<NAME" or "</NAME" is followed by whitespace or '/'. Every tag
// the parser can recognise is then literally "<NAME>" or "</NAME>".
func plainOnly(input string, opts Options) bool {
	for _, n := range tagsOf(opts) {
		for _, pre := range []string{"<" + n, "</" + n} {
			s := input
			for {
				i := strings.Index(s, pre)
				if i < 0 {
					break
				}
				s = s[i+len(pre):]
				if len(s) > 0 && strings.IndexByte(" \t\r\n/", s[0]) >= 0 {
					return false
				}
			}
		}
	}
	return true
}

// reference is an independent whole-input implementation for plain-only
// input: it finds literal "<NAME>" / "</NAME>" strings with strings.Index.
// Text and Thinking together are the input minus the recognised tags (and,
// with StartInThinking, minus the whitespace before a leading opening tag).
// A tag in answer text is not recognised if the answer text before it (all
// Text so far plus the text up to the tag) ends inside a code fence.
func reference(input string, opts Options) []ev {
	names := tagsOf(opts)
	r := &recorder{}
	var answer strings.Builder // Text delivered so far

	// earliest finds the first "<NAME>" (open) or "</NAME>" at or after from.
	earliest := func(from int, open bool, only string) (at, length int) {
		at = -1
		for _, n := range names {
			if only != "" && n != only {
				continue
			}
			var pats []string
			if open {
				pats = []string{"<" + n + ">", "</" + n + ">"}
			} else {
				pats = []string{"</" + n + ">"}
			}
			for _, pat := range pats {
				if i := strings.Index(input[from:], pat); i >= 0 && (at < 0 || from+i < at) {
					at, length = from+i, len(pat)
				}
			}
		}
		return at, length
	}

	pos := 0
	inSpan, span := false, ""
	if opts.StartInThinking && input != "" {
		trimmed := strings.TrimLeft(input, " \t\r\n")
		ws := len(input) - len(trimmed)
		handled := false
		for _, n := range names {
			if strings.HasPrefix(trimmed, "<"+n+">") {
				r.ThinkingStart(&Meta{})
				inSpan, span, pos = true, n, ws+len(n)+2
				handled = true
			} else if strings.HasPrefix(trimmed, "</"+n+">") {
				r.ThinkingStart(&Meta{})
				if ws > 0 {
					r.Thinking([]byte(input[:ws]))
				}
				r.ThinkingEnd()
				pos = ws + len(n) + 3
				handled = true
			}
		}
		if !handled {
			r.ThinkingStart(&Meta{})
			inSpan, span = true, ""
		}
	}
	for pos < len(input) {
		if inSpan {
			at, l := earliest(pos, false, span)
			if at < 0 {
				r.Thinking([]byte(input[pos:]))
				pos = len(input)
				break
			}
			if at > pos {
				r.Thinking([]byte(input[pos:at]))
			}
			r.ThinkingEnd()
			inSpan, pos = false, at+l
			continue
		}
		from := pos
		var at, l int
		for {
			at, l = earliest(from, true, "")
			if at < 0 || opts.ParseInCodeFences || !refInFence(answer.String()+input[pos:at]) {
				break
			}
			from = at + 1
		}
		if at < 0 {
			r.Text([]byte(input[pos:]))
			answer.WriteString(input[pos:])
			break
		}
		if at > pos {
			r.Text([]byte(input[pos:at]))
			answer.WriteString(input[pos:at])
		}
		tag := input[at : at+l]
		pos = at + l
		if tag[1] != '/' {
			r.ThinkingStart(&Meta{})
			inSpan, span = true, tag[1:len(tag)-1]
		} // else: orphan close, dropped
	}
	if inSpan {
		r.ThinkingEnd()
	}
	return r.evs
}

// refInFence reports whether the end of the answer text s is inside a code
// fence, by looking at whole lines.
func refInFence(s string) bool {
	in, ch, n := false, byte(0), 0
	for _, line := range strings.Split(s, "\n") {
		sp := 0
		for sp < 3 && sp < len(line) && line[sp] == ' ' {
			sp++
		}
		line = line[sp:]
		if line == "" || (line[0] != '`' && line[0] != '~') {
			continue
		}
		run := 0
		for run < len(line) && line[run] == line[0] {
			run++
		}
		switch {
		case !in && run >= 3:
			in, ch, n = true, line[0], run
		case in && line[0] == ch && run >= n:
			in = false
		}
	}
	return in
}

// TestReference runs the reference over the table inputs it covers, as a
// check on the reference itself.
func TestReference(t *testing.T) {
	covered := 0
	for _, tc := range cases {
		if tc.opts.MaxTagLen != 0 || !plainOnly(tc.input, tc.opts) {
			continue
		}
		covered++
		if got := reference(tc.input, tc.opts); !evsEqual(got, tc.want) {
			t.Errorf("%s: reference gives %s, table %s", tc.name, evsString(got), evsString(tc.want))
		}
	}
	if covered < 40 {
		t.Fatalf("reference covers only %d cases", covered)
	}
}
