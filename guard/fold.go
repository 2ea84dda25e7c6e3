package guard

import (
	"fmt"
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
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 1 {
			// In order of names, so that the error is the same for
			// every evaluation of one call.
			seen := make(map[string]string, len(v))
			for _, name := range slices.Sorted(maps.Keys(v)) {
				f := foldKey(name)
				if other, ok := seen[f]; ok {
					return fmt.Errorf("the arguments have the names %+q and %+q, which differ only by case: a server may read either", other, name)
				}
				seen[f] = name
			}
		}
		for _, x := range v {
			if err := foldedNames(x); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := foldedNames(x); err != nil {
				return err
			}
		}
	}
	return nil
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
