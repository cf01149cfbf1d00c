package docs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	// The directives the snippets use: Caddy's standard modules, thinkgate
	// and the demo upstream.
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/thinkgate/thinkgate"
	_ "github.com/thinkgate/thinkgate/internal/demo"

	"github.com/thinkgate/thinkgate/caddymodule"
)

// root is the repository's top directory, seen from this package.
const root = ".."

// docFiles returns the Markdown files the checks cover, relative to root:
// README.md, CONTRIBUTING.md and docs/**/*.md. Drafts under docs/pending
// are folded into the documents before release and are not checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && filepath.ToSlash(rel) == "docs/pending" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fence is one fenced code block of a Markdown file.
type fence struct {
	file string
	line int    // of the opening fence, 1-based
	info string // the info string: language and annotations
	body string // the content, the fence's own indentation removed
}

// lang is the first word of the info string.
func (f fence) lang() string {
	if w := strings.Fields(f.info); len(w) > 0 {
		return w[0]
	}
	return ""
}

func (f fence) String() string { return fmt.Sprintf("%s:%d", f.file, f.line) }

var fenceOpen = regexp.MustCompile("^( {0,3}|\\s*)(```+|~~~+)\\s*(.*)$")

// fences returns the fenced code blocks of a Markdown text. Fences indented
// inside list items count too; their indentation is removed from the body.
// Outside the blocks, lines are returned with code blocks blanked, for the
// link check.
func fences(file, text string) (blocks []fence, prose []string) {
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			prose = append(prose, lines[i])
			continue
		}
		indent, marker, info := m[1], m[2], strings.TrimSpace(m[3])
		f := fence{file: file, line: i + 1, info: info}
		var body []string
		closed := false
		prose = append(prose, "")
		for i++; i < len(lines); i++ {
			l := lines[i]
			t := strings.TrimLeft(l, " \t")
			if strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]) == "" {
				closed = true
				prose = append(prose, "")
				break
			}
			body = append(body, strings.TrimPrefix(l, indent))
			prose = append(prose, "")
		}
		if !closed {
			f.info = "UNCLOSED " + f.info
		}
		if len(body) > 0 {
			f.body = strings.Join(body, "\n") + "\n"
		}
		blocks = append(blocks, f)
	}
	return blocks, prose
}

var envPlaceholder = regexp.MustCompile(`\{env\.([A-Za-z_][A-Za-z0-9_]*)\}`)

// adapt adapts a Caddyfile and fails on errors and on warnings: those the
// adapter returns (input that is not formatted, among others) and those
// directives log while they are parsed (an unnecessary header_up, say), as
// `caddy adapt` would print them.
func adapt(t *testing.T, where fmt.Stringer, input string) []byte {
	t.Helper()
	var (
		cfg      []byte
		warnings []caddyconfig.Warning
		err      error
	)
	for _, e := range logged(zapcore.WarnLevel, func() {
		cfg, warnings, err = caddyconfig.GetAdapter("caddyfile").Adapt([]byte(input), map[string]any{"filename": where.String()})
	}) {
		t.Errorf("%s: adapting logs a warning: %s", where, e.Message)
	}
	if err != nil {
		t.Errorf("%s: does not adapt: %v\n%s", where, err, input)
		return nil
	}
	for _, w := range warnings {
		t.Errorf("%s: adapting warns: %s", where, w.String())
	}
	return cfg
}

// logged runs f with Caddy's default logger buffered, and returns the
// entries f logged at level or above; the rest are dropped.
func logged(level zapcore.Level, f func()) []observer.LoggedEntry {
	_, orig, buffered := caddy.BufferedLog()
	f()
	core, logs := observer.New(level)
	buffered.FlushTo(zap.New(core))
	caddy.UnbufferDefaultLogger(orig)
	return logs.All()
}

// checkFormatted fails when caddy fmt would change the snippet.
func checkFormatted(t *testing.T, where fmt.Stringer, input string) {
	t.Helper()
	if got := string(caddyfile.Format([]byte(input))); got != input {
		t.Errorf("%s: not formatted as caddy fmt writes it; want:\n%s", where, got)
	}
}

// validate loads the adapted config as Caddy would, without starting it.
// The {env.*} placeholders get dummy values, and Caddy's storage (where the
// local CA lives) is a temporary directory.
func validate(t *testing.T, where fmt.Stringer, input string, adapted []byte) {
	t.Helper()
	for _, m := range envPlaceholder.FindAllStringSubmatch(input, -1) {
		if _, ok := os.LookupEnv(m[1]); !ok {
			t.Setenv(m[1], "docs-test-"+strings.ToLower(m[1]))
		}
	}
	var cfg caddy.Config
	err := json.Unmarshal(adapted, &cfg)
	if err != nil {
		t.Errorf("%s: adapted config: %v", where, err)
		return
	}
	// What provisioning logs (the TLS set-up, say) is noise here.
	if cfg.Logging == nil {
		cfg.Logging = &caddy.Logging{Logs: map[string]*caddy.CustomLog{
			"default": {BaseLog: caddy.BaseLog{Level: "ERROR"}},
		}}
	}
	logged(zapcore.FatalLevel, func() { err = caddy.Validate(&cfg) })
	if err != nil {
		t.Errorf("%s: does not validate: %v\n%s", where, err, input)
	}
}

// wrapFragment puts a fragment's directives inside a site block.
func wrapFragment(body string) string {
	var b strings.Builder
	b.WriteString("localhost:8080 {\n")
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if l != "" {
			b.WriteString("\t")
		}
		b.WriteString(l + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// TestCaddyfileSnippets: every ```caddyfile block is a whole Caddyfile that
// adapts without warnings, is formatted and validates; every
// ```caddyfile fragment block adapts inside a site block and is formatted.
func TestCaddyfileSnippets(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	n := 0
	for _, file := range docFiles(t) {
		blocks, _ := fences(file, readDoc(t, file))
		for _, f := range blocks {
			if strings.HasPrefix(f.info, "UNCLOSED") {
				t.Errorf("%s: code block is never closed", f)
				continue
			}
			if !strings.EqualFold(f.lang(), "caddyfile") {
				continue
			}
			n++
			switch kind := strings.TrimSpace(strings.TrimPrefix(f.info, f.lang())); kind {
			case "":
				checkFormatted(t, f, f.body)
				if cfg := adapt(t, f, f.body); cfg != nil {
					validate(t, f, f.body, cfg)
				}
			case "fragment":
				checkFormatted(t, f, f.body)
				adapt(t, f, wrapFragment(f.body))
			default:
				t.Errorf("%s: unknown annotation %q: use ```caddyfile or ```caddyfile fragment", f, kind)
			}
		}
	}
	if n < 10 {
		t.Errorf("found only %d Caddyfile snippets; is the fence syntax still recognised?", n)
	}
}

// TestCaddyfileExample: the example config the README starts with is a
// formatted, valid Caddyfile.
func TestCaddyfileExample(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	input := readDoc(t, "Caddyfile.example")
	where := stringer("Caddyfile.example")
	checkFormatted(t, where, input)
	if cfg := adapt(t, where, input); cfg != nil {
		validate(t, where, input, cfg)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// A snippet that is not a Caddyfile must fail the checks, or they prove
// nothing: an unformatted snippet, an unknown directive, a bad option, a
// directive that warns.
func TestCaddyfileChecksCatchErrors(t *testing.T) {
	for _, c := range []struct{ name, input string }{
		{"unformatted", "localhost:8080 {\n    thinkgate openai\n}\n"},
		{"aligned", "localhost:8080 {\n\tthinkgate openai {\n\t\tapi_key     x\n\t}\n}\n"},
		{"bad option", "localhost:8080 {\n\tthinkgate openai {\n\t\tfrobnicate on\n\t}\n}\n"},
		{"bad provider", "localhost:8080 {\n\tthinkgate nosuch\n}\n"},
		{"logs a warning", "localhost:8080 {\n\treverse_proxy https://api.openai.com {\n\t\theader_up Host {upstream_hostport}\n\t}\n}\n"},
	} {
		formatted := string(caddyfile.Format([]byte(c.input))) == c.input
		var (
			warnings []caddyconfig.Warning
			err      error
		)
		logs := logged(zapcore.WarnLevel, func() {
			_, warnings, err = caddyconfig.GetAdapter("caddyfile").Adapt([]byte(c.input), nil)
		})
		if formatted && len(warnings) == 0 && len(logs) == 0 && err == nil {
			t.Errorf("%s: %q passes the checks", c.name, c.input)
		}
	}
	// And the fence reader finds blocks inside list items, with their
	// indentation removed, and a fragment's annotation.
	blocks, _ := fences("x.md", "- item:\n\n  ```caddyfile fragment\n  encode\n  ```\n")
	if len(blocks) != 1 || blocks[0].body != "encode\n" || blocks[0].info != "caddyfile fragment" {
		t.Errorf("fences: got %+v", blocks)
	}
}

var (
	// inlineCode is a code span; links are not looked for inside one.
	inlineCode = regexp.MustCompile("`[^`]*`")
	// mdLink is an inline link or image: [text](target "title").
	mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// heading is an ATX heading.
	heading = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	// htmlAnchor is an explicit anchor, <a id="x"> or <a name="x">.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// slug is GitHub's anchor for a heading: markup removed, lower case,
// punctuation dropped, spaces as hyphens.
func slug(h string) string {
	h = mdLinkText.ReplaceAllString(h, "$1")
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

var mdLinkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// anchors returns the anchors of a Markdown file's headings, numbered as
// GitHub numbers repeated ones (x, x-1, x-2 …).
func anchors(text string) map[string]bool {
	_, prose := fences("", text)
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestRelativeLinks: every relative link in the documents points at a file
// or directory of the repository, and its #anchor, if any, at a heading of
// the Markdown file it names.
func TestRelativeLinks(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		_, prose := fences(file, readDoc(t, file))
		for i, l := range prose {
			l = inlineCode.ReplaceAllString(l, "")
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				where := fmt.Sprintf("%s:%d: link %q", file, i+1, target)
				path, anchor, _ := strings.Cut(target, "#")
				resolved := file
				if path != "" {
					resolved = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
					if strings.HasPrefix(resolved, "../") {
						t.Errorf("%s: leaves the repository", where)
						continue
					}
					if _, err := os.Stat(filepath.Join(root, resolved)); err != nil {
						t.Errorf("%s: no such file %s", where, resolved)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(resolved, ".md") {
					t.Errorf("%s: an anchor into a file that is not Markdown", where)
					continue
				}
				if !anchors(readDoc(t, resolved))[anchor] {
					t.Errorf("%s: %s has no heading with anchor #%s", where, resolved, anchor)
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("found only %d relative links; is the link syntax still recognised?", n)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Request: Anthropic → Chat Completions":            "request-anthropic--chat-completions",
		"`thinkgate anthropic`":                            "thinkgate-anthropic",
		"Decisions where Gemini's documentation is silent": "decisions-where-geminis-documentation-is-silent",
		"`thinking_hint`":                                  "thinking_hint",
		"Response with `split_tags`":                       "response-with-split_tags",
		"End to end, against plain `reverse_proxy`":        "end-to-end-against-plain-reverse_proxy",
		"See [the docs](x.md) now":                         "see-the-docs-now",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// outsideDocs are references to design notes that are not part of the
// repository; documents state their rules themselves.
var outsideDocs = regexp.MustCompile(`(?i)\bseeds?[ -]?0\d\d|§|wire-formats\.md|caddy-notes\.md|DESIGN\.md|\bthe seeds?\b`)

// TestNoOutsideReferences: the documents cite only what the repository holds.
func TestNoOutsideReferences(t *testing.T) {
	for _, file := range docFiles(t) {
		for i, l := range strings.Split(readDoc(t, file), "\n") {
			if m := outsideDocs.FindString(l); m != "" {
				t.Errorf("%s:%d: refers to %q, which is not in this repository", file, i+1, m)
			}
		}
	}
}

// maxReadmeLines keeps the README something a newcomer reads in minutes;
// reference material belongs in docs/.
const maxReadmeLines = 300

func TestReadmeLength(t *testing.T) {
	if n := strings.Count(readDoc(t, "README.md"), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move reference material to docs/", n, maxReadmeLines)
	}
}

// tableOptions returns the first word of the first code span of every
// table row in text: the option names of an options table.
func tableOptions(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		span, _, _ := strings.Cut(l[3:], "`")
		if w := strings.Fields(span); len(w) > 0 {
			out[w[0]] = true
		}
	}
	return out
}

// keyPoolFields are the key pool's fields, which every provider module
// has and only those with an api_key take.
var keyPoolFields = map[string]bool{"api_keys": true, "key_selection": true, "key_cooldown_max": true}

// jsonFields returns the JSON field names of a module's struct.
func jsonFields(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return typeJSONFields(t)
}

// typeJSONFields are t's JSON names, those of the structs it embeds
// included (a provider module embeds its provider's Config).
func typeJSONFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, typeJSONFields(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// TestOptionsDocumented: every option of the handler and of each provider
// is in the README's options tables and in its reference document, so that
// an option cannot be added without saying what it does.
func TestOptionsDocumented(t *testing.T) {
	readme := tableOptions(readDoc(t, "README.md"))
	config := readDoc(t, "docs/configuration.md")
	for _, field := range jsonFields(caddymodule.Handler{}) {
		if field == "provider" {
			continue
		}
		option := field
		if field == "models" {
			option = "model" // one Caddyfile line per rule
		}
		if !readme[option] {
			t.Errorf("option %s is not in the README's options table", option)
		}
		if !strings.Contains(config, "| `"+field+"` |") {
			t.Errorf("JSON field %s is not in docs/configuration.md's options table", field)
		}
		if !strings.Contains(config, "### `"+option+"`") {
			t.Errorf("option %s has no section in docs/configuration.md", option)
		}
	}
	mods := caddy.GetModules("http.handlers.thinkgate.providers")
	if len(mods) < 5 {
		t.Fatalf("found %d provider modules", len(mods))
	}
	for _, m := range mods {
		name := m.ID.Name()
		page := tableOptions(readDoc(t, "docs/providers/"+name+".md"))
		fields := jsonFields(m.New())
		for _, option := range fields {
			if keyPoolFields[option] && !slices.Contains(fields, "api_key") {
				continue // refused at load on a provider without api_key
			}
			if option == "api_keys" {
				option = "api_key" // api_key with several keys, in the Caddyfile
			}
			if !readme[option] {
				t.Errorf("%s option %s is not in the README's options tables", name, option)
			}
			if !page[option] {
				t.Errorf("%s option %s is not in the options table of docs/providers/%s.md", name, option, name)
			}
		}
	}
}
