package rulestore_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/rulestore"
)

// TestCostLimitOfAPackWithoutMaxCost: a pack without max_cost has the
// default limit, 1,000,000 (spec 4), not none. A store beside such a
// pack and one that raises its own limit admitted rules above the
// default: promoted into the first pack (oarc promote writes them into
// a project pack), they no longer compiled (OAR_COST). The store's
// limit is the lowest of its packs', each pack's own or the default.
func TestCostLimitOfAPackWithoutMaxCost(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte("oar: '1.0'\nname: dear\norigin: stock\nmax_cost: 900000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, ds := compiler.Load([]string{"testdata/packs/base", dir}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	// Above the default limit, below the stock pack's.
	costly := `tool != "" && lycaon.recent_tool_names.all(a, a + a != "x")`
	s, _ := openTemp(t, set, rulestore.Options{})
	if err := addErr(t, s, rulestore.Draft{Rule: doc("C_COSTLY", costly)}); !strings.Contains(err.Error(), "[OAR_COST]") {
		t.Errorf("a rule above the default limit of the base pack: %v", err)
	}
	// The same rule in a project pack without max_cost does not compile.
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "pack.yaml"), []byte("oar: '1.0'\nname: proj\norigin: project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rule := "oar: '1.0'\nid: C_COSTLY\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires:\n  profiles: [tool]\nwhen: '" + costly + "'\n"
	if err := os.WriteFile(filepath.Join(proj, "policy", "C_COSTLY.yaml"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ds := compiler.Load([]string{"testdata/packs/base", dir, proj}, compiler.Options{}); !strings.Contains(ds.Text(), "[OAR_COST]") {
		t.Errorf("the rule compiled into a project pack: %s", ds.Text())
	}
}
