package docs_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// imports lists the packages a Go file imports.
func imports(t *testing.T, name string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, name), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		out = append(out, p)
	}
	return out
}

// TestReadmeBuildRunsExample: the README says which build runs
// Caddyfile.example, and it is so: the example needs thinkgate_demo, which
// the binary the README builds with ./cmd/caddy has and the xcaddy deploy
// build (the module's root package) has not. The Quick start warns of the
// first compile, and the Build section of go run under a supervisor.
func TestReadmeBuildRunsExample(t *testing.T) {
	readme := strings.Join(strings.Fields(readDoc(t, "README.md")), " ")
	for _, want := range []string{
		"The first `go run` compiles Caddy for several minutes without output",
		"go tool xcaddy build --with github.com/thinkgate/thinkgate@v0.0.0=.",
		"refuses `Caddyfile.example` (`unrecognized directive: thinkgate_demo`)",
		"`go build -o caddy ./cmd/caddy` builds one that runs it",
		"`go run` does not forward SIGTERM",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	if !strings.Contains(readDoc(t, "Caddyfile.example"), "\n\tthinkgate_demo\n") {
		t.Errorf("Caddyfile.example no longer uses thinkgate_demo: the README's Build section says it does")
	}
	const demo = "github.com/thinkgate/thinkgate/internal/demo"
	if got := imports(t, "cmd/caddy/main.go"); !strings.Contains(strings.Join(got, " "), demo) {
		t.Errorf("cmd/caddy imports %v, not the demo the README says it has", got)
	}
	if got := imports(t, "imports.go"); strings.Contains(strings.Join(got, " "), demo) {
		t.Errorf("the module's root package imports the demo: the README says the deploy build has none")
	}
}
