package mcpguard_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestE2EDocsWalkthrough runs the walkthrough of docs/mcp.md as a newcomer
// would: every shell block marked <!-- walkthrough --> in order, with HOME
// a fresh directory (blocks marked "repo" run at the repository's root),
// and checks what a block marked "expect A, B" prints.
func TestE2EDocsWalkthrough(t *testing.T) {
	need(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH")
	}
	root, _ := filepath.Abs("..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- walkthrough(:[^>]*)? -->\n```sh\n(.*?)```")
	blocks := re.FindAllSubmatch(doc, -1)
	if len(blocks) < 4 {
		t.Fatalf("docs/mcp.md has %d walkthrough blocks", len(blocks))
	}
	home := t.TempDir()
	realHome, _ := os.UserHomeDir()
	goenv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	npmCache := filepath.Join(realHome, ".npm")
	if out, err := exec.Command("npm", "config", "get", "cache").Output(); err == nil {
		npmCache = strings.TrimSpace(string(out))
	}
	env := append(os.Environ(),
		"HOME="+home,
		"GOBIN="+filepath.Join(home, "bin"),
		"PATH="+filepath.Join(home, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOCACHE="+goenv("GOCACHE"), "GOMODCACHE="+goenv("GOMODCACHE"), "GOPATH="+goenv("GOPATH"),
		"npm_config_cache="+npmCache,
	)
	for i, b := range blocks {
		mark, script := strings.TrimPrefix(string(b[1]), ":"), string(b[2])
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Env = env
		cmd.Dir = home
		if strings.Contains(mark, "repo") {
			cmd.Dir = root
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("walkthrough block %d failed: %v\n%s\n%s", i+1, err, script, out)
		}
		if want, ok := strings.CutPrefix(strings.TrimSpace(mark), "expect "); ok {
			for _, w := range strings.Split(want, ", ") {
				if !strings.Contains(string(out), w) {
					t.Errorf("walkthrough block %d: %q not in its output:\n%s", i+1, w, out)
				}
			}
			if strings.Contains(string(out), awsKey) {
				t.Errorf("walkthrough block %d: the key is in its output:\n%s", i+1, out)
			}
			t.Logf("walkthrough output:\n%s", out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "mcp-demo", "work", "gone.txt")); err == nil {
		t.Error("the blocked move_file reached the server")
	}
}
