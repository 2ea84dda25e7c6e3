package stats

import (
	"strings"
	"testing"

	oarcrt "github.com/oarc/oarc/runtime"
)

// TestRevspecFieldGivenTwice: a decision record whose field is given
// twice reads two ways (RFC 8259 leaves which one a reader takes open):
// "errors":[{...}],"errors":[] would hide an error of a candidate from
// oarc stats, whose "ready to enforce" a person weighs, and from the rule
// store's trials read the same way (spec 10, 12), while another reader of
// the log sees it. Such a line is not a record, as a store line of the
// kind is not one (docs/store.md).
func TestRevspecFieldGivenTwice(t *testing.T) {
	const head = `{"time":"2026-01-01T00:00:00Z","pack":"p","digest":"sha256:aa","session":"s","anchor":"tool.pre_invoke","tool":"x","decision":"allow","code":"","codes":[],"monitored":["M"],"failed_closed":[]`
	for _, tc := range []struct{ line, want string }{
		{head + `,"errors":[{"rule":"M","kind":"k","message":"m"}],"errors":[]}`, `field "errors" given twice`},
		{head + `,"errors":[],"monitored":[]}`, `field "monitored" given twice`},
		{head + `,"errors":[],"decision":"block"}`, `field "decision" given twice`},
		{head + `,"errors":[{"rule":"M","kind":"k","message":"m","rule":"N"}]}`, `field "errors": element 0 gives "rule" twice`},
	} {
		var rec oarcrt.Record
		err := ParseRecord([]byte(tc.line), &rec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.line, err, tc.want)
		}
	}
	// Unknown fields are ignored, given twice too (a newer writer's).
	var rec oarcrt.Record
	if err := ParseRecord([]byte(head+`,"errors":[],"x":1,"x":2}`), &rec); err != nil {
		t.Errorf("an unknown field twice: %v", err)
	}
}

// TestRevspecFieldInAnotherCase: a key that differs from a field's name
// only in case (Codes, ſession) is read by encoding/json as that field
// and ignored by oarc stats, which matches keys exactly: the line reads
// two ways, and is not a record (as in the rule store).
func TestRevspecFieldInAnotherCase(t *testing.T) {
	const line = `{"time":"2026-01-01T00:00:00Z","pack":"p","digest":"sha256:aa","session":"s","anchor":"tool.pre_invoke","tool":"x","decision":"allow","code":"","codes":[],"monitored":["M"],"failed_closed":[],"errors":[]`
	for _, tc := range []struct{ line, want string }{
		{line + `,"Errors":[{"rule":"M","kind":"k","message":"m"}]}`, `key "Errors" differs from the field "errors" only in case`},
		{line + `,"ſession":"t"}`, `key "ſession" differs from the field "session" only in case`},
		{strings.Replace(line, `"errors":[]`, `"errors":[{"rule":"M","kind":"k","message":"m","RULE":"N"}]`, 1) + `}`, `field "errors": element 0: key "RULE" differs from "rule" only in case`},
	} {
		var rec oarcrt.Record
		err := ParseRecord([]byte(tc.line), &rec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.line, err, tc.want)
		}
	}
}
