package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostSpanFactTransform: spec 5.6 redacts span facts, and a host
// catalog may declare its own list(map(string, dyn)) fact. oarc check
// accepted a transform rule redacting acme.spans, and the generated code
// read oX.F.AcmeSpans, which does not exist (the fact is
// Facts.Acme.Spans): the package did not build. Both engines must now
// rewrite the content with the host's spans merged with pii_entities'.
func TestHostSpanFactTransform(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"c.yaml":             "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: out, planes: [transform]}\nfacts:\n  - {name: spans, type: 'list(map(string, dyn))'}\n",
		"pk/pack.yaml":       "oar: '1.0'\norigin: stock\ncatalog: ../c.yaml\n",
		"pk/policy/T.yaml":   "oar: '1.0'\nid: T\nkind: policy\nanchor: out\neffect: transform\ntransform: {redact: [acme.spans, pii_entities], replacement: '#'}\n",
		"pk/fixtures/f.json": `[{"name":"host-spans","input":{"anchor":"out","content":"héllo wörld","facts":{"acme":{"spans":[{"start":1,"end":3},{"start":7,"end":8}]},"pii_entities":[{"start":3,"end":4}]}},"expected":{"decision":"transform","content":"h#o w#rld"}}]`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	code := Run([]string{"test", filepath.Join(dir, "pk")}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "1 passed, 0 failed") {
		t.Fatalf("oarc test: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
