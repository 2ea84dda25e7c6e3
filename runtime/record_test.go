package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRecordJSON pins the JSON Lines format of spec 10: the field names in
// order, time in RFC 3339 UTC, session left out when there is none, lists
// never null.
func TestRecordJSON(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	at := time.Date(2026, 12, 1, 12, 8, 32, 500_000_000, paris)
	var b bytes.Buffer
	rec := NewJSONLRecorder(&b)
	rec.Record(&Record{
		Time: at, Pack: "starter", Digest: "sha256:ab", Session: "s1", Anchor: "tool.pre_invoke", Tool: "bash",
		Decision: "block", Code: "A", Codes: []string{"A", "B"}, Monitored: []string{"M"}, FailedClosed: []string{"B"},
		Errors: []RecordError{{Rule: "B", Kind: "provider", Message: "provider path_outside_scope: <no & escaping>"}},
	})
	rec.Record(&Record{Time: at.UTC(), Pack: "starter", Digest: "sha256:ab", Anchor: "content.tool_result", Decision: "allow"})
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2026-12-01T11:08:32.5Z","pack":"starter","digest":"sha256:ab","session":"s1","anchor":"tool.pre_invoke","tool":"bash","decision":"block","code":"A","codes":["A","B"],"monitored":["M"],"failed_closed":["B"],"errors":[{"rule":"B","kind":"provider","message":"provider path_outside_scope: <no & escaping>"}]}
{"time":"2026-12-01T11:08:32.5Z","pack":"starter","digest":"sha256:ab","anchor":"content.tool_result","tool":"","decision":"allow","code":"","codes":[],"monitored":[],"failed_closed":[],"errors":[]}
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	// Each line is one object whose time parses as RFC 3339 in UTC.
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		ts, err := time.Parse(time.RFC3339, m["time"].(string))
		if err != nil || ts.Location() != time.UTC || !ts.Equal(at) {
			t.Errorf("time %v: %v, %v", m["time"], ts, err)
		}
		for _, f := range []string{"codes", "monitored", "failed_closed", "errors"} {
			if _, ok := m[f].([]any); !ok {
				t.Errorf("%s is %#v, not a list", f, m[f])
			}
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

// TestJSONLRecorderErr keeps the first write error and stops writing.
func TestJSONLRecorderErr(t *testing.T) {
	w := &failWriter{}
	rec := NewJSONLRecorder(w)
	rec.Record(&Record{})
	rec.Record(&Record{})
	if err := rec.Err(); err == nil || err.Error() != "disk full" || w.n != 1 {
		t.Errorf("err %v after %d writes", err, w.n)
	}
}

// TestJSONLRecorderConcurrent writes from several goroutines: every line
// stays whole.
func TestJSONLRecorderConcurrent(t *testing.T) {
	var b bytes.Buffer
	rec := NewJSONLRecorder(&b)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				rec.Record(&Record{Pack: "p", Codes: []string{"A"}})
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Pack != "p" {
			t.Fatalf("line %q: %v", l, err)
		}
	}
}
