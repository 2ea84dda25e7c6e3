// This file owns the envelope of every -json output (docs/json.md): JSON
// Lines, each record an object with "type" and "version" first, the last
// record of type "summary".

package cli

import (
	"bytes"
	"encoding/json"
	"io"
)

// JSONVersion is the version of the -json outputs of check, vet and test.
// It changes when a record loses a field or a field changes meaning;
// fields may be added without a change.
const JSONVersion = 1

// jsonOut writes the records of one -json output.
type jsonOut struct{ w io.Writer }

func newJSONOut(w io.Writer) *jsonOut { return &jsonOut{w: w} }

// record writes v (a struct or map that marshals to an object) as one
// line, with "type" and "version" first.
func (j *jsonOut) record(typ string, v any) {
	body, err := json.Marshal(v)
	if err != nil || len(body) < 2 || body[0] != '{' {
		// The records are oarc's own structs of strings and numbers.
		panic("cli: a -json record does not marshal to an object: " + string(body))
	}
	head, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Version int    `json:"version"`
	}{typ, JSONVersion})
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	if len(body) > 2 {
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	b.WriteByte('\n')
	j.w.Write(b.Bytes())
}
