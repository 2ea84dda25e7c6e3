package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// unquote agrees with encoding/json on every string of a valid document.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u20ac\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, `"\ud83d\u0041"`, "\"\xff\xfe\"", `"é"`, `"\u0000"`, "\"\xed\xa0\x80\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The guard unquotes exact string spans.
		b = bytes.TrimSpace(b)
		var want string
		if json.Unmarshal(b, &want) != nil || !json.Valid(b) || len(b) == 0 || b[0] != '"' {
			return
		}
		got, err := Unquote(b)
		if err != nil || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json: %q", b, got, err, want)
		}
	})
}

func TestWellFormed(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"b"}`, `{"a":"b"}`},
		{`{"a":"\ud800x","\udc00":["\ud83d\ude00",1]}`, `{"a":"` + "\uFFFD" + `x","` + "\uFFFD" + `":["` + "\U0001F600" + `",1]}`},
		{"{\"a\":\"AKIA\xffIOS\"}", `{"a":"AKIA` + "\uFFFD" + `IOS"}`},
		{`{"a":"\\udc00","b":"\u00e9"}`, `{"a":"\\udc00","b":"` + "\u00e9" + `"}`},
	} {
		if got := string(WellFormed([]byte(tc.in))); got != tc.want {
			t.Errorf("WellFormed(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Unique reads as encoding/json reads the document (the last value of a
// name given twice), gives no name twice, and returns a document without
// such names as it is.
func FuzzUnique(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[{"a":{"b":1,"b":[{"c":1,"c":2}]},"\u0061":3}]`, ` { "x" : "y" , "z" : [ ] } `, `"s"`, `{}`, `[]`, `{"a":{"a":1},"b":2,"a":{"a":3,"a":4}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		u := Unique(b)
		var want, got any
		if json.Unmarshal(b, &want) != nil || json.Unmarshal(u, &got) != nil {
			t.Fatalf("%s -> %s: not JSON", b, u)
		}
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		if !bytes.Equal(w, g) {
			t.Fatalf("%s -> %s: reads %s, want %s", b, u, g, w)
		}
		if dupNames(u) {
			t.Fatalf("%s -> %s: a name twice", b, u)
		}
		if !dupNames(b) && !bytes.Equal(u, b) {
			t.Fatalf("%s -> %s: changed without a name twice", b, u)
		}
	})
}

// dupNames reports whether an object in the valid JSON b has a name twice.
func dupNames(b []byte) bool {
	switch bytes.TrimSpace(b)[0] {
	case '{':
		m, dups, _ := MembersDup(b)
		if len(dups) > 0 {
			return true
		}
		for _, v := range m {
			if dupNames(v) {
				return true
			}
		}
	case '[':
		els, _ := Elements(b)
		for _, e := range els {
			if dupNames(e) {
				return true
			}
		}
	}
	return false
}
