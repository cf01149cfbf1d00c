package claudecode_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The pinned npm packages. claudeCodeNewest is the newest Claude Code npm
// served when it was last moved; both Claude Code versions run every test.
const (
	claudeCodeVersion = "2.1.321"
	claudeCodeNewest  = "2.1.332"
	sdkVersion        = "1.14.0"
)

// needNode skips the test where node and npm are missing, except in CI
// (CI=true), where their absence fails it: .ci/run installs them.
func needNode(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: skipped under -short")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI must have it: .ci/run installs nodejs and npm)", tool)
			}
			t.Skipf("%s is not installed: the Claude Code and TypeScript SDK tests need Node.js and npm (apt-get install nodejs npm)", tool)
		}
	}
}

var (
	installMu sync.Mutex
	installed = map[string]string{}
)

// install returns the directory holding node_modules with pkg@version,
// installing it once into the user's cache directory
// (<cache>/thinkgate-test/npm/<pkg>@<version>), where later runs find it.
func install(t *testing.T, pkg, version string) string {
	t.Helper()
	spec := pkg + "@" + version
	installMu.Lock()
	defer installMu.Unlock()
	if dir, ok := installed[spec]; ok {
		return dir
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "thinkgate-test", "npm", strings.ReplaceAll(spec, "/", "+"))
	done := filepath.Join(dir, ".installed")
	if _, err := os.Stat(done); err != nil {
		tmp := dir + fmt.Sprintf(".tmp%d", os.Getpid())
		_ = os.RemoveAll(tmp)
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp, spec)
		cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			_ = os.RemoveAll(tmp)
			t.Fatalf("npm install %s: %v\n%s", spec, err, out)
		}
		if err := os.WriteFile(filepath.Join(tmp, ".installed"), []byte(spec+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = os.RemoveAll(dir)
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			t.Fatal(err)
		}
	}
	installed[spec] = dir
	return dir
}

// claudeBinary returns the claude command of an installed Claude Code. The
// package's postinstall puts the native binary in place of its bin stub;
// an npm that ran no install scripts leaves that to this function.
func claudeBinary(t *testing.T, version string) string {
	t.Helper()
	dir := install(t, "@anthropic-ai/claude-code", version)
	bin := filepath.Join(dir, "node_modules", ".bin", "claude")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), version) {
		pkg := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code")
		cmd := exec.Command("node", "install.cjs")
		cmd.Dir = pkg
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("claude-code postinstall: %v\n%s", err, o)
		}
		if out, err = exec.Command(bin, "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), version) {
			t.Fatalf("claude --version: %v: %s", err, out)
		}
	}
	return bin
}
