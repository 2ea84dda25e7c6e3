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
