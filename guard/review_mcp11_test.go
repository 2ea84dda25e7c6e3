package guard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// TestRedactedLinesNoFalseCopy: the copy check searched every line of a
// redacted region on its own, so a private key block whose lines are
// also elsewhere in a benign file withheld the whole result (OAR_GUARD)
// instead of redacting the key: an OpenSSH key whose last line is "=="
// beside a script with `a == b`, or a PGP key export (public block, then
// private block) whose headers ("Version: GnuPG v1") are in both blocks.
// Spec 11: no copy of a redacted string survives; a redacted string is
// the region as it stood in its unit (cut only at unit boundaries), and
// a line of it is no copy of it.
func TestRedactedLinesNoFalseCopy(t *testing.T) {
	sshKey := "-----BEGIN OPENSSH PRIVATE KEY-----\n" +
		strings.Repeat("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 4) + "\n==\n" +
		"-----END OPENSSH PRIVATE KEY-----"
	pgpHead := "Version: GnuPG v1\n\n"
	for name, tc := range map[string]struct{ file, key string }{
		"ssh ==": {"#!/bin/sh\n[ \"$a\" == \"$b\" ] && deploy\ncat > id <<K\n" + sshKey + "\nK\n", sshKey},
		"pgp headers": {"-----BEGIN PGP PUBLIC KEY BLOCK-----\n" + pgpHead + "mQENBFpub\n=pub1\n-----END PGP PUBLIC KEY BLOCK-----\n" +
			"-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + pgpHead + "lQOYBFsecret\n=sec1\n-----END PGP PRIVATE KEY BLOCK-----\n",
			"-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + pgpHead + "lQOYBFsecret\n=sec1\n-----END PGP PRIVATE KEY BLOCK-----"},
	} {
		t.Run(name, func(t *testing.T) {
			c := proxyConn(newGuard(t), fs)
			ctx := context.Background()
			k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
			out := k.Finish(ctx, fsResult(tc.file), 0, guard.FinishOptions{})
			want := strings.Replace(tc.file, tc.key, "[REDACTED]", 1)
			d := decode(t, out)
			if k.Code() != "" || len(d.Content) != 1 || d.Content[0].Text != want {
				t.Fatalf("code %q, out %s", k.Code(), out)
			}
		})
	}
}

// spanSet redacts the given substrings of a result's content, as a
// host's validator reporting those spans does.
type spanSet struct {
	secrets []string
	// once redacts only the first occurrence of each, as a validator
	// that misses a copy run together with other text does.
	once bool
}

func (spanSet) Info() *guard.Info {
	return &guard.Info{Name: "spans", Anchors: []guard.Anchor{guard.ToolResult}}
}

func (s spanSet) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Anchor != guard.ToolResult {
		return nil
	}
	runes := []rune(o.Content)
	for _, sec := range s.secrets {
		sr := []rune(sec)
		for i := 0; i+len(sr) <= len(runes); i++ {
			if string(runes[i:i+len(sr)]) == sec {
				d.Effect, d.Code = runtime.Transform, "REDACT"
				d.Redactions = append(d.Redactions, runtime.Redaction{Start: int64(i), End: int64(i + len(sr)), Replacement: "[REDACTED]"})
				if s.once {
					break
				}
			}
		}
	}
	return nil
}

// TestRedactedRegionCopies: a host validator's span over several lines
// (a credentials object) is one redacted string: its closing "}" line is
// no copy of it in the rest of a JSON file, while the whole of it, also
// with other line ends, in _meta or in another unit run together with
// other characters, is one and withholds the result.
func TestRedactedRegionCopies(t *testing.T) {
	secret := "{\n  \"token\": \"s3cr3t-v4lue\"\n}"
	g, err := guard.New(spanSet{secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(res json.RawMessage) (string, json.RawMessage) {
		c := proxyConn(g, fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(ctx, res, 0, guard.FinishOptions{})
		return k.Code(), out
	}
	file := "{\n  \"name\": \"app\"\n}\n" + secret + "\n"
	if code, out := run(fsResult(file)); code != "" || decode(t, out).Content[0].Text != "{\n  \"name\": \"app\"\n}\n[REDACTED]\n" {
		t.Errorf("a benign file: code %q, out %s", code, out)
	}
	for _, res := range []json.RawMessage{
		args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": file}}, "_meta": map[string]string{"k": secret}}),
		args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": file}}, "_meta": map[string]string{"k": strings.ReplaceAll(secret, "\n", "\r\n")}}),
		args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": file}, {"type": "text", "text": "x" + strings.ReplaceAll(secret, "\n", "\r\n")}}}),
	} {
		if code, out := run(res); code != guard.CodeGuard || strings.Contains(string(out), "s3cr3t") {
			t.Errorf("%s: code %q, out %s", res, code, out)
		}
	}
}

// TestStructuredDuplicateNames: structuredContent that gives a member
// twice was passed on as it came. The guard's bindings read the last of
// each (encoding/json), so a client whose parser keeps the first read a
// value no rule checked: {"temperature":33,...,"temperature":20} was not
// hot to HOT_WEATHER, and 33 to such a client. The guard now passes on
// structuredContent with each object's names given once, the last value
// of each at its first place (as JavaScript's JSON.parse and Python's
// json read it), at any depth, and evaluates that.
func TestStructuredDuplicateNames(t *testing.T) {
	g := newGuard(t)
	ctx := context.Background()
	ev := guard.Server{ID: "everything", Configured: true, Enabled: true}
	for _, tc := range []struct{ result, want string }{
		{`{"structuredContent":{"temperature":33,"conditions":"Cloudy","humidity":82,"temperature":20}}`,
			`{"temperature":20,"conditions":"Cloudy","humidity":82}`},
		{`{"structuredContent":{"temperature":33,"conditions":"Cloudy","humidity":82,"w":[{"a":1,"b":{"c":2,"c":3},"\u0061":4}]}}`,
			`{"temperature":33,"conditions":"Cloudy","humidity":82,"w":[{"a":4,"b":{"c":3}}]}`},
		{`{"structuredContent":{"k":"` + awsKey + `","k":"ok"}}`, `{"k":"ok"}`},
		{`{"structuredContent":{"k":"ok","k":"key ` + awsKey + `"}}`, `{"k":"key [REDACTED]"}`},
	} {
		k := proxyConn(g, ev).Begin(ctx, nil, "get-structured-content", args(t, map[string]string{"location": "New York"}))
		out := k.Finish(ctx, json.RawMessage(tc.result), 0, guard.FinishOptions{})
		if d := decode(t, out); string(d.Structured) != tc.want || d.IsError {
			t.Errorf("%s: structuredContent %s, want %s (out %s)", tc.result, d.Structured, tc.want, out)
		}
	}
}

// TestCopyCheckScales: the copy check searched every text for every
// redacted string, one after the other: a file of 2 MiB holding 60,000
// e-mail addresses (a customer export read through server-filesystem,
// its text twice) took most of a minute, 32 MiB hours, with the proxy's
// reader held all the while; so did a number of 2 MiB digits beside
// 20,000 redacted cards. Each search is now of all the strings at once.
func TestCopyCheckScales(t *testing.T) {
	g, err := guard.New(piiSet{})
	if err != nil {
		t.Fatal(err)
	}
	var mails, cards strings.Builder
	for i := 0; mails.Len() < 2<<20; i++ {
		fmt.Fprintf(&mails, "%d,customer%d@example.com,ok\n", i, i)
	}
	for range 20000 {
		cards.WriteString("card 4111 1111 1111 1111\n")
	}
	// The bound tells the search of all strings at once (under 2 s on this
	// VM) from one after the other (most of a minute): 20 s leaves room
	// for a loaded machine. The race detector makes every search 5-15
	// times slower, so under it the bound would measure the machine: the
	// plain run of this test keeps it, the race run waits for the answer.
	limit := 20 * time.Second
	if racecheck.Enabled {
		limit = 10 * time.Minute
	}
	for name, res := range map[string]json.RawMessage{
		"mails": fsResult(mails.String()),
		"cards": args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": cards.String()}},
			"structuredContent": map[string]json.RawMessage{"n": json.RawMessage(strings.Repeat("7", 2<<20))}}),
	} {
		c := proxyConn(g, fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		done := make(chan json.RawMessage, 1)
		go func() { done <- k.Finish(ctx, res, 0, guard.FinishOptions{}) }()
		select {
		case out := <-done:
			if k.Code() != "" || strings.Contains(string(out), "@example.com") || strings.Contains(string(out), "4111 1111") {
				t.Errorf("%s: code %q", name, k.Code())
			}
		case <-time.After(limit):
			t.Fatalf("%s: the result was not evaluated within %v", name, limit)
		}
	}
	// A copy among many is still found: the last card again, run on.
	k := proxyConn(g, fs).Begin(context.Background(), nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	res := args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": cards.String()}},
		"structuredContent": map[string]json.RawMessage{"n": json.RawMessage("94111111111111111")}})
	if out := k.Finish(context.Background(), res, 0, guard.FinishOptions{}); k.Code() != guard.CodeGuard {
		t.Errorf("a card in a number went through: %.200s", out)
	}
}

// TestCopyCheckScalesFindsCopies: with many redacted strings the copy
// check searches them all at once; a copy of one of them kept in a unit
// is still found.
func TestCopyCheckScalesFindsCopies(t *testing.T) {
	var text strings.Builder
	secrets := make([]string, 3000)
	for i := range secrets {
		secrets[i] = fmt.Sprintf("tok-%05d-secret", i)
		fmt.Fprintf(&text, "line %d %s\n", i, secrets[i])
	}
	text.WriteString(strings.Repeat("filler ", 20000))
	base := text.String()
	g := spanIndex(secrets)
	for _, tc := range []struct {
		text string
		want string
	}{
		{base, ""},
		{base + "again: xtok-01234-secret", guard.CodeGuard},
	} {
		k := proxyConn(g, fs).Begin(context.Background(), nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(context.Background(), textResult(tc.text), 0, guard.FinishOptions{})
		if k.Code() != tc.want || strings.Contains(string(out), "tok-00042-secret") {
			t.Errorf("code %q, want %q", k.Code(), tc.want)
		}
	}
}

// spanIndex redacts the first occurrence of each secret, found by index.
func spanIndex(secrets []string) *guard.Guard {
	g, err := guard.New(indexSet(secrets))
	if err != nil {
		panic(err)
	}
	return g
}

type indexSet []string

func (indexSet) Info() *guard.Info {
	return &guard.Info{Name: "index", Anchors: []guard.Anchor{guard.ToolResult}}
}

func (s indexSet) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Anchor != guard.ToolResult {
		return nil
	}
	// ASCII content: byte offsets are code points.
	for _, sec := range s {
		if i := strings.Index(o.Content, sec); i >= 0 {
			d.Effect, d.Code = runtime.Transform, "REDACT"
			d.Redactions = append(d.Redactions, runtime.Redaction{Start: int64(i), End: int64(i + len(sec)), Replacement: "[REDACTED]"})
		}
	}
	slices.SortFunc(d.Redactions, func(a, b runtime.Redaction) int { return int(a.Start - b.Start) })
	return nil
}

// TestRedactedCopyInDuplicateName: the copy check read the members the
// guard does not rewrite (annotations, a _meta at any depth) with
// encoding/json, which keeps the last of a name given twice, while the
// result passes on as it came there: a copy of a redacted key under a
// name given twice, first, reached a client whose parser keeps the first
// value. Every value is searched, whatever its name.
func TestRedactedCopyInDuplicateName(t *testing.T) {
	for _, res := range []string{
		`{"content":[{"type":"text","text":"key ` + awsKey + `","annotations":{"note":"` + awsKey + `","note":"x"}}]}`,
		`{"content":[{"type":"text","text":"key ` + awsKey + `"}],"_meta":{"a":{"k":"` + awsKey + `","k":"x"}}}`,
		`{"content":[{"type":"text","text":"key ` + awsKey + `"}],"_meta":{"a":[{"` + awsKey + `":1,"` + awsKey + `":2}]}}`,
	} {
		c := proxyConn(newGuard(t), fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), awsKey) {
			t.Errorf("%s: code %q, out %s", res, k.Code(), out)
		}
	}
}

// TestRedactedKeyBodyCopies: the copy check looks for a redacted string
// whole, so a key block's base64 body copied elsewhere without its BEGIN
// and END lines (no whole copy, and nothing the validator finds there:
// no markers) reached the client. A line of a redacted string that is key
// material on its own (32 bytes or more, no white space) is a copy; the
// short lines and the header lines of the same key are not, so the
// benign files of TestRedactedLinesNoFalseCopy are still redacted.
func TestRedactedKeyBodyCopies(t *testing.T) {
	body := []string{
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz",
		"c2gtZWQyNTUxOQAAACDlGBo8bCR0PCmxyWgdMqOYVIyzLD7vo8yDdvnTTwmT0gAA",
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(body, "\n") + "\n==\n-----END OPENSSH PRIVATE KEY-----"
	file := "#!/bin/sh\n[ \"$a\" == \"$b\" ] && deploy\n" + key + "\n"
	run := func(res json.RawMessage) (string, json.RawMessage) {
		c := proxyConn(newGuard(t), fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(ctx, res, 0, guard.FinishOptions{})
		return k.Code(), out
	}
	if code, out := run(fsResult(file)); code != "" || decode(t, out).Content[0].Text != strings.Replace(file, key, "[REDACTED]", 1) {
		t.Fatalf("the key alone: code %q, out %s", code, out)
	}
	for name, res := range map[string]json.RawMessage{
		"body in _meta": args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": file}},
			"_meta": map[string]string{"k": strings.Join(body, "\n")}}),
		"a line in structuredContent": args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": file}},
			"structuredContent": map[string]string{"line": body[1]}}),
		"a line in another unit": args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": file}, {"type": "text", "text": "x=" + body[0]}}}),
		"CRLF body in _meta": args(t, map[string]any{"content": []map[string]string{{"type": "text", "text": file}},
			"_meta": map[string]string{"k": strings.Join(body, "\r\n")}}),
	} {
		if code, out := run(res); code != guard.CodeGuard || strings.Contains(string(out), body[0][:40]) || strings.Contains(string(out), body[1][:40]) {
			t.Errorf("%s: code %q, out %s", name, code, out)
		}
	}
}
