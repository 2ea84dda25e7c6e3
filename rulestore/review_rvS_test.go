package rulestore_test

import (
	"os"
	"strings"
	"testing"

	"github.com/oarc/oarc/rulestore"
)

// TestFileShrunkOrReplaced: a store reads on from where it stopped. When
// the file was cut shorter than that (truncated) or another file was put
// in its place (an editor's save, a rename), the records it had not read
// yet were never read: another writer's promotion of a rule, here, left
// the rule in monitor for this store, silently, and its own records went
// to an offset it would read from the middle of a line, or to a file no
// one reads. Reload and every append now fail with an error instead.
func TestFileShrunkOrReplaced(t *testing.T) {
	for _, how := range []string{"truncated", "replaced"} {
		t.Run(how, func(t *testing.T) {
			set := baseSet(t)
			a, path := openTemp(t, set, rulestore.Options{})
			for _, id := range []string{"S_ONE", "S_TWO"} {
				if _, err := a.Add(rulestore.Draft{Rule: doc(id, `tool == "`+strings.ToLower(id)+`"`)}); err != nil {
					t.Fatal(err)
				}
			}
			switch how {
			case "truncated":
				if err := os.Truncate(path, 0); err != nil {
					t.Fatal(err)
				}
			case "replaced":
				if err := os.WriteFile(path+".new", nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(path+".new", path); err != nil {
					t.Fatal(err)
				}
			}
			b, err := rulestore.Open(path, set, rulestore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if _, err := b.Add(rulestore.Draft{Rule: doc("S_NEW", `tool == "n"`)}); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Promote("S_NEW"); err != nil {
				t.Fatal(err)
			}
			if err := a.Reload(); err == nil {
				t.Errorf("Reload after the file was %s: no error; statuses %s", how, statuses(a))
			}
			if _, err := a.Add(rulestore.Draft{Rule: doc("S_THREE", `tool == "three"`)}); err == nil {
				t.Errorf("Add after the file was %s: no error", how)
			}
		})
	}
}
