package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// These tests try to break the remembered order of the arguments' names
// (KeptFacts.order, appendInOrder): the fingerprint, canonical JSON and
// error of ComputeFingerprint must be those of ArgsFingerprint on the same
// arguments, whatever the decision computed before.

// checkLikeAfresh computes the fingerprint of args into k and afresh, and
// fails unless the fingerprint, canonical JSON and error agree.
func checkLikeAfresh(t *testing.T, what string, k *KeptFacts, args map[string]any) {
	t.Helper()
	want, buf, wantErr := ArgsFingerprint(nil, args)
	got, gotErr := k.ComputeFingerprint(args)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || got != want {
		t.Fatalf("%s: %s %v, want %s %v", what, got, gotErr, want, wantErr)
	}
	if wantErr == nil && (string(k.buf) != string(buf) || k.Fingerprint != want.String()) {
		t.Fatalf("%s: JSON %q (%s), want %q (%s)", what, k.buf, k.Fingerprint, buf, want)
	}
	if wantErr != nil && k.Fingerprint != "" {
		t.Fatalf("%s: fingerprint %q after %v", what, k.Fingerprint, wantErr)
	}
}

// A Decision copied by value shares its buffers with the original: what
// one copy remembers of the names must not make the other write names
// twice, leave one out, or write them out of canonical order. Before the
// remembered order, a copy shared only scratch space (a sequential use of
// two copies gave the right fingerprints); the order is state that
// outlives the call.
func TestReview4DecisionCopyKeepsNameOrder(t *testing.T) {
	for _, c := range []struct {
		name       string
		first      map[string]any // into the original
		copyArgs   map[string]any // into the copy
		next       map[string]any // into the original again
		wantInJSON string
	}{
		// The copy writes "b" over the original's "a": the original's order
		// reads [b b c], and arguments {b c x} have as many names, each
		// of [b b c] among them.
		{"duplicate", map[string]any{"a": 1, "b": 2, "c": 3}, map[string]any{"b": 1},
			map[string]any{"b": 1, "c": 2, "x": 3}, `"x":3`},
		// The copy writes "z" over "a": [z b c] is not canonical order.
		{"unordered", map[string]any{"a": 1, "b": 2, "c": 3}, map[string]any{"z": 1},
			map[string]any{"b": 1, "c": 2, "z": 3}, `{"b":1,"c":2,"z":3}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d Decision
			checkLikeAfresh(t, "original", &d.Kept, c.first)
			cp := d
			checkLikeAfresh(t, "copy", &cp.Kept, c.copyArgs)
			checkLikeAfresh(t, "original after the copy", &d.Kept, c.next)
			if !strings.Contains(string(d.Kept.buf), c.wantInJSON) {
				t.Fatalf("JSON %q lacks %s", d.Kept.buf, c.wantInJSON)
			}
		})
	}
}

// review4Names: names equal in count but different, prefixes of each
// other, UTF-16 order against byte order, the empty name, invalid UTF-8,
// a NUL, case.
var review4Names = []string{"a", "ab", "abc", "b", "", "é", "\ue000", "\U00010000", "\xff", "\xed\xa0\x80",
	"a\x00", "A", "path", "pat", "limit", "\"", "\\", "\n"}

// review4Value is a value, sometimes one without a fingerprint, sometimes
// a nested map (with names of its own, in no remembered order).
func review4Value(r *rand.Rand, names []string, depth int) any {
	switch r.IntN(14) {
	case 0:
		return math.NaN()
	case 1:
		return "\xfe"
	case 2:
		return nil
	case 3:
		return 1.0
	case 4:
		return int64(1)
	case 5:
		if depth < 3 {
			m := map[string]any{}
			for range r.IntN(4) {
				m[names[r.IntN(len(names))]] = review4Value(r, names, depth+1)
			}
			return m
		}
		return map[string]any{}
	case 6:
		return []any{review4Value(r, names, depth+1), "x"}
	case 7:
		return struct{}{}
	}
	return strconv.Itoa(r.IntN(3))
}

// review4Args are arguments: mostly the names of prev (values changed,
// the same map mutated in place, one name swapped, added or removed),
// else new ones; sometimes nil or empty; sometimes more than 32 names.
func review4Args(r *rand.Rand, names []string, prev map[string]any) map[string]any {
	switch r.IntN(12) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	case 2: // more than sortInPlace names
		m := map[string]any{}
		for i := range sortInPlace + 1 + r.IntN(4) {
			m["k"+strconv.Itoa(i)] = int64(i)
		}
		if r.IntN(2) == 0 {
			m[names[r.IntN(len(names))]] = review4Value(r, names, 1)
		}
		return m
	case 3, 4: // the host mutates the same map
		if prev != nil {
			for k := range prev {
				if r.IntN(2) == 0 {
					prev[k] = review4Value(r, names, 1)
				} else {
					delete(prev, k)
					prev[names[r.IntN(len(names))]] = review4Value(r, names, 1)
				}
				break
			}
			return prev
		}
	case 5, 6, 7, 8:
		if prev != nil {
			m := make(map[string]any, len(prev))
			for k, v := range prev {
				m[k] = v
			}
			switch r.IntN(3) {
			case 0: // a name swapped for another
				if len(m) > 0 {
					renameOne(m, names[r.IntN(len(names))])
				}
			case 1:
				m[names[r.IntN(len(names))]] = review4Value(r, names, 1)
			}
			return m
		}
	}
	m := map[string]any{}
	for range r.IntN(6) {
		m[names[r.IntN(len(names))]] = review4Value(r, names, 1)
	}
	return m
}

// Several decisions, some copied by value from others at random points
// (sharing their buffers), each used in turn: every fingerprint, JSON and
// error is that of the arguments afresh. With many names (review4Names)
// and with four, so that arguments of as many names as the remembered
// ones are frequent.
func TestReview4NameOrderAnyHistory(t *testing.T) {
	for _, names := range [][]string{review4Names, {"a", "b", "c", "\xff"}} {
		review4History(t, names)
	}
}

func review4History(t *testing.T, names []string) {
	r := rand.New(rand.NewPCG(4, uint64(len(names))))
	for round := range 300 {
		ds := make([]*Decision, 1, 4)
		ds[0] = new(Decision)
		var prev map[string]any
		for i := range 60 {
			if len(ds) < cap(ds) && r.IntN(8) == 0 {
				cp := *ds[r.IntN(len(ds))]
				ds = append(ds, &cp)
			}
			d := ds[r.IntN(len(ds))]
			if r.IntN(10) == 0 {
				d.Reset() // keeps the order: a new occurrence
			}
			prev = review4Args(r, names, prev)
			checkLikeAfresh(t, fmt.Sprintf("round %d call %d %#v", round, i, prev), &d.Kept, prev)
		}
	}
}

// FuzzReview4NameOrderCopies: the fuzzer spells a sequence of arguments
// (names of a small set, so that as many names as the remembered ones
// are frequent) into decisions it copies by value when it likes.
func FuzzReview4NameOrderCopies(f *testing.F) {
	f.Add([]byte{0x07, 0x80, 0x01, 0x07})
	f.Add([]byte{0x0b, 0x81, 0x02, 0x0e, 0x03})
	names := []string{"a", "ab", "b", "\ue000", "\U00010000", "\xff"}
	f.Fuzz(func(t *testing.T, data []byte) {
		ds := []*Decision{new(Decision)}
		for i, b := range data {
			if b&0x80 != 0 && len(ds) < 4 {
				cp := *ds[int(b>>5)%len(ds)]
				ds = append(ds, &cp)
				continue
			}
			var args map[string]any
			if b != 0x7f {
				args = map[string]any{}
				for j, n := range names {
					if b&(1<<j) != 0 {
						args[n] = int64(i)
					}
				}
			}
			checkLikeAfresh(t, fmt.Sprintf("byte %d %#v", i, args), &ds[i%len(ds)].Kept, args)
		}
	})
}
