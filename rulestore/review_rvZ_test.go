package rulestore_test

import (
	"os"
	"testing"

	"github.com/oarc/oarc/rulestore"
)

// TestReviewRvZReplacedBeforeAnyRead: a store that has read nothing yet
// (a new, empty file) notices all the same that another file was put at
// its path: its Reload and its appends fail, instead of reading an
// unlinked file for ever and appending where no one reads (docs/store.md,
// "A file changed under the store").
func TestReviewRvZReplacedBeforeAnyRead(t *testing.T) {
	set := baseSet(t)
	a, path := openTemp(t, set, rulestore.Options{})
	// A person writes a promotion into a new file and moves it into place.
	if err := os.WriteFile(path+".new", []byte(record("Z_NEW", "active", `tool == "n"`, "")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if err := a.Reload(); err == nil {
		t.Errorf("Reload after the file was replaced: no error; statuses %q", statuses(a))
	}
	if _, err := a.Add(rulestore.Draft{Rule: doc("Z_OTHER", `tool == "o"`)}); err == nil {
		t.Errorf("Add after the file was replaced: no error")
	}
}
