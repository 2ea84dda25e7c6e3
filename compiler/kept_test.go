package compiler

import (
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler/catalog"
)

// Spec 5.10: a host catalog's fact is engine-kept when it has one of the
// names and its type; another type is OAR_CATALOG at the type, and the
// default catalog's facts are kept (not fields a host fills).
func TestKeptFactsInCatalogs(t *testing.T) {
	good := "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n" +
		"  - {name: repeat_count, type: int}\n  - {name: recent_tool_names, type: list(string)}\n" +
		"  - {name: same_code_reject_run, type: int}\n  - {name: code_reject_total, type: int}\n  - {name: other, type: int}\n"
	cat, diags := ParseCatalog("good.yaml", []byte(good))
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	for name, want := range map[string]catalog.Kept{
		"acme.repeat_count": catalog.KeptRepeatCount, "acme.recent_tool_names": catalog.KeptRecentToolNames,
		"acme.same_code_reject_run": catalog.KeptSameCodeRejectRun, "acme.code_reject_total": catalog.KeptCodeRejectTotal,
		"tool_args_fingerprint": catalog.KeptFingerprint, "acme.other": catalog.NotKept, "tool_args": catalog.NotKept,
	} {
		if f := cat.Fact(name); f == nil || f.Kept != want {
			t.Errorf("%s: %+v, want kept %d", name, f, want)
		}
	}
	for _, name := range []string{"lycaon.repeat_count", "lycaon.recent_tool_names", "lycaon.same_code_reject_run", "lycaon.code_reject_total", "tool_args_fingerprint"} {
		if f := catalog.Default().Fact(name); f == nil || f.Kept == catalog.NotKept {
			t.Errorf("default catalog: %s is not kept", name)
		}
	}
	if f := catalog.Default().Fact("lycaon.fruitless_search_run"); f.Kept != catalog.NotKept {
		t.Errorf("fruitless_search_run is the host's")
	}
	bad := strings.Replace(good, "{name: repeat_count, type: int}", "{name: repeat_count, type: string}", 1)
	bad = strings.Replace(bad, "{name: recent_tool_names, type: list(string)}", "{name: recent_tool_names, type: int}", 1)
	_, diags = ParseCatalog("bad.yaml", []byte(bad))
	text := diags.Text()
	for _, want := range []string{
		"bad.yaml:6:32: error: fact repeat_count is a session fact the engine keeps, of type int; a catalog that declares it must give that type, not string [OAR_CATALOG]",
		"bad.yaml:7:37: error: fact recent_tool_names is a session fact the engine keeps, of type list(string); a catalog that declares it must give that type, not int [OAR_CATALOG]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}
