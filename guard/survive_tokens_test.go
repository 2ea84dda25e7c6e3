package guard

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/oarc/oarc/guard/internal/jsonscan"
)

// tokens reads what a decoded walk reads (every name, every number as
// written, every string value when asked) of a document without a name
// given twice, and every value of one given twice.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",{"b":2.5e3}],"c":{"d":[[]],"e":"y"},"f":null,"g":true}`, `[{"a":{}},{"b":[{"c":"z"}]}]`, `"s"`, `12`, `{"a":1,"a":"v","a":{"k":2}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		for _, values := range []bool{true, false} {
			var got []string
			var nums []string
			tokens(b, values, func(s string) { got = append(got, s) }, func(n json.Number) { nums = append(nums, string(n)) })
			if !bytes.Equal(jsonscan.Unique(b), b) {
				// A name given twice: each value is read, so there are
				// at least as many as a decoded walk reads.
				var want []string
				walkDecoded(t, b, values, &want)
				if len(got) < len(want) {
					t.Fatalf("%s: %d read, want at least %d", b, len(got), len(want))
				}
				continue
			}
			var want []string
			walkDecoded(t, b, values, &want)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s (values %v): read %q, want %q", b, values, got, want)
			}
			for _, n := range nums {
				if !slices.Contains(got, n) {
					t.Fatalf("%s: number %s not read as text", b, n)
				}
			}
		}
	})
}

func walkDecoded(t *testing.T, b []byte, values bool, out *[]string) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case json.Number:
			*out = append(*out, string(v))
		case string:
			if values {
				*out = append(*out, v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				*out = append(*out, k)
				walk(e)
			}
		}
	}
	walk(v)
}
