package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A proxy has content only at content.tool_result (spec 11): a transform
// at tool.pre_invoke (a block,transform anchor of the default catalog)
// fires there on empty content, rewrites nothing, and the call goes
// upstream with its arguments as they were, though its author may think
// they are redacted. oarc guard names such a rule.
func TestGuardNamesTransformsWithoutContent(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: stock\n"), 0o644)
	rule := func(id, anchor string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: detector\nanchor: "+anchor+
			"\neffect: transform\nrequires: {profiles: [tool, content-safety]}\nwhen: 'true'\ncopy: {title: "+id+
			"}\ndetector: oarc.secrets\ntransform: {redact: [secret_matches], replacement: '[SECRET]'}\n"), 0o644)
	}
	rule("REDACT_ARGS", "tool.pre_invoke")
	rule("REDACT_RESULT", "content.tool_result")
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	want := "rule REDACT_ARGS transforms at tool.pre_invoke, where the guard has no content (only content.tool_result's): it rewrites nothing, and the call goes upstream as it came"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "rule REDACT_RESULT transforms") {
		t.Errorf("the transform at content.tool_result is named:\n%s", stderr)
	}
}

// The same at tool.post_invoke, where a host catalog may allow a
// transform: the result is rewritten only at content.tool_result.
func TestGuardNamesTransformsAtPostInvoke(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "h.catalog.yaml"), []byte("oar_catalog: '1.0'\nhost: h\nanchors:\n  - {id: tool.post_invoke, planes: [block, transform]}\n"), 0o644)
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: stock\ncatalog: ../h.catalog.yaml\n"), 0o644)
	os.WriteFile(filepath.Join(pack, "policy", "REDACT_POST.yaml"), []byte("oar: '1.0'\nid: REDACT_POST\nkind: detector\nanchor: tool.post_invoke"+
		"\neffect: transform\nrequires: {profiles: [content-safety]}\nwhen: 'true'\ncopy: {title: REDACT_POST}\ndetector: oarc.secrets\ntransform: {redact: [secret_matches], replacement: '[SECRET]'}\n"), 0o644)
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	want := "rule REDACT_POST transforms at tool.post_invoke, where the guard has no content (only content.tool_result's): it rewrites nothing, and the result goes on as it came"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// oarc gen -guard, which writes the set for the middleware (the same
// occurrences, spec 11), warns of the same rules, and exits 0.
func TestGenGuardNamesTransformsWithoutContent(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: stock\n"), 0o644)
	os.WriteFile(filepath.Join(pack, "policy", "REDACT_ARGS.yaml"), []byte("oar: '1.0'\nid: REDACT_ARGS\nkind: detector\nanchor: tool.pre_invoke"+
		"\neffect: transform\nrequires: {profiles: [content-safety]}\nwhen: 'true'\ncopy: {title: REDACT_ARGS}\ndetector: oarc.secrets\ntransform: {redact: [secret_matches], replacement: '[SECRET]'}\n"), 0o644)
	code, _, stderr := run("gen", "-pack", pack, "-out", filepath.Join(dir, "out"), "-guard")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if want := "oarc gen: warning: rule REDACT_ARGS transforms at tool.pre_invoke, where the guard has no content"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if _, _, stderr := run("gen", "-pack", pack, "-out", filepath.Join(dir, "plain")); strings.Contains(stderr, "REDACT_ARGS") {
		t.Errorf("gen without -guard names the rule:\n%s", stderr)
	}
}
