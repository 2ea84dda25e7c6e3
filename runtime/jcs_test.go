package runtime

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// RFC 8785 Appendix B: doubles as their canonical JSON.
func TestJCSNumbersRFC8785(t *testing.T) {
	for bits, want := range map[uint64]string{
		0x0000000000000000: "0",
		0x8000000000000000: "0",
		0x0000000000000001: "5e-324",
		0x8000000000000001: "-5e-324",
		0x7fefffffffffffff: "1.7976931348623157e+308",
		0xffefffffffffffff: "-1.7976931348623157e+308",
		0x4340000000000000: "9007199254740992",
		0xc340000000000000: "-9007199254740992",
		0x4430000000000000: "295147905179352830000",
		0x44b52d02c7e14af5: "9.999999999999997e+22",
		0x44b52d02c7e14af6: "1e+23",
		0x44b52d02c7e14af7: "1.0000000000000001e+23",
		0x444b1ae4d6e2ef4e: "999999999999999700000",
		0x444b1ae4d6e2ef4f: "999999999999999900000",
		0x444b1ae4d6e2ef50: "1e+21",
		0x3eb0c6f7a0b5ed8c: "9.999999999999997e-7",
		0x3eb0c6f7a0b5ed8d: "0.000001",
		0x41b3de4355555553: "333333333.3333332",
		0x41b3de4355555554: "333333333.33333325",
		0x41b3de4355555555: "333333333.3333333",
		0x41b3de4355555556: "333333333.3333334",
		0x41b3de4355555557: "333333333.33333343",
		0xbecbf647612f3696: "-0.0000033333333333333333",
		0x43143ff3c1cb0959: "1424953923781206.2",
	} {
		got, err := AppendCanonical(nil, math.Float64frombits(bits))
		if err != nil || string(got) != want {
			t.Errorf("%#016x: %q %v, want %q", bits, got, err, want)
		}
	}
	for _, bits := range []uint64{0x7fffffffffffffff, 0x7ff0000000000000, 0xfff0000000000000} {
		if _, err := AppendCanonical(nil, math.Float64frombits(bits)); !errors.Is(err, ErrNoFingerprint) {
			t.Errorf("%#016x: %v, want no fingerprint", bits, err)
		}
	}
}

// RFC 8785 3.2.2 and 3.2.3: the example object, and member order by
// UTF-16 code units.
func TestJCSExamplesRFC8785(t *testing.T) {
	in := `{
	  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
	  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
	  "literals": [null, true, false]
	}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	m, err := DecodeToolArgs([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := AppendCanonical(nil, m); err != nil || string(got) != want {
		t.Errorf("got  %s %v\nwant %s", got, err, want)
	}
	sorting := `{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
	  "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`
	m, _ = DecodeToolArgs([]byte(sorting))
	got, _ := AppendCanonical(nil, m)
	var order []string
	d := json.NewDecoder(strings.NewReader(string(got)))
	d.Token()
	for d.More() {
		k, _ := d.Token()
		order = append(order, k.(string))
		d.Token()
	}
	wantOrder := []string{"\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"}
	if strings.Join(order, "|") != strings.Join(wantOrder, "|") {
		t.Errorf("order %q, want %q", order, wantOrder)
	}
	// The same object with more members than the in-place ordering takes
	// is ordered alike (the names z, zz, ... sort between "1" and U+0080).
	for i := 0; i < sortInPlace; i++ {
		m[strings.Repeat("z", i+1)] = i
	}
	got2, _ := AppendCanonical(nil, m)
	var zs []string
	for i := 0; i < sortInPlace; i++ {
		zs = append(zs, strings.Repeat("z", i+1))
	}
	want2 := append(append(append([]string{}, wantOrder[:2]...), zs...), wantOrder[2:]...)
	if got := keysOf(string(got2)); strings.Join(got, "|") != strings.Join(want2, "|") {
		t.Errorf("large object order %q", got)
	}
}

func keysOf(obj string) []string {
	var order []string
	d := json.NewDecoder(strings.NewReader(obj))
	d.Token()
	for d.More() {
		k, _ := d.Token()
		order = append(order, k.(string))
		var v any
		d.Decode(&v)
	}
	return order
}

// Spec 5.10: 1 and 1.0 share a fingerprint, key order does not matter,
// null arguments are {}; what JCS cannot serialise has none.
func TestArgsFingerprint(t *testing.T) {
	fp := func(args map[string]any) (string, error) {
		f, _, err := ArgsFingerprint(nil, args)
		return f.String(), err
	}
	a, _ := fp(map[string]any{"n": int64(1), "s": "x"})
	b, _ := fp(map[string]any{"s": "x", "n": 1.0})
	c, _ := fp(map[string]any{"n": json.Number("1e0"), "s": "x"})
	if a != b || a != c || len(a) != 16 || strings.ToLower(a) != a {
		t.Errorf("1, 1.0 and 1e0: %s %s %s", a, b, c)
	}
	big1, _ := fp(map[string]any{"n": int64(1 << 53)})
	big2, _ := fp(map[string]any{"n": int64(1<<53 + 1)})
	if big1 != big2 {
		t.Errorf("ints that round to one double: %s %s", big1, big2)
	}
	empty, _ := fp(map[string]any{})
	null, _ := fp(nil)
	if empty != null {
		t.Errorf("nil and {}: %s %s", null, empty)
	}
	// sha256("{}") = 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a
	if empty != "44136fa355b3678a" {
		t.Errorf("{} fingerprint %s", empty)
	}
	deep := map[string]any{}
	cur := deep
	for range MaxDepth + 1 {
		next := map[string]any{}
		cur["a"] = next
		cur = next
	}
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for name, args := range map[string]map[string]any{
		"NaN":             {"x": math.NaN()},
		"infinity":        {"x": math.Inf(-1)},
		"invalid UTF-8":   {"x": "\xff"},
		"invalid key":     {"\xfe": 1},
		"bad json.Number": {"x": json.Number("1e999")},
		"typed map":       {"x": map[string]int{"a": 1}},
		"struct":          {"x": struct{}{}},
		"too deep":        deep,
		"cyclic":          cyclic,
	} {
		if f, err := fp(args); !errors.Is(err, ErrNoFingerprint) {
			t.Errorf("%s: %s %v, want no fingerprint", name, f, err)
		}
	}
}

// The common arguments (up to 32 keys at every level) are fingerprinted
// without allocating once the buffer has grown.
func TestArgsFingerprintAllocs(t *testing.T) {
	args := map[string]any{"command": "ls -la /tmp", "cwd": "/home/u", "timeout": int64(30), "env": map[string]any{"A": "1", "B": []any{"x", 2.5, true, nil}}}
	buf, _ := AppendCanonical(nil, args)
	if n := testing.AllocsPerRun(100, func() { _, buf, _ = ArgsFingerprint(buf, args) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func BenchmarkArgsFingerprint(b *testing.B) {
	args := map[string]any{}
	for _, k := range []string{"command", "cwd", "timeout", "description", "run_in_background", "path", "mode", "user", "shell", "env"} {
		args[k] = strings.Repeat(k[:1], 20)
	}
	buf, _ := AppendCanonical(nil, args)
	b.SetBytes(int64(len(buf)))
	b.Run("fingerprint", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, buf, _ = ArgsFingerprint(buf, args)
		}
	})
}

func BenchmarkSHA256Only(b *testing.B) {
	data := make([]byte, 256)
	b.SetBytes(256)
	for b.Loop() {
		sha256.Sum256(data)
	}
}

// refJCSString is RFC 8785's string serialisation as the RFC says it, rune
// by rune: the reference for appendJCSString's eight-byte fast path.
func refJCSString(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String(), true
}

func checkJCSString(t *testing.T, s string) {
	t.Helper()
	want, ok := refJCSString(s)
	got, err := appendJCSString([]byte("x"), s)
	if !ok {
		if !errors.Is(err, ErrNoFingerprint) {
			t.Fatalf("%q: %q %v, want no fingerprint", s, got, err)
		}
		return
	}
	if err != nil || string(got) != "x"+want {
		t.Fatalf("%q: %q %v, want %q", s, got, err, want)
	}
}

// Strings of pieces around the fast path's edges (each byte the eight-byte
// test must stop at, next to and inside runs of plain bytes of every
// length) serialise as the RFC says.
func TestJCSStringDifferential(t *testing.T) {
	pieces := []string{"a", "Z", " ", "~", "\x7f", "\x1f", "\x00", "\n", "\t", "\"", "\\", "!", "#", "[", "]",
		"é", "\u2028", "\ufffd", "😀", "\xff", "\xc3", "\xed\xa0\x80", "abcdefgh", "0123456", "/path/to/x"}
	r := rand.New(rand.NewPCG(5, 10))
	for range 50000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkJCSString(t, b.String())
	}
	for c := range 256 {
		for pos := range 17 {
			checkJCSString(t, strings.Repeat("a", pos)+string(rune(c))+strings.Repeat("b", 9))
			checkJCSString(t, strings.Repeat("a", pos)+string([]byte{byte(c)})+strings.Repeat("b", 9))
		}
	}
}

func FuzzJCSString(f *testing.F) {
	f.Add("plain ascii text")
	f.Add("tab\there \"quoted\" back\\slash é \xff")
	f.Fuzz(func(t *testing.T, s string) { checkJCSString(t, s) })
}

// BenchmarkArgsFingerprintContent: the arguments of a tool that writes a
// file, whose content (4 KB of source code) is most of the bytes.
func BenchmarkArgsFingerprintContent(b *testing.B) {
	line := "\tif err := run(ctx, cfg); err != nil { return fmt.Errorf(\"run: %w\", err) }\n"
	args := map[string]any{"path": "/home/agent/project/main.go", "content": strings.Repeat(line, 4096/len(line))}
	buf, _ := AppendCanonical(nil, args)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		_, buf, _ = ArgsFingerprint(buf, args)
	}
}

// BenchmarkComputeFingerprint is the fingerprint as the engines compute
// it, into a reused KeptFacts, for arguments whose names repeat from call
// to call (the standard pack's read, and ten names).
func BenchmarkComputeFingerprint(b *testing.B) {
	ten := map[string]any{}
	for _, k := range []string{"command", "cwd", "timeout", "description", "run_in_background", "path", "mode", "user", "shell", "env"} {
		ten[k] = strings.Repeat(k[:1], 20)
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"keys=2", map[string]any{"path": "/home/agent/project/README.md", "limit": int64(200)}},
		{"keys=10", ten},
	} {
		b.Run(c.name, func(b *testing.B) {
			var k KeptFacts
			k.ComputeFingerprint(c.args)
			b.ReportAllocs()
			for b.Loop() {
				k.ComputeFingerprint(c.args)
			}
		})
	}
}

// checkOrderedFingerprints fingerprints a sequence of arguments into one
// KeptFacts, which remembers the last names' order, and each afresh with
// ArgsFingerprint: the same fingerprint, canonical JSON and error, and no
// fingerprint text after an error.
func checkOrderedFingerprints(t *testing.T, seq []map[string]any) {
	t.Helper()
	var k KeptFacts
	for i, args := range seq {
		got, gotErr := k.ComputeFingerprint(args)
		want, buf, wantErr := ArgsFingerprint(nil, args)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || got != want {
			t.Fatalf("call %d, %#v: %s %v, want %s %v", i, args, got, gotErr, want, wantErr)
		}
		if wantErr == nil && (string(k.buf) != string(buf) || k.Fingerprint != want.String()) {
			t.Fatalf("call %d, %#v: %q %s, want %q %s", i, args, k.buf, k.Fingerprint, buf, want)
		}
		if wantErr != nil && k.Fingerprint != "" {
			t.Fatalf("call %d, %#v: fingerprint %q after %v", i, args, k.Fingerprint, wantErr)
		}
	}
}

// orderNames are names for arguments that often repeat from one call to
// the next, or differ by little: prefixes, UTF-16 order against byte
// order (U+E000 and U+10000), the empty name, invalid UTF-8.
var orderNames = []string{"a", "b", "ab", "path", "limit", "", "é", "\ue000", "\U00010000", "\xff", "a\x00", "A"}

// orderValues are values, including those without a fingerprint.
var orderValues = []any{int64(1), 1.0, "x", "\xfe", math.NaN(), nil, true, []any{"y", int64(2)},
	map[string]any{"k": "v"}, map[string]any{"\xff": 1}, json.Number("1e999"), struct{}{}}

// nextArgs is the arguments after prev: mostly the same names (with new
// values, a name swapped for another, or one added or taken away), else
// new ones.
func nextArgs(r *rand.Rand, prev map[string]any) map[string]any {
	m := map[string]any{}
	if prev == nil || r.IntN(5) == 0 {
		for range r.IntN(5) {
			m[orderNames[r.IntN(len(orderNames))]] = orderValues[r.IntN(len(orderValues))]
		}
		return m
	}
	for k, v := range prev {
		if r.IntN(3) == 0 {
			v = orderValues[r.IntN(len(orderValues))]
		}
		m[k] = v
	}
	switch r.IntN(4) {
	case 0: // swap a name
		if len(m) > 0 {
			renameOne(m, orderNames[r.IntN(len(orderNames))])
		}
	case 1:
		m[orderNames[r.IntN(len(orderNames))]] = orderValues[r.IntN(len(orderValues))]
	case 2:
		for k := range m {
			delete(m, k)
			break
		}
	}
	return m
}

// renameOne gives one of m's values (m is not empty) the name name
// instead of its own: arguments of as many names, one of them another.
func renameOne(m map[string]any, name string) {
	for k, v := range m {
		delete(m, k)
		m[name] = v
		return
	}
}

// The fingerprint reads the arguments' names in the order it remembers
// from the last call when they are the same names (appendInOrder): it must
// be the fingerprint, canonical JSON and error of arguments read afresh,
// whatever the names and values before.
func TestFingerprintNameOrder(t *testing.T) {
	checkOrderedFingerprints(t, []map[string]any{
		{"path": "/a", "limit": int64(1)},
		{"path": "/b", "limit": 2.5},
		{"path": "/b", "limits": int64(2)},     // same size, another name
		{"path": "/b", "limit": math.NaN()},    // an error in the remembered order
		{"path": "\xff", "limit": int64(1)},    // an error after it
		{"path": "/c", "\xfe": int64(1)},       // a name without a fingerprint
		{"\U00010000": 1, "\ue000": 2},         // UTF-16 order
		{"\U00010000": 1, "\ue000": 2, "a": 3}, // one more
		{"\U00010000": 1, "\ue000": 2},         // one fewer
		{},
		nil,
		{"\U00010000": 1, "\ue000": "\xff"},
	})
	r := rand.New(rand.NewPCG(23, 5))
	for range 200 {
		seq := make([]map[string]any, 50)
		var prev map[string]any
		for i := range seq {
			prev = nextArgs(r, prev)
			seq[i] = prev
		}
		checkOrderedFingerprints(t, seq)
	}
}

// FuzzFingerprintNameOrder: a sequence of arguments spelled by the fuzzer,
// each from the last (TestFingerprintNameOrder).
func FuzzFingerprintNameOrder(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{3, 3, 3, 0, 7, 7, 1, 2, 9, 4, 4, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := rand.New(rand.NewPCG(uint64(len(data)), 0))
		var seq []map[string]any
		var prev map[string]any
		for i := 0; i+1 < len(data) && len(seq) < 64; i += 2 {
			if data[i]%4 == 0 {
				prev = nextArgs(r, prev)
			} else {
				m := map[string]any{}
				for k, v := range prev {
					m[k] = v
				}
				m[orderNames[int(data[i])%len(orderNames)]] = orderValues[int(data[i+1])%len(orderValues)]
				if data[i+1]&0x80 != 0 {
					delete(m, orderNames[int(data[i+1])%len(orderNames)])
				}
				prev = m
			}
			seq = append(seq, prev)
		}
		checkOrderedFingerprints(t, seq)
	})
}
