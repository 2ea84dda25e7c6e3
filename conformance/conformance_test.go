package conformance

import (
	"strings"
	"testing"

	"github.com/oarc/oarc/internal/harness"
)

// minFixtures guards against the corpus silently shrinking (for example a
// directory no longer being found).
const minFixtures = 250

func TestCorpus(t *testing.T) {
	results := harness.Run([]string{"."}, harness.Options{Engines: harness.Both})
	if len(results) < minFixtures {
		t.Errorf("ran %d fixtures, want at least %d", len(results), minFixtures)
	}
	bySection := map[string]int{}
	for _, r := range results {
		bySection[strings.SplitN(r.File, "/", 2)[0]]++
		if r.Status != harness.Pass {
			t.Errorf("%s %s: %s\n%s", r.Status, r.File, r.Name, strings.Join(r.Messages, "\n"))
		}
	}
	t.Logf("fixtures by section: %v", bySection)
}
