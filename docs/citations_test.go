package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPath is a document of the repository's docs directory as Go comments
// cite it.
var docPath = regexp.MustCompile(`\bdocs/[A-Za-z0-9_./-]+\.md\b`)

// TestCodeCitesExistingDocs: every document a Go file names (in a comment,
// an error text, a test) is in the repository.
func TestCodeCitesExistingDocs(t *testing.T) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, l := range strings.Split(string(b), "\n") {
			for _, doc := range docPath.FindAllString(l, -1) {
				n++
				if _, err := os.Stat(filepath.Join(root, doc)); err != nil {
					t.Errorf("%s:%d: cites %s, which is not in the repository", filepath.ToSlash(rel), i+1, doc)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("found only %d citations of documents; is the pattern still right?", n)
	}
}
