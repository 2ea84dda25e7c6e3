package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A detector rule reads its validator's facts (spec 5.5), or the host's
// when the validator supplies none. A proxy's built-in validators answer
// one span fact each (oarc.secrets secret_matches, oarc.pii
// pii_entities) and a proxy has no host: another detector fact the rule
// reads (prompt_injection_score after oarc.secrets, secret_matches after
// oarc.pii) is absent at every call, so a when that needs it never holds,
// as for any fact a proxy never fills. oarc guard names it.
func TestGuardNamesDetectorFactsNoBuiltinAnswers(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: stock\n"), 0o644)
	rule := func(id, detector, when string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: detector\ndetector: "+detector+
			"\nanchor: content.tool_result\neffect: block\nrequires: {profiles: [content-safety]}\ncopy: {title: "+id+"}\nwhen: '"+when+"'\n"), 0o644)
	}
	rule("SECRET_AND_INJECTION", "oarc.secrets", "size(secret_matches) > 0 && prompt_injection_score > 0.5")
	rule("PII_BUT_SECRETS", "oarc.pii", "size(secret_matches) > 0")
	rule("SECRETS_ONLY", "oarc.secrets", "secret_matches.exists(m, m.kind == \"private_key\")")
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	for _, want := range []string{
		"rule PII_BUT_SECRETS reads secret_matches, which a proxy never fills",
		"rule SECRET_AND_INJECTION reads prompt_injection_score, which a proxy never fills",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "SECRETS_ONLY") || strings.Contains(stderr, "reads prompt_injection_score, secret_matches") {
		t.Errorf("a fact the built-in validator answers is named:\n%s", stderr)
	}
}
