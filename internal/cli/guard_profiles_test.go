package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardNamesProfilesAProxyNeverSupplies: the proxy supplies the
// profiles tool, mcp, session and provenance at every call, and
// content-safety only after the call (guard.Call.eval). A rule that
// requires another profile at its anchor has an evaluation error at
// every call (spec 3: a profile not supplied is never read as false),
// and fail_closed blocks every call it selects: the starter pack's
// SECRET_IN_ARGS (content-safety at tool.pre_invoke) blocked every call
// through the proxy, and oarc guard named only its validator, so that
// the run time's "profile not supplied: content-safety" came as a
// surprise. oarc guard names such rules; a rule requiring only what the
// proxy supplies at its anchor is not named.
func TestGuardNamesProfilesAProxyNeverSupplies(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: stock\n"), 0o644)
	rule := func(id, anchor, rest string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: "+anchor+"\neffect: block\ncopy: {title: "+id+"}\n"+rest), 0o644)
	}
	rule("BEFORE", "tool.pre_invoke", "requires: {profiles: [content-safety]}\nwhen: content_length > 10\n")
	rule("AFTER", "content.tool_result", "requires: {profiles: [content-safety]}\nwhen: content_length > 10\n")
	rule("SUPPLIED", "tool.pre_invoke", "selector: {mcp_tool_name: move_file}\nrequires: {profiles: [mcp, tool, session]}\nwhen: 'tool_args.x == 1 && session_posture == \"spec\"'\n")
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	if want := "rule BEFORE requires the profile content-safety, which a proxy does not supply at tool.pre_invoke"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	for _, id := range []string{"AFTER requires", "SUPPLIED requires"} {
		if strings.Contains(stderr, id) {
			t.Errorf("a rule requiring only supplied profiles is named (%s):\n%s", id, stderr)
		}
	}
}
