package guard

// This file owns the last check of a transform (spec 11): no copy of a
// redacted string survives anywhere in the result, also where no text
// unit is (a _meta, a name in structuredContent), which the transform
// does not rewrite, in what it kept of the units (a copy the validator
// did not match where it stands: `creds_<key>.json`, `<key>X`), and in
// numbers (a card number held as a JSON number, in any notation, or one
// of the same double).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"index/suffixarray"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// survivor returns an error when one of the redacted strings is in the
// rewritten result: in what the transform kept of a text unit (a copy
// the validator did not match there, run together with word characters,
// which no span covered; r.kept, where a replacement's own text is no
// copy), or outside the units: a member name anywhere, a string value
// of any member other than a text item's or a text resource's text (the
// units), and the names and numbers of structuredContent. The data of
// images, audio and blobs (content the engine cannot read, which spec 11
// passes on unchanged) are not searched; a resource link, also passed on
// unchanged, is: its name, title, description, uri and _meta reach the
// client as text.
//
// A copy is a redacted string whole, as the transform took it out of its
// unit, or one of its lines that is key material on its own (see
// [materialLines]), not any line of it: a key block's last line "==" or
// a JSON object's "}" is elsewhere in many a benign file. Carriage
// returns do not count (a copy with other line ends is one): they are
// taken out of the redacted strings and of the text searched.
func (r *result) survivor() error {
	var gone []string
	for _, g := range r.gone {
		if g = noCR(g); g != "" {
			gone = append(gone, g)
			gone = append(gone, materialLines(g)...)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	// The units: what the transform kept of each (its replacements are
	// no copies, even where a redacted string holds their text).
	if anyIn(gone, r.kept) {
		return fmt.Errorf("a string the transform redacted is also in a text unit, where the validator did not match it (run together with other characters)")
	}
	// Numbers by their value: the redacted strings of digits (a card,
	// whose separators a number cannot hold: a card redacted with them is
	// searched without), searched in the decimal
	// form of a number written in another notation (4.111111111111111e15,
	// read by a client as the card; the middleware on a client sees it as
	// the SDK re-encodes it, 4111111111111111), and by their value as a
	// double: most clients read a number as one (the Go SDK decodes it into
	// a float64 before the middleware on a client sees it, re-encoded
	// 4111111111111111000 for a card of 19 digits written
	// 4111111111111111110), so a number of the same double is a copy,
	// whatever digits it is written with. Only a string of digits can be in
	// a number's decimal form, so without one no number is expanded.
	// A string of digits with separators (a card as oarc.pii finds it,
	// "4111 1111 1111 1111") is searched by its digits: a number holding
	// the card cannot hold the separators.
	var digits []string
	doubles := map[float64]bool{}
	seps := strings.NewReplacer(" ", "", "-", "")
	for _, g := range gone {
		d := seps.Replace(g)
		if d != "" && strings.Trim(d, "0123456789") == "" {
			digits = append(digits, d)
			if f, err := strconv.ParseFloat(d, 64); err == nil {
				doubles[f] = true
			}
		}
	}
	// What is searched: the texts outside the units (names, strings,
	// numbers as written), and the decimal forms of the numbers.
	var texts, decimals []string
	double := false
	check := func(s string) { texts = append(texts, s) }
	num := func(n json.Number) {
		if double || len(digits) == 0 {
			return
		}
		if f, err := strconv.ParseFloat(string(n), 64); err == nil && doubles[f] {
			double = true
			return
		}
		d := decimal(string(n))
		if d == "" && !strings.ContainsAny(string(n), ".eE") {
			d = string(n) // an integer as written
		}
		if d != "" {
			decimals = append(decimals, d)
		}
	}
	walk := func(raw json.RawMessage, values bool) {
		// Numbers as written: a card number held as a JSON number is a
		// copy too (a TypeScript SDK tool's structuredContent, whose text
		// is that JSON stringified), and never a unit.
		tokens(raw, values, check, num)
	}
	for k, v := range r.top {
		check(k)
		switch k {
		case "content", "structuredContent":
			continue
		}
		walk(v, true)
	}
	for _, it := range r.items {
		// A resource link is passed on unchanged (spec 11), as images
		// are, but its members (name, title, description, uri, _meta)
		// are text that reaches the client, and are searched.
		for k, v := range it.m {
			check(k)
			switch {
			case k == "text" && it.kind == "text":
			case k == "data" && (it.kind == "image" || it.kind == "audio"):
				// Not text: passed on unchanged (spec 11).
			case k == "resource" && it.res != nil:
				for rk, rv := range it.res {
					check(rk)
					if rk != "text" && rk != "blob" {
						walk(rv, true)
					}
				}
			default:
				walk(v, true)
			}
		}
	}
	if r.structured != nil {
		walk(r.structured, false)
	}
	if double || anyIn(gone, texts) || anyIn(digits, decimals) {
		return fmt.Errorf("a string the transform redacted is also in the result where the guard does not rewrite text (a _meta, a member name)")
	}
	return nil
}

// naiveWork bounds the work of searching each text for each string in
// turn (strings times bytes searched): beyond it anyIn searches all the
// strings at once, in a suffix array of the texts.
const naiveWork = 1 << 28

// anyIn reports whether one of pats is in one of texts, carriage returns
// not counted. Its time is about linear in the sizes of both, however
// many strings are searched (a result with 60,000 redacted e-mail
// addresses, and as many copies of them kept elsewhere): beyond
// naiveWork it builds a suffix array of the texts, joined by a byte no
// UTF-8 text holds, so that no match runs across two of them, and
// looks each string up in it.
func anyIn(pats, texts []string) bool {
	if len(pats) == 0 || len(texts) == 0 {
		return false
	}
	texts = slices.Clone(texts)
	size := 0
	for i, t := range texts {
		texts[i] = noCR(t)
		size += len(texts[i]) + 1
	}
	seen := make(map[string]bool, len(pats))
	var uniq []string
	for _, p := range pats {
		if p != "" && !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	if len(uniq) == 0 {
		return false
	}
	if len(uniq)*size <= naiveWork {
		for _, t := range texts {
			for _, p := range uniq {
				if strings.Contains(t, p) {
					return true
				}
			}
		}
		return false
	}
	const sep = 0xff // never in UTF-8
	buf := make([]byte, 0, size)
	for _, t := range texts {
		buf = append(buf, t...)
		buf = append(buf, sep)
	}
	idx := suffixarray.New(buf)
	for _, p := range uniq {
		if strings.IndexByte(p, sep) >= 0 {
			// Not UTF-8 (no text of a result is): searched as it is.
			for _, t := range texts {
				if strings.Contains(t, p) {
					return true
				}
			}
			continue
		}
		if len(idx.Lookup([]byte(p), 1)) > 0 {
			return true
		}
	}
	return false
}

// minMaterialLine is the length from which a line of a redacted string
// with no white space is key material on its own.
const minMaterialLine = 32

// materialLines returns the lines of a redacted string of several lines
// that are key material on their own: at least minMaterialLine bytes
// with no white space (the base64 body of a PEM or PGP block, 64 bytes a
// line, a token broken over lines). The body of a key copied without its
// BEGIN and END lines is no whole copy of the redacted block, but it is
// the key; its validator would not find it there (no markers), so only
// this check keeps it from the client. Short lines ("==", "}") and lines
// with spaces (armor headers such as "Version: GnuPG v2", which a
// public block shares with its private one) are left out: they are in
// many a benign result.
func materialLines(g string) []string {
	if !strings.Contains(g, "\n") {
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(g, "\n") {
		if len(line) >= minMaterialLine && strings.IndexFunc(line, unicode.IsSpace) < 0 && line != g {
			out = append(out, line)
		}
	}
	return out
}

// noCR is s without its carriage returns.
func noCR(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\r", "")
}

// tokens calls fn with every object member name and number in the
// valid JSON raw (the number as written), and every string value when
// values is true; num with every number. It reads the tokens as they
// come, so that a name given twice and each of its values are read (a
// client's parser may keep the first, where encoding/json keeps the
// last).
func tokens(raw json.RawMessage, values bool, fn func(string), num func(json.Number)) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	// open are the containers open, innermost last: true for an object
	// whose next token is a name.
	type container struct{ object, name bool }
	var open []container
	for {
		t, err := d.Token()
		if err != nil {
			return
		}
		top := len(open) - 1
		if dl, ok := t.(json.Delim); ok && (dl == '}' || dl == ']') {
			open = open[:top]
			if top > 0 && open[top-1].object {
				open[top-1].name = true
			}
			continue
		}
		if top >= 0 && open[top].name {
			if k, ok := t.(string); ok {
				fn(k)
			}
			open[top].name = false
			continue
		}
		switch v := t.(type) {
		case json.Delim:
			open = append(open, container{object: v == '{', name: v == '{'})
			continue
		case json.Number:
			fn(string(v))
			num(v)
		case string:
			if values {
				fn(v)
			}
		}
		if top >= 0 && open[top].object {
			open[top].name = true
		}
	}
}

// maxDecimalExp bounds the exponent of a number that decimal expands:
// beyond it the expansion would be long (a denial of service), and no
// double has such a value (a client reads it as infinity, or zero).
const maxDecimalExp = 1024

// decimal is the value of the JSON number n written out in decimal, with
// no exponent and no trailing zeros after the point (4.111111111111111e15
// is 4111111111111111): the card number a client reads, whatever notation
// the server wrote it in. The proxy sees numbers as written, the
// middleware on a client as the SDK re-encodes them (in this notation up
// to 1e21), so both search this form too, and withhold alike. "" when
// the exponent is beyond maxDecimalExp or n is no number.
func decimal(n string) string {
	if !strings.ContainsAny(n, ".eE") {
		return "" // an integer as written: that is its decimal form
	}
	mant, e := n, 0
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		var err error
		e, err = strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
		if err != nil || e > maxDecimalExp || e < -maxDecimalExp {
			return ""
		}
		mant = n[:i]
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	// A decimal fraction: the places of the mantissa after its point,
	// less the exponent, give it exactly.
	places := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		places = len(mant) - i - 1
	}
	return strings.TrimRight(r.FloatString(max(places-e, 0)), "0")
}
