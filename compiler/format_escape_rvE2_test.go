package compiler

import (
	"strings"
	"testing"

	"github.com/oarc/oarc/runtime"
)

// TestFormatKeepsEscapes: a double-quoted string written with escapes
// (`"b\u202Eash"`, `"x\u200By"`) was re-emitted by yaml.v3 with the
// characters themselves: oarc fmt wrote a right-to-left override and a
// zero-width space into the file, invisible in an editor and in a
// review, where its author had made them visible. Such a string is now
// kept as written, wherever it stands (a field's value, a list entry, a
// flow mapping, a key), and nothing invisible appears in the output that
// was not in the input as such.
func TestFormatKeepsEscapes(t *testing.T) {
	head := "oar: '1.0'\nid: A_B\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, tc := range []struct{ src, keep string }{
		{"copy:\n  title: \"x\\u200By\"\n", `"x\u200By"`},
		{"copy:\n  title: \"x\\u00e9 \\x41 \\t y\" # c\n", `"x\u00e9 \x41 \t y"`},
		{"copy: {title: \"a\\u202Eb\", fix: f}\n", `"a\u202Eb"`},
		{"requires: {profiles: [tool]}\nselector: {tool: [\"b\\u202Eash\", sh]}\n", `"b\u202Eash"`},
		{"requires:\n  profiles: [tool]\nselector:\n  tool:\n    - \"b\\U000E0041ash\"\n    - sh\n", `"b\U000E0041ash"`},
		{"copy:\n  \"ti\\u200Btle\": x\n", `"ti\u200Btle"`},
		{"copy:\n  why: \"one \\u2066\n    two\"\n  title: t\n", "\"one \\u2066\n    two\""},
		{"when: \"tool == \\\"b\\u200Bash\\\"\"\n", `"tool == \"b\u200Bash\""`},
		{"copy: {title: \"a\\u202Eb\", fix: \"c\\u200Bd\"}\n", `{title: "a\u202Eb", fix: "c\u200Bd"}`},
		{"when: tool == 'x'\nrequires: {profiles: [tool]}\nselector: {tool: [\"b\\u202Eash\"]}\ncopy:\n  why: |\n    w\n  title: \"\\u2067t\"\n", `title: "\u2067t"`},
		{"copy:\n  title: \"a\\u2066\n\n     b\" # c\n  fix: \"\\u200B\"\n", "\"a\\u2066\n\n     b\" # c\n  fix: \"\\u200B\""},
		{"\uFEFF" + "id: \"A_\\x42\"\n" + strings.TrimPrefix(head, "oar: '1.0'\nid: A_B\n") + "oar: '1.0'\nwhen: \"a\\u200B\"\n", `id: "A_\x42"`},
	} {
		src := head + tc.src
		if strings.HasPrefix(tc.src, "\uFEFF") {
			src = tc.src
		}
		out, err := Format("A_B.yaml", []byte(src))
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if !strings.Contains(string(out), tc.keep) {
			t.Errorf("%q: %s is not kept as written:\n%s", src, tc.keep, out)
		}
		if runtime.HasHidden(string(out)) {
			t.Errorf("%q: the output holds an invisible character:\n%q", src, out)
		}
		checkFormatted(t, "A_B.yaml", []byte(src))
	}
}

// TestFormatSettles: a comment after a field with no value, at the end of
// the file, came back indented under the field, and a second pass moved
// it again after a blank line: oarc fmt -l listed a file oarc fmt had just
// written. Format now returns the layout a second pass keeps.
func TestFormatSettles(t *testing.T) {
	src := "oar: '1.0'\nid: A_B\nkind: policy\nanchor: tool.pre_invoke\neffect: block\ncopy:\n  title: t\n  fix:\n# the end"
	checkFormatted(t, "A_B.yaml", []byte(src))
}

// TestFormatNestedLastWord: a comment after the last field of copy (or
// another mapping whose fields are reordered) is the mapping's last word,
// as one after the last field of the file is the file's: it moved up with
// that field, into the middle of copy. It stays at the end now.
func TestFormatNestedLastWord(t *testing.T) {
	src := "oar: '1.0'\nid: A_B\nkind: policy\nanchor: tool.pre_invoke\neffect: block\ncopy:\n  # about fix\n  fix: f\n  title: t # the title\n  # the last word of copy\nwhen: 'true'\n"
	want := "oar: '1.0'\nid: A_B\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: 'true'\ncopy:\n  title: t # the title\n  # about fix\n  fix: f\n  # the last word of copy\n"
	out, err := Format("A_B.yaml", []byte(src))
	if err != nil || string(out) != want {
		t.Errorf("got %v\n%s\nwant:\n%s", err, out, want)
	}
	checkFormatted(t, "A_B.yaml", []byte(src))
}
