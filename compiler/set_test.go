package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePack writes a pack: pack.yaml (if not "") and rule files.
func writePack(t *testing.T, dir, packYAML string, rules map[string]string) string {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	if packYAML != "" {
		os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(packYAML), 0o644)
	}
	for id, body := range rules {
		doc := "oar: '1.0'\nid: " + id + "\nkind: policy\nanchor: tool.pre_invoke\n" + body
		os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(doc), 0o644)
	}
	return dir
}

// TestSets: several packs given together are one compilation set (spec
// section 1): each pack's origin limits its own rules, ids are unique
// across the set, counters may be read across packs, a project rule may
// not reset a stock rule, and the evaluation order is the union's.
func TestSets(t *testing.T) {
	root := t.TempDir()
	stock := writePack(t, filepath.Join(root, "stock"), "oar: '1.0'\nname: stock\norigin: stock\n", map[string]string{
		"ALLOW_READS": "selector: {tool: read}\nrequires: {profiles: [tool]}\neffect: allow\n",
		"BREAKER":     "effect: warn\non_fire: {increment: [breaker]}\n",
		"SHARED":      "effect: warn\n",
	})
	project := writePack(t, filepath.Join(root, "project"), "oar: '1.0'\nname: project\n", map[string]string{
		"ESCALATE": "when: fire_count_of(\"BREAKER\") > 2\neffect: block\n",
		"DISARM":   "effect: warn\non_fire: {reset: [BREAKER.breaker]}\n",
		"ALLOWS":   "effect: allow\n",
		"SHARED":   "effect: nudge\n",
	})
	_, diags := Load([]string{stock, project}, Options{})
	text := diags.Text()
	for _, want := range []string{
		"project/policy/DISARM.yaml:6:19: error: on_fire.reset names BREAKER, a rule of the stock pack stock; a rule of a project pack may not reset a stock rule [OAR_REF]",
		"project/policy/ALLOWS.yaml:5:9: error: effect allow needs origin: stock; a project pack may use only block, warn, nudge and ask [OAR_EFFECT]",
		"project/policy/SHARED.yaml:2:5: error: duplicate rule id SHARED (also defined in " + filepath.Join(stock, "policy", "SHARED.yaml") + ") [OAR_ID]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "ESCALATE") {
		t.Errorf("fire_count_of across packs is an error:\n%s", text)
	}
	if got := len(diags); got != 3 {
		t.Errorf("%d diagnostics, want 3:\n%s", got, text)
	}

	// Without the bad rules, the set loads; its rules are in one order.
	os.Remove(filepath.Join(project, "policy", "DISARM.yaml"))
	os.Remove(filepath.Join(project, "policy", "ALLOWS.yaml"))
	os.Remove(filepath.Join(project, "policy", "SHARED.yaml"))
	s, diags := Load([]string{project, stock}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	var ids []string
	for _, r := range s.Rules {
		ids = append(ids, r.ID+"@"+r.Pack.Name)
	}
	if got, want := strings.Join(ids, " "), "ALLOW_READS@stock BREAKER@stock ESCALATE@project SHARED@stock"; got != want {
		t.Errorf("order %s, want %s", got, want)
	}
	if len(s.Packs) != 2 || s.Packs[0].Name != "project" || s.Digest == "" {
		t.Errorf("packs %+v digest %q", s.Packs, s.Digest)
	}
	// The digest covers the sources, not the order the packs were given.
	s2, _ := Load([]string{stock, project}, Options{})
	if s2.Digest != s.Digest {
		t.Errorf("digest depends on the order of the packs: %s, %s", s.Digest, s2.Digest)
	}
}

// TestSetCatalogs: the packs of a set use one catalog; -catalog overrides
// pack.yaml.
func TestSetCatalogs(t *testing.T) {
	root := t.TempDir()
	cat := func(name, host string) string {
		f := filepath.Join(root, name)
		os.WriteFile(f, []byte("oar_catalog: '1.0'\nhost: "+host+"\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n  - {name: dirty, type: bool}\n"), 0o644)
		return f
	}
	cat("a.yaml", "acme")
	cat("b.yaml", "bolt")
	pa := writePack(t, filepath.Join(root, "pa"), "oar: '1.0'\ncatalog: ../a.yaml\n", map[string]string{"RA": "when: acme.dirty\neffect: warn\n"})
	pb := writePack(t, filepath.Join(root, "pb"), "oar: '1.0'\ncatalog: ../b.yaml\n", map[string]string{"RB": "when: bolt.dirty\neffect: warn\n"})
	_, diags := Load([]string{pa, pb}, Options{})
	want := filepath.Join(pb, "pack.yaml") + ":2:10: error: pack pb names the catalog " + filepath.Join(pb, "..", "b.yaml") +
		", but pack pa names " + filepath.Join(pa, "..", "a.yaml") + ": the packs of a set use one catalog [OAR_CATALOG]"
	if diags.Text() != want+"\n" {
		t.Errorf("got\n%s\nwant\n%s", diags.Text(), want)
	}
	s, diags := Load([]string{pa}, Options{})
	if diags.HasErrors() || s.Catalog.Host != "acme" {
		t.Fatalf("%s %+v", diags.Text(), s.Catalog)
	}
	// -catalog overrides pack.yaml: pa's rule then reads an unknown fact.
	b, ds := LoadCatalog(filepath.Join(root, "b.yaml"))
	if b == nil {
		t.Fatal(ds.Text())
	}
	_, diags = Load([]string{pa}, Options{Catalog: b})
	if !strings.Contains(diags.Text(), "undeclared reference to 'acme'") {
		t.Errorf("-catalog did not override pack.yaml:\n%s", diags.Text())
	}
	// A pack.yaml naming a catalog that does not exist.
	pc := writePack(t, filepath.Join(root, "pc"), "oar: '1.0'\ncatalog: nowhere.yaml\n", map[string]string{"RC": "effect: warn\n"})
	_, diags = Load([]string{pc}, Options{})
	if want := filepath.Join(pc, "pack.yaml") + ":2:10: error: catalog " + filepath.Join(pc, "nowhere.yaml") + ": no such file [OAR_CATALOG]\n"; diags.Text() != want {
		t.Errorf("got %s want %s", diags.Text(), want)
	}
}

// TestAskEffect: effect ask (spec 5.12) restricts and grants nothing, so a
// project pack may use it; like block it holds an action, so it needs the
// block plane, and elsewhere the error is at the effect.
func TestAskEffect(t *testing.T) {
	root := t.TempDir()
	project := writePack(t, filepath.Join(root, "project"), "oar: '1.0'\nname: project\n", map[string]string{
		"ASK_DEPLOY": "effect: ask\ncopy: {title: Deploys need a person}\n",
	})
	s, diags := Load([]string{project}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	if len(s.Rules) != 1 || s.Rules[0].Effect != "ask" {
		t.Fatalf("rules %+v", s.Rules)
	}
	os.WriteFile(filepath.Join(project, "policy", "ASK_GATE.yaml"),
		[]byte("oar: '1.0'\nid: ASK_GATE\nkind: policy\nanchor: gate.blocked\neffect: ask\n"), 0o644)
	_, diags = Load([]string{project}, Options{})
	want := "project/policy/ASK_GATE.yaml:5:9: error: effect ask needs an anchor with the block plane; gate.blocked has inform [OAR_PLANE]"
	if text := diags.Text(); !strings.Contains(text, want) || len(diags) != 1 {
		t.Errorf("want only %q, got\n%s", want, text)
	}
}

// TestPackWithoutPolicy: a pack of pack.yaml alone (no policy/ directory,
// which git cannot keep empty) loads with no rules; a directory with
// neither is not a pack.
func TestPackWithoutPolicy(t *testing.T) {
	root := t.TempDir()
	deny := filepath.Join(root, "deny")
	os.MkdirAll(deny, 0o755)
	os.WriteFile(filepath.Join(deny, "pack.yaml"), []byte("oar: '1.0'\norigin: stock\ndeny_by_default:\n  anchors: [tool.pre_invoke]\n  code: DENY\n"), 0o644)
	project := writePack(t, filepath.Join(root, "project"), "oar: '1.0'\norigin: stock\n", map[string]string{
		"ALLOW_READ": "selector: {tool: read}\nrequires: {profiles: [tool]}\neffect: allow\n",
	})
	set, diags := Load([]string{deny, project}, Options{})
	if diags.HasErrors() || set == nil {
		t.Fatalf("a pack of pack.yaml alone beside a project pack:\n%s", diags.Text())
	}
	// Loaded, but not unseen: a policy/ directory that was lost is said.
	if got, want := diags.Text(), deny+":1:1: warning: no policy/ directory: the pack has no rules, only its pack.yaml [OAR_YAML]\n"; got != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)
	if _, diags := Load([]string{empty}, Options{}); !strings.Contains(diags.Text(), "not a pack: cannot read") {
		t.Errorf("a directory with neither pack.yaml nor policy/:\n%s", diags.Text())
	}
}

// TestPosForm: every diagnostic renders as path:line:col (spec 7), a
// whole file's problem at 1:1 and a whole line's at its column 1.
func TestPosForm(t *testing.T) {
	for _, tc := range []struct {
		p    Pos
		want string
	}{
		{Pos{File: "a.yaml", Line: 3, Col: 7}, "a.yaml:3:7"},
		{Pos{File: "a.yaml", Line: 3}, "a.yaml:3:1"},
		{Pos{File: "policy/DIR.yaml"}, "policy/DIR.yaml:1:1"},
		{Pos{}, ""},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
	d := Diagnostic{Pos: Pos{File: "pack"}, Severity: Error, Message: "not a pack", Code: CodeYAML}
	if got, want := d.String(), "pack:1:1: error: not a pack [OAR_YAML]"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
