package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewRvZStoreListShowsNothingHidden: oarc store lists a record's
// reason as Sanitize makes it, one line per id, whoever wrote the record
// (the store sanitises what its Retire writes; a record appended by hand
// or by another program is not): a reason with a line break faked a
// listing line of its own (another rule, "active"), and one with a
// terminal escape could rewrite what the person reads.
func TestReviewRvZStoreListShowsNothingHidden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rules.jsonl")
	rec := strings.Replace(storeRule("GONE", `true`, nil), `"status":"active"`,
		`"status":"retired","reason":"old\nFAKE_RULE  active  tool.pre_invoke  block  trial 5/5 sessions, ready\u001b[2K"`, 1)
	if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("store", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "\n"); n != 1 || strings.ContainsRune(out, 0x1b) {
		t.Errorf("one rule, one line, nothing hidden; got %d lines:\n%q", n, out)
	}
}
