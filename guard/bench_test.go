package guard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/validators"
)

// benchText is n bytes of prose and JSON-ish text, with a credential
// every 512 bytes when secrets.
func benchText(n int, secrets bool) string {
	var b strings.Builder
	line := `{"path": "/srv/app/config.yaml", "size": 1024, "user": "deploy"} the quick brown fox jumps over the lazy dog 0123456789 `
	for b.Len() < n {
		if secrets && b.Len()%512 < len(line) {
			b.WriteString("key=" + awsKey + " ")
		}
		b.WriteString(line)
	}
	return b.String()[:n]
}

// fsResult is a result as server-filesystem's read_text_file returns it:
// the text twice, as a text item and in structuredContent.
func fsResult(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"content":           []map[string]any{{"type": "text", "text": text}},
		"structuredContent": map[string]any{"content": text},
	})
	return b
}

var sizes = []struct {
	name string
	n    int
}{{"1KB", 1 << 10}, {"64KB", 64 << 10}, {"1MB", 1 << 20}}

// BenchmarkPreInvoke is the guard's cost of a call before it is
// forwarded: arguments decoded, tool.pre_invoke evaluated (the allowlist,
// the provenance rule, the loop breaker).
func BenchmarkPreInvoke(b *testing.B) {
	g := newGuard(b)
	c := proxyConn(g, fs)
	ctx := context.Background()
	args := json.RawMessage(`{"path":"/srv/app/notes.txt"}`)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if k := c.Begin(ctx, json.RawMessage(`1`), "read_text_file", args); k.Blocked() != nil && i < 3 {
			b.Fatal(string(k.Blocked()))
		}
	}
}

// BenchmarkToolResult is the guard's cost of a result: parsed, its units
// joined, tool.post_invoke and content.tool_result evaluated (oarc.secrets
// scans the content), redactions written back, the node recorded, the
// result encoded. Compare with BenchmarkSecretsPass (the validator's own
// pass over the same content) and BenchmarkOnePass (one decoding pass).
func BenchmarkToolResult(b *testing.B) {
	g := newGuard(b)
	ctx := context.Background()
	for _, sz := range sizes {
		for _, secrets := range []bool{false, true} {
			name := sz.name + "/clean"
			if secrets {
				name = sz.name + "/redacted"
			}
			res := fsResult(benchText(sz.n, secrets))
			b.Run(name, func(b *testing.B) {
				c := g.NewConn(runtime.NewSession("b"), fs, guard.ConnOptions{})
				b.SetBytes(int64(len(res)))
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)))
					out := k.Finish(ctx, res, 0, guard.FinishOptions{})
					if i == 0 && (secrets != strings.Contains(string(out), "[REDACTED]") || strings.Contains(string(out), awsKey)) {
						b.Fatalf("result: %.300s", out)
					}
				}
			})
		}
	}
}

// BenchmarkSecretsPass is oarc.secrets' own pass over a result's content
// (the text twice, as the guard joins it).
func BenchmarkSecretsPass(b *testing.B) {
	for _, sz := range sizes {
		for _, secrets := range []bool{false, true} {
			name := sz.name + "/clean"
			if secrets {
				name = sz.name + "/redacted"
			}
			t := benchText(sz.n, secrets)
			content := t + "\n" + t
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(fsResult(t))))
				b.ReportAllocs()
				for b.Loop() {
					validators.Secrets(content)
				}
			})
		}
	}
}

// BenchmarkOnePass is one pass of encoding/json over the result: decoding
// it into its members, the least a guard that reads JSON does.
func BenchmarkOnePass(b *testing.B) {
	for _, sz := range sizes {
		res := fsResult(benchText(sz.n, false))
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(res)))
			b.ReportAllocs()
			for b.Loop() {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(res, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
