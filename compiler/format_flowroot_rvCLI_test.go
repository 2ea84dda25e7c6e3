package compiler

import (
	"strings"
	"testing"
)

// TestFormatFlowRootPlainWhen: docs/fmt.md says a rule written as one
// flow mapping is unfolded. With a plain `when` inside it, the kept text
// of the `when` ran to the end of the line, taking the `,` and the
// fields after it (or the closing `}`) into the condition: the result
// did not parse or meant something else, and oarc fmt refused a file
// oarc check accepts. In a flow mapping a plain scalar ends at a flow
// indicator.
func TestFormatFlowRootPlainWhen(t *testing.T) {
	head := "{oar: '1.0', id: A_B, kind: policy, anchor: tool.pre_invoke, effect: block, requires: {profiles: [tool]},"
	want := "oar: '1.0'\nid: A_B\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [tool]}\nwhen: %s\ncopy: {title: t}\n"
	for _, c := range []struct{ src, when string }{
		{head + ` when: tool == "x", copy: {title: t}}` + "\n", `tool == "x"`},
		{head + ` copy: {title: t}, when: tool == "x"}` + "\n", `tool == "x"`},
		{head + ` copy: {title: t}, when: tool == "x" }` + "\n", `tool == "x"`},
		{head + ` copy: {title: t}, when: tool == "x" # c` + "\n}\n", "# c"},
		{head + "\n when: tool == \"x\" &&\n   tool != \"y\", copy: {title: t}}\n", "tool == \"x\" &&\n  tool != \"y\""},
		{head + "\n when: tool == \"x\"\n   && tool != \"y\"\n , copy: {title: t}}\n", "tool == \"x\"\n  && tool != \"y\""},
		// Continuation lines left of the key, or at column 1.
		{head + " when: tool == \"x\" &&\n tool != \"y\", copy: {title: t}}\n", "tool == \"x\" &&\n  tool != \"y\""},
		{head + " when: tool == \"x\" &&\ntool != \"y\", copy: {title: t}}\n", "tool == \"x\" &&\n  tool != \"y\""},
	} {
		out, err := Format("A_B.yaml", []byte(c.src))
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		w := strings.Replace(want, "%s", c.when, 1)
		if !strings.Contains(c.when, "# c") && string(out) != w {
			t.Errorf("%q:\ngot:\n%s\nwant:\n%s", c.src, out, w)
		}
		checkFormatted(t, "A_B.yaml", []byte(c.src))
	}
}
