package guard

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFoldKeyIsEqualFold: two names have one fold key exactly when
// strings.EqualFold holds, on names built from the code points with the
// most case-folding partners (Kelvin sign, long s, Greek sigma forms,
// dotted and dotless i, ASCII) and invalid bytes.
func TestFoldKeyIsEqualFold(t *testing.T) {
	atoms := []string{"k", "K", "\u212a", "s", "S", "\u017f", "\u03c3", "\u03a3", "\u03c2", "i", "I", "\u0130", "\u0131",
		"\u1e9e", "\u00df", "\u01c4", "\u01c5", "\u01c6", "a", "\xff", "\xfe", "\ufffd", "_", "1"}
	r := rand.New(rand.NewPCG(1, 2))
	name := func() string {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(atoms[r.IntN(len(atoms))])
		}
		return b.String()
	}
	for range 200000 {
		a, b := name(), name()
		if got, want := foldKey(a) == foldKey(b), strings.EqualFold(a, b); got != want {
			t.Fatalf("%q %q: same fold key %v, EqualFold %v", a, b, got, want)
		}
	}
}

// TestFoldedNamesBlocked: a call whose arguments have two names that
// differ only by case, in any object at any depth, is blocked with
// OAR_GUARD before anything reaches the server: a server that decodes
// the arguments with encoding/json reads the last of them, which no
// rule read. Names that differ otherwise go ahead.
func TestFoldedNamesBlocked(t *testing.T) {
	for _, tc := range []struct {
		args    string
		blocked string // "" goes ahead, else the two names in the error
	}{
		{`{"path":"/ok","PATH":"/etc"}`, `"PATH" and "path"`},
		{`{"path":"/ok","Path":"/etc"}`, `"Path" and "path"`},
		{`{"opts":{"mode":"r","MODE":"w"}}`, `"MODE" and "mode"`},
		{`{"list":[{"x":1},{"key":1,"\u212aey":2}]}`, `"key" and "\u212aey"`},
		{`{"path":"/ok","paths":"/etc","pa_th":1}`, ``},
		{`{"a":{"A1":1},"A":{"a1":2}}`, `"A" and "a"`},
		{`{"only":{"ONLY":1}}`, ``},
	} {
		m, err := decodeArgs(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		err = foldedNames(m)
		switch {
		case tc.blocked == "" && err != nil:
			t.Errorf("%s: %v, want it to go ahead", tc.args, err)
		case tc.blocked != "" && (err == nil || !strings.Contains(err.Error(), tc.blocked)):
			t.Errorf("%s: %v, want an error naming %s", tc.args, err, tc.blocked)
		}
	}
}

func decodeArgs(s string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("%s: %v", s, err)
	}
	return v, nil
}
