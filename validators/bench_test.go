package validators

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Inputs: prose with the usual noise of agent traffic (numbers, paths,
// JSON punctuation, a UUID, a hash, some non-ASCII), and the same with a
// credential, an e-mail address and a card number every 512 bytes.

var noise = []string{
	"the", "tool", "returned", "a", "list", "of", "files", "in", "/home/agent/project/src", "and", "then",
	"{\"status\":", "\"ok\",", "\"count\":", "42,", "1.5", "2024-01-15", "12:30:00", "Übersicht", "日本語",
	"123e4567-e89b-12d3-a456-426614174000", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"user.name", "x-request-id", "GET", "/api/v1/items?page=2&size=50", "—", "\n", "ok.", "version", "1.2.3",
}

var salts = []string{
	"AKIAIOSFODNN7EXAMPLE", "ghp_OH6mDhMbLL1FHy4SAzpzUruZ8dhwwuD1qKH8", "xoxb-1234-5678-abcdef",
	"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "jane.doe@example.com", "4111 1111 1111 1111", "5555555555554444",
}

func benchText(n int, withMatches bool) string {
	r := rand.New(rand.NewPCG(11, uint64(n)))
	var b strings.Builder
	next := 256
	for b.Len() < n {
		if withMatches && b.Len() >= next {
			b.WriteString(salts[r.IntN(len(salts))])
			b.WriteByte(' ')
			next += 512
		}
		b.WriteString(noise[r.IntN(len(noise))])
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

// TestNoAllocationWithoutMatch: a scan that finds nothing allocates
// nothing, for content and for arguments; with matches, the answer's
// entries and their slice are all that is allocated.
func TestNoAllocationWithoutMatch(t *testing.T) {
	clean := benchText(4096, false)
	if len(AppendSecrets(nil, clean)) != 0 || len(AppendPII(nil, clean)) != 0 {
		t.Fatal("the clean text has a match")
	}
	args := map[string]any{"cmd": clean, "l": []any{"a", map[string]any{"b": clean}}, "argv": []string{"x", "y"}}
	for name, f := range map[string]func(){
		"Secrets":       func() { Secrets(clean) },
		"PII":           func() { PII(clean) },
		"SecretsInArgs": func() { _, _ = SecretsInArgs(args) },
		"PIIInArgs":     func() { _, _ = PIIInArgs(args) },
	} {
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s: %v allocations without a match", name, n)
		}
	}
	withOne := clean[:1000] + " AKIAIOSFODNN7EXAMPLE jane@example.com " + clean[1000:]
	one := testing.AllocsPerRun(20, func() { Secrets(withOne); PII(withOne) })
	// Per validator: one entry (its map and its two offsets, past the
	// small integers Go boxes for free), and a slice of one.
	e := testing.AllocsPerRun(20, func() { entrySink = entry(offsetVar, offsetVar+20, KindEmail) })
	if one != 2*(e+1) || e > 4 {
		t.Errorf("one match each: %v allocations, want %v (an entry: %v)", one, 2*(e+1), e)
	}
}

var (
	entrySink map[string]any
	offsetVar = int64(1000)
)

// TestLinearTime: inputs built to make a careless scanner quadratic (a
// BEGIN marker with no END, again and again; runs of local characters
// with digits and no '@'; '@' after '@'; groups of digits that almost make
// a card; END markers whose label never ends) are scanned in time linear
// in their size: 2 MB each within seconds (quadratic would be
// hours).
func TestLinearTime(t *testing.T) {
	const n = 2 << 20
	inputs := map[string]string{
		"BEGIN markers":        strings.Repeat("-----BEGIN RSA PRIVATE KEY-----", n/31),
		"BEGIN, END labels":    "-----BEGIN PRIVATE KEY-----" + strings.Repeat("-----END AAAA ", n/14),
		"local run with digit": strings.Repeat("a1.", n/3),
		"at signs":             strings.Repeat("a@", n/2),
		"domains":              "a@" + strings.Repeat("b.", n/2),
		"digit groups":         strings.Repeat("123 ", n/4),
		"long digit run":       strings.Repeat("1", n),
		"hyphens in labels":    "a@b" + strings.Repeat("-", n),
		"tokens without end":   strings.Repeat("AKIA", n/4),
		"github_pat":           strings.Repeat("github_pat_", n/11),
	}
	for name, s := range inputs {
		done := make(chan struct{})
		start := time.Now()
		go func() {
			AppendSecrets(nil, s)
			AppendPII(nil, s)
			close(done)
		}()
		select {
		case <-done:
			t.Logf("%s: %v", name, time.Since(start))
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: not done after 20s", name)
		}
	}
}

// TestImportsOnlyStdAndRuntime: the package ships in hosts and in the
// guard, so it links the standard library and oarc's runtime only.
func TestImportsOnlyStdAndRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/oarc/oarc/validators").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, d := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(d, "/")
		if strings.Contains(first, ".") && d != "github.com/oarc/oarc/validators" && d != "github.com/oarc/oarc/runtime" {
			t.Errorf("validators links %s", d)
		}
	}
}

func benchScan(b *testing.B, n int, withMatches bool, f func(string)) {
	s := benchText(n, withMatches)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		f(s)
	}
}

func BenchmarkSecrets(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		for _, m := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/matches=%v", size(n), m), func(b *testing.B) {
				benchScan(b, n, m, func(s string) { Secrets(s) })
			})
		}
	}
}

func BenchmarkPII(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		for _, m := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/matches=%v", size(n), m), func(b *testing.B) {
				benchScan(b, n, m, func(s string) { PII(s) })
			})
		}
	}
}

// BenchmarkArgs: a tool call's arguments of 1 KB and 1 MB of strings.
func BenchmarkArgs(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		for _, m := range []bool{false, true} {
			s := benchText(n, m)
			args := map[string]any{"cmd": s[:n/2], "opts": []any{map[string]any{"body": s[n/2:]}}}
			b.Run(fmt.Sprintf("%s/matches=%v", size(n), m), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					_, _ = SecretsInArgs(args)
					_, _ = PIIInArgs(args)
				}
			})
		}
	}
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}
