package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
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
	for _, s := range []string{`{"a":1,"a":2}`, `[{"a":{"b":1,"b":[{"c":1,"c":2}]},"\u0061":3}]`, ` { "x" : "y" , "z" : [ ] } `, `"s"`, `{}`, `[]`, `{"a":{"a":1},"b":2,"a":{"a":3,"a":4}}`,
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k\u00317":18}`} {
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
		if twiceNamed(u) {
			t.Fatalf("%s -> %s: a name twice", b, u)
		}
		if !twiceNamed(b) && !bytes.Equal(u, b) {
			t.Fatalf("%s -> %s: changed without a name twice", b, u)
		}
	})
}

// twiceNamed reports whether an object in the valid JSON b has a name twice.
func twiceNamed(b []byte) bool {
	switch bytes.TrimSpace(b)[0] {
	case '{':
		m, dups, _ := MembersDup(b)
		if len(dups) > 0 {
			return true
		}
		for _, v := range m {
			if twiceNamed(v) {
				return true
			}
		}
	case '[':
		els, _ := Elements(b)
		for _, e := range els {
			if twiceNamed(e) {
				return true
			}
		}
	}
	return false
}

// Unique is linear in the size of its input whatever the nesting: a
// value nested 9,000 deep around a string of 8 MiB, in an object that
// gives a name twice, is read once, not once at each depth (72 GB).
func TestUniqueLinear(t *testing.T) {
	const depth = 9000
	big := bytes.Repeat([]byte("x"), 8<<20)
	var b []byte
	b = append(b, `{"a":1,"a":`...)
	b = append(b, bytes.Repeat([]byte("["), depth)...)
	b = append(b, '"')
	b = append(b, big...)
	b = append(b, '"')
	b = append(b, bytes.Repeat([]byte("]"), depth)...)
	b = append(b, '}')
	done := make(chan []byte, 1)
	go func() { done <- Unique(b) }()
	select {
	case u := <-done:
		if want := len(b) - len(`"a":1,`); len(u) != want || !bytes.HasPrefix(u, []byte(`{"a":[[[`)) {
			t.Errorf("%d bytes, want %d", len(u), want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Unique did not end within 20 s: not linear")
	}
}
