package compiler

import (
	"fmt"
	"testing"
)

// TestLeadingZeroInt: yaml.v3 reads a plain 017 as the octal 15 (YAML
// 1.1), where YAML 1.2, which oarc's YAML otherwise is, and a person read
// 17: a selector or a flow window would silently mean another number. It
// is refused at the number, once, in rule files and pack.yaml; 0, 0o17,
// 0x1F and 17 still read as YAML reads them.
func TestLeadingZeroInt(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, c := range []struct {
		doc  string
		want string // "" when it loads
	}{
		{doc: head + "selector: {fire_count: 017}\n", want: "6:24 OAR_YAML"},
		{doc: head + "selector: {fire_count: [1, -010]}\n", want: "6:28 OAR_YAML"},
		{doc: head + "flow: {sequence: [a], within: 010}\n", want: "6:31 OAR_YAML"},
		{doc: head + "selector: {fire_count: 0}\n"},
		{doc: head + "selector: {fire_count: 0o17}\n"},
		{doc: head + "selector: {fire_count: 0x1F}\n"},
		{doc: head + "selector: {fire_count: [17, -3, +4]}\n"},
	} {
		_, diags := LoadRuleDoc("f.yaml", []byte(c.doc), "stock", Options{})
		got := ""
		if diags.HasErrors() {
			got = fmt.Sprintf("%d:%d %s", diags[0].Pos.Line, diags[0].Pos.Col, diags[0].Code)
		}
		if got != c.want || len(diags) > 1 {
			t.Errorf("%s: got %q, want %q\n%s", c.doc, got, c.want, diags.Text())
		}
	}
	dir := writePack(t, t.TempDir(), "oar: '1.0'\nmax_cost: 0100000\n", map[string]string{"A": "effect: block\n"})
	_, diags := LoadPack(dir, Options{})
	if len(diags) != 1 || diags[0].Code != CodeYAML || diags[0].Pos.Line != 2 || diags[0].Pos.Col != 11 {
		t.Errorf("pack.yaml max_cost 0100000: want one OAR_YAML at 2:11\n%s", diags.Text())
	}
}
