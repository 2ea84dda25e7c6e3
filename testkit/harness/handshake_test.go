package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/runtime/impl"
)

// TestVersionHandshake: generated code names the version of the interface
// to runtime/impl it was generated for, and a file generated for a version
// the runtime no longer provides (below impl.MinVersion) or does not
// provide yet (above impl.MaxVersion) fails to compile, with an error that
// names impl.EnforceVersion; the file as generated compiles.
func TestVersionHandshake(t *testing.T) {
	s, diags := compiler.LoadPack(filepath.Join("..", "..", "examples", "starter"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	src, err := codegen.Generate(compiler.Build(s), codegen.Options{Package: "p0", CatalogImport: codegen.DefaultCatalogImport, Version: "v0.0.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	v := codegen.InterfaceVersion
	guard := func(version int) string {
		return "_ = impl.EnforceVersion(impl.MaxVersion - " + strconv.Itoa(version) + ")\n\t_ = impl.EnforceVersion(" + strconv.Itoa(version) + " - impl.MinVersion)"
	}
	if !strings.Contains(string(src), guard(v)) {
		t.Fatalf("the generated file has no version guard %q", guard(v))
	}
	dir := t.TempDir()
	m := &module{dir: dir}
	if err := m.init(); err != nil {
		t.Fatal(err)
	}
	build := func(src string) (string, error) {
		if err := os.MkdirAll(filepath.Join(dir, "p0"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "p0", "rules_oarc.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "./p0")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := build(string(src)); err != nil {
		t.Fatalf("the generated file does not build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name    string
		version int
	}{
		{"too old", impl.MinVersion - 1},
		{"too new", impl.MaxVersion + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := build(strings.Replace(string(src), guard(v), guard(tc.version), 1))
			if err == nil {
				t.Fatalf("a file generated for interface version %d builds against a runtime of versions %d to %d", tc.version, impl.MinVersion, impl.MaxVersion)
			}
			if !strings.Contains(out, "EnforceVersion") || !strings.Contains(out, "rules_oarc.go") {
				t.Errorf("the error does not name EnforceVersion in the generated file:\n%s", out)
			}
			t.Logf("%s", out)
		})
	}
}
