package redisstore_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHostModuleReplacesRedisstore: docs/hosts.md section 6 and
// docs/redis.md, "Using it": a host module outside the repository that
// replaces oarc by the clone, and this module by the clone's redisstore/
// directory, gets both from `go mod tidy` (no question to the module
// proxy, which has neither) and builds. Before the docs said so, a host
// had only oarc's replace, and `go get github.com/oarc/oarc/redisstore`
// failed against the proxy.
func TestHostModuleReplacesRedisstore(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	clone, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	own, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go .*$`).Find(own)
	mod := t.TempDir()
	gomod := fmt.Sprintf("module example.com/agent\n\n%s\n\nreplace github.com/oarc/oarc => %s\n\nreplace github.com/oarc/oarc/redisstore => %s\n",
		goLine, clone, filepath.Join(clone, "redisstore"))
	main := `package main

import (
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

func main() {
	store, err := redisstore.New(redis.NewClient(redisstore.ClientOptions("127.0.0.1:6379")), redisstore.Options{})
	if err != nil {
		panic(err)
	}
	_ = runtime.NewStoreSession(store, "s1")
}
`
	for name, text := range map[string]string{"go.mod": gomod, "main.go": main} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = mod
		// Offline: what the host needs comes from the clone and the module
		// cache this test's own build filled.
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("mod", "tidy")
	run("build", "-o", os.DevNull, ".")
	b, err := os.ReadFile(filepath.Join(mod, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/oarc/oarc v0.0.0-00010101000000-000000000000", "github.com/oarc/oarc/redisstore v0.0.0-00010101000000-000000000000", "github.com/redis/go-redis/v9 "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("go.mod after go mod tidy lacks %q:\n%s", want, b)
		}
	}
}
