package standardpack

import (
	"context"
	"github.com/oarc/oarc/testkit/racecheck"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/runtime"
)

// loadInputs is LoadInputs on the project's copy of the standard pack.
func loadInputs(t testing.TB) ([]Input, []*runtime.Occurrence, *runtime.Env) {
	t.Helper()
	ins, occs, env, err := LoadInputs(filepath.Join("..", "standard-pack"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 3 {
		t.Fatalf("%d standard inputs, want 3", len(ins))
	}
	return ins, occs, env
}

func TestDecisions(t *testing.T) {
	ins, occs, env := loadInputs(t)
	for i, in := range ins {
		var d runtime.Decision
		Evaluate(context.Background(), env, occs[i], NewSession(), &d)
		got := []any{d.Effect.String(), d.Code, append([]string{}, d.Codes...), len(d.Errors)}
		want := []any{in.Expected.Decision, in.Expected.Code, append([]string{}, in.Expected.Codes...), in.Expected.Errors}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", in.Name, diff)
		}
	}
}

// TestZeroAllocs is the promise of the runtime: evaluating the standard
// pack allocates nothing once the decision's buffers have grown.
func TestZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	ins, occs, env := loadInputs(t)
	s := NewSession()
	for i, in := range ins {
		var d runtime.Decision
		ctx := context.Background()
		Evaluate(ctx, env, occs[i], s, &d)
		if n := testing.AllocsPerRun(200, func() { Evaluate(ctx, env, occs[i], s, &d) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation, want 0", in.Name, n)
		}
	}
}

// TestCopyMatchesShared keeps the project's copy of the standard pack equal
// to the shared one.
func TestCopyMatchesShared(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "bench", "standard-pack")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no shared checkout at %s", shared)
	}
	filepath.WalkDir(shared, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join("..", "standard-pack", rel))
		if err != nil || string(got) != string(want) {
			t.Errorf("bench/standard-pack/%s differs from the shared copy", rel)
		}
		return nil
	})
}
