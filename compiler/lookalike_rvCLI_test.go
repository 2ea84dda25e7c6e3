package compiler

import (
	"strings"
	"testing"
)

// TestLookalikeNames: a name written with a letter of another script that
// looks like an ASCII one (Cyrillic В, о, с) was refused with a message
// that shows the name as it looks: `id "A_В" is not SCREAMING_SNAKE_CASE`
// reads as a valid id, `id A does not match the file name А` as a match.
// The message now names the first character that is not ASCII.
func TestLookalikeNames(t *testing.T) {
	head := "oar: '1.0'\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, c := range []struct{ file, body, want string }{
		{"A_B.yaml", "id: A_\u0412\n", `id "A_В" is not SCREAMING_SNAKE_CASE`},
		{"\u0410.yaml", "id: A\n", "file name А"},
		{"A.yaml", "id: A\nenforcement: m\u043enitor\n", `enforcement "mоnitor"`},
		{"A.yaml", "id: A\nselector: {t\u043e\u043el: x}\n", `selector key "tооl"`},
		{"A.yaml", "id: A\non_fire: {reset: [\u0410]}\n", `on_fire.reset names "А"`},
		{"A.yaml", "id: A\nanchor: t\u043e\u043el.pre_invoke\n", `unknown anchor "tооl.pre_invoke"`},
	} {
		h := head
		if strings.Contains(c.body, "anchor:") {
			h = strings.Replace(h, "anchor: tool.pre_invoke\n", "", 1)
		}
		doc := strings.Replace(h, "kind:", strings.TrimSuffix(c.body, "\n")+"\nkind:", 1)
		stem := strings.TrimSuffix(c.file, ".yaml")
		l := newPackLoader(Options{})
		l.pack = &Pack{Dir: c.file, Name: "p", Origin: "stock"}
		l.set.Packs = append(l.set.Packs, l.pack)
		l.addFile(c.file, []byte(doc), stem)
		var msg string
		for _, d := range l.diags {
			if strings.Contains(d.Message, c.want) {
				msg = d.Message
			}
		}
		if msg == "" {
			t.Errorf("%s: no diagnostic with %s:\n%s", c.body, c.want, l.diags.Text())
			continue
		}
		if !strings.Contains(msg, "not ASCII") || !strings.Contains(msg, "U+04") {
			t.Errorf("%s: the message does not name the character that is not ASCII:\n%s", c.body, msg)
		}
	}
}
