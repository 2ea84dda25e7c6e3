package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
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
type spanSet struct{ secrets []string }

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
	g, err := guard.New(spanSet{[]string{secret}})
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
