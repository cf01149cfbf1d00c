package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/thinkgate/thinkgate/caddymodule"
)

// tableRow returns the line of text that starts with prefix (a table row),
// or "".
func tableRow(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// tableCell returns cell i (from 0) of a table row, "" if it has none.
func tableCell(row string, i int) string {
	cells := strings.Split(strings.ReplaceAll(strings.Trim(row, "| "), `\|`, "/"), "|")
	if i >= len(cells) {
		return ""
	}
	return cells[i]
}

// codeSpans returns the code spans of line.
func codeSpans(line string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(line, -1) {
		out = append(out, m[1])
	}
	return out
}

// slotName is a slot constant of the test harness.
var slotName = regexp.MustCompile(`\bSlot([A-Za-z]+)\b`)

// TestEveryProviderDocumentedAndTested: every provider module registered in
// the tree (caddymodule/provider_<name>.go) has its page, its rows in the
// README's and docs/configuration.md's lists, its split_tags default and
// trace name where the docs list them, an integration package through real
// Caddy with a slot of its own in internal/testgw, and a run through Claude
// Code: what CONTRIBUTING.md's "How a provider plugs in" says a new
// provider adds.
func TestEveryProviderDocumentedAndTested(t *testing.T) {
	mods := caddy.GetModules("http.handlers.thinkgate.providers")
	if len(mods) < 8 {
		t.Fatalf("found %d provider modules", len(mods))
	}
	readme := readDoc(t, "README.md")
	config := readDoc(t, "docs/configuration.md")
	operations := readDoc(t, "docs/operations.md")
	readmeSplit := codeSpans(tableCell(tableRow(readme, "| `split_tags "), 1))
	configSplit := codeSpans(tableCell(tableRow(config, "| [`split_tags`]"), 2))
	genAI := codeSpans(tableRow(operations, "| `gen_ai.provider.name` |"))
	harness := readDoc(t, "internal/testgw/testgw.go")
	var slots []string
	for _, m := range slotName.FindAllStringSubmatch(harness, -1) {
		slots = append(slots, strings.ToLower(m[1]))
	}
	claudeCode := readDoc(t, "integration/claudecode/upstreams_test.go")

	for _, m := range mods {
		name := m.ID.Name()
		info := m.New().(caddymodule.ProviderModule).ProviderInfo()
		page := "docs/providers/" + name + ".md"
		if _, err := os.Stat(filepath.Join(root, page)); err != nil {
			t.Errorf("%s: no %s", name, page)
		}

		// The docs' lists of providers.
		row := tableRow(readme, "| [`"+name+"`]("+page+") |")
		if row == "" {
			t.Errorf("%s: no row in the README's providers table", name)
		} else {
			want := map[bool]string{true: "on", false: "off"}[info.SplitTags]
			if got := strings.TrimSpace(tableCell(row, 3)); got != want {
				t.Errorf("%s: the README's providers table says split_tags %s by default, the module %s", name, got, want)
			}
		}
		if !strings.Contains(readme, "["+name+"]("+page+")") {
			t.Errorf("%s: not in the README's list of documents", name)
		}
		if row := tableRow(config, "| `"+name+"` |"); !strings.Contains(row, "(providers/"+name+".md)") {
			t.Errorf("%s: no row linking providers/%s.md in docs/configuration.md's providers table", name, name)
		}
		if slices.Contains(readmeSplit, name) != info.SplitTags {
			t.Errorf("%s: the README's split_tags row %v, the module's default %v", name, readmeSplit, info.SplitTags)
		}
		if slices.Contains(configSplit, name) != info.SplitTags {
			t.Errorf("%s: docs/configuration.md's split_tags row %v, the module's default %v", name, configSplit, info.SplitTags)
		}
		if info.GenAIName == "" || !slices.Contains(genAI, info.GenAIName) {
			t.Errorf("%s: gen_ai.provider.name %q is not in docs/operations.md's list %v", name, info.GenAIName, genAI)
		}

		// The test harness.
		if !slices.Contains(slots, name) {
			t.Errorf("%s: internal/testgw/testgw.go names no slot for it (Slot<Name>)", name)
		}
		if !integrationRuns(t, name) {
			t.Errorf("%s: no test in integration/%s/ starts a gateway with thinkgate %s", name, name, name)
		}
		if !strings.Contains(claudeCode, `name: "`+name+`"`) {
			t.Errorf("%s: integration/claudecode/upstreams_test.go does not run Claude Code through it", name)
		}
	}
}

// integrationRuns reports whether integration/<name>/ has a test file that
// starts a gateway on the provider's own slot with `thinkgate <name>`.
func integrationRuns(t *testing.T, name string) bool {
	files, _ := filepath.Glob(filepath.Join(root, "integration", name, "*_test.go"))
	slot, site := false, false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range slotName.FindAllStringSubmatch(string(b), -1) {
			slot = slot || strings.EqualFold(m[1], name)
		}
		site = site || strings.Contains(string(b), "thinkgate "+name)
	}
	return slot && site
}
