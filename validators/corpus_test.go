package validators

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"
)

// The corpus: testdata/secrets/*.txt and testdata/pii/*.txt. Each file is
// one text in which every expected match is marked ⟦kind:text⟧; ⟪HH⟫
// stands for the byte 0xHH (invalid UTF-8 cannot be written otherwise in a
// readable file). Unmarked text must not match: the near misses live
// there.

type corpusCase struct {
	name string
	text string
	want []refMatch // byte offsets
}

func loadCorpus(t testing.TB, dir string) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in testdata/%s: %v", dir, err)
	}
	var out []corpusCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text, want, err := parseCorpus(string(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, corpusCase{name: filepath.Base(f), text: text, want: want})
	}
	return out
}

func parseCorpus(src string) (string, []refMatch, error) {
	var b strings.Builder
	var want []refMatch
	open := -1
	kind := ""
	for len(src) > 0 {
		switch {
		case strings.HasPrefix(src, "⟦"):
			if open >= 0 {
				return "", nil, fmt.Errorf("nested ⟦ at %q", src[:min(20, len(src))])
			}
			src = src[len("⟦"):]
			k := strings.IndexByte(src, ':')
			if k < 0 {
				return "", nil, fmt.Errorf("⟦ without kind")
			}
			kind, src, open = src[:k], src[k+1:], b.Len()
		case strings.HasPrefix(src, "⟧"):
			if open < 0 {
				return "", nil, fmt.Errorf("⟧ without ⟦")
			}
			want = append(want, refMatch{open, b.Len(), kind})
			src, open = src[len("⟧"):], -1
		case strings.HasPrefix(src, "⟪"):
			k := strings.Index(src, "⟫")
			if k < 0 {
				return "", nil, fmt.Errorf("⟪ without ⟫")
			}
			v, err := strconv.ParseUint(src[len("⟪"):k], 16, 8)
			if err != nil {
				return "", nil, err
			}
			b.WriteByte(byte(v))
			src = src[k+len("⟫"):]
		default:
			b.WriteByte(src[0])
			src = src[1:]
		}
	}
	if open >= 0 {
		return "", nil, fmt.Errorf("⟦ not closed")
	}
	return b.String(), want, nil
}

// wantEntries is the span fact the validator must answer for want.
func wantEntries(text string, want []refMatch) []map[string]any {
	var out []map[string]any
	for _, m := range want {
		out = append(out, map[string]any{
			"start": refCodePoint(text, m.start), "end": refCodePoint(text, m.end),
			"kind": m.kind, "score": 1.0,
		})
	}
	return out
}

func describe(text string, l []refMatch) string {
	var b strings.Builder
	for _, m := range l {
		fmt.Fprintf(&b, "  %s %q\n", m.kind, text[m.start:m.end])
	}
	return b.String()
}

// TestSecretsCorpus: oarc.secrets finds exactly the marked credentials of
// every corpus file, with code-point spans, and the reference agrees (so
// the reference the fuzzer trusts is itself checked against the corpus).
func TestSecretsCorpus(t *testing.T) {
	for _, c := range loadCorpus(t, "secrets") {
		t.Run(c.name, func(t *testing.T) {
			checkCorpus(t, c, Secrets, refSecrets, runtime.HasSecretMatches,
				func(d runtime.Detection) []map[string]any { return d.Facts.SecretMatches })
		})
	}
}

// TestPIICorpus: the same for oarc.pii.
func TestPIICorpus(t *testing.T) {
	for _, c := range loadCorpus(t, "pii") {
		t.Run(c.name, func(t *testing.T) {
			checkCorpus(t, c, PII, refPII, runtime.HasPiiEntities,
				func(d runtime.Detection) []map[string]any { return d.Facts.PiiEntities })
		})
	}
}

func checkCorpus(t *testing.T, c corpusCase, scan func(string) runtime.Detection, ref func(string) []refMatch,
	has runtime.DetectorFactSet, fact func(runtime.Detection) []map[string]any) {
	if got := ref(c.text); !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
		t.Errorf("reference:\n got\n%s want\n%s", describe(c.text, got), describe(c.text, c.want))
	}
	d := scan(c.text)
	want := wantEntries(c.text, c.want)
	if !reflect.DeepEqual(fact(d), want) {
		t.Errorf("entries:\n got %v\nwant %v", fact(d), want)
	}
	if d.Hit != (len(c.want) > 0) || d.Facts.Has != has {
		t.Errorf("hit %v has %v, want %v %v", d.Hit, d.Facts.Has, len(c.want) > 0, has)
	}
	// Cut by code points, as the runtime's transform does, each span is
	// the marked text.
	var offs []int
	for i := range c.text {
		offs = append(offs, i)
	}
	offs = append(offs, len(c.text))
	for k, e := range fact(d) {
		s, en := e["start"].(int64), e["end"].(int64)
		if got := c.text[offs[s]:offs[en]]; k < len(c.want) && got != c.text[c.want[k].start:c.want[k].end] {
			t.Errorf("entry %d cuts %q", k, got)
		}
	}
}

// TestCorpusHoldsWhatItClaims: the files that test CRLF, multibyte text
// and invalid UTF-8 still hold them (an editor or git setting that
// normalised them would make those cases test nothing).
func TestCorpusHoldsWhatItClaims(t *testing.T) {
	byName := map[string]string{}
	for _, dir := range []string{"secrets", "pii"} {
		for _, c := range loadCorpus(t, dir) {
			byName[dir+"/"+c.name] = c.text
		}
	}
	if !strings.Contains(byName["secrets/private_key_crlf.txt"], "-----\r\n") || !strings.Contains(byName["secrets/aws_near_misses.txt"], "\r\n") {
		t.Error("the CRLF cases lost their CRLF")
	}
	for _, n := range []string{"secrets/multibyte.txt", "pii/mixed.txt"} {
		if utf8.ValidString(byName[n]) {
			t.Errorf("%s holds no invalid UTF-8", n)
		}
		if utf8.RuneCountInString(byName[n]) == len(byName[n]) {
			t.Errorf("%s holds no multi-byte code point", n)
		}
	}
}
