package guard

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// foldedNames refuses tool arguments in which one object, at any depth,
// has two member names that differ only by case ("path" and "PATH", or
// "k" and the Kelvin sign "K"). The rules read tool_args as written,
// one member each; a server written in Go that decodes the arguments
// into a struct with encoding/json matches names without regard to case
// and keeps the last, so it would act on an argument no rule read
// ({"path": "/ok", "PATH": "/etc"}: the rules see /ok, the server
// /etc). Such a call cannot be evaluated as the server will read it: it
// is blocked (docs/mcp.md).
func foldedNames(v any) error {
	if a, b, ok := foldedPair(v); ok {
		return fmt.Errorf("the arguments have the names %+q and %+q, which differ only by case: a server may read either", a, b)
	}
	return nil
}

// foldedPair returns two names of one object in v, at any depth, that
// differ only by case.
func foldedPair(v any) (a, b string, ok bool) {
	switch v := v.(type) {
	case map[string]any:
		if a, b, ok := sameFold(maps.Keys(v)); ok {
			return a, b, true
		}
		for _, x := range v {
			if a, b, ok := foldedPair(x); ok {
				return a, b, true
			}
		}
	case []any:
		for _, x := range v {
			if a, b, ok := foldedPair(x); ok {
				return a, b, true
			}
		}
	}
	return "", "", false
}

// CaseCollision returns an error naming two of the names that differ
// only by case, nil when there are none: the member names of one JSON
// object that a peer in Go, decoding with encoding/json, may read as one
// (the last of them), while the guard read the one spelt exactly. The
// proxy refuses such a message (docs/mcp.md).
func CaseCollision(names iter.Seq[string]) error {
	if a, b, ok := sameFold(names); ok {
		return fmt.Errorf("the names %+q and %+q differ only by case: a peer may read either", a, b)
	}
	return nil
}

// sameFold returns two of the names that differ only by case, the first
// such pair in order of names (so that an error is the same for every
// evaluation of one message).
func sameFold(names iter.Seq[string]) (a, b string, ok bool) {
	sorted := slices.Sorted(names)
	if len(sorted) < 2 {
		return "", "", false
	}
	seen := make(map[string]string, len(sorted))
	for _, name := range sorted {
		f := foldKey(name)
		if other, ok := seen[f]; ok {
			return other, name, true
		}
		seen[f] = name
	}
	return "", "", false
}

// foldKey is name with every code point replaced by the least of its
// simple case folding orbit (unicode.SimpleFold), so that two names have
// one key exactly when strings.EqualFold (which encoding/json's name
// matching is) holds for them; an invalid byte is U+FFFD, as there.
func foldKey(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
		i += n
	}
	return b.String()
}
