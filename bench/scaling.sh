#!/bin/sh
# bench/scaling.sh [COUNT]: BenchmarkScaling for N = 10, 100, 1000 (the
# committed packages in bench/synth) and N = 10000 (generated into a
# temporary module: too big to commit), COUNT runs each (default 10), as one
# benchstat-ready stream on stdout.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/tmpmod.sh"
count=${1:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go run ./bench/synth/internal/gensynth -n 10000 -out "$tmp/n10000"
tmpmod "$tmp"
cat >"$tmp/n10000/scaling_test.go" <<'GO'
package n10000

import (
	"context"
	"testing"

	"github.com/oarc/oarc/bench/benchloop"
	"github.com/oarc/oarc/bench/synth"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

func BenchmarkScaling(b *testing.B) {
	b.Run("n=10000", func(b *testing.B) {
		ev, err := New(lycaon.Env{})
		if err != nil {
			b.Fatal(err)
		}
		occ, ctx, s := synth.Occurrence(), context.Background(), runtime.NewSession("bench")
		var d runtime.Decision
		ev.Evaluate(ctx, occ, s, &d)
		if d.Code != "R00009" || len(d.Codes) != 1 {
			b.Fatalf("unexpected decision %v %q %q", d.Effect, d.Code, d.Codes)
		}
		benchloop.Loop(b, func() { ev.Evaluate(ctx, occ, s, &d) })
	})
}
GO
go test ./bench/synth -run '^$' -bench Scaling -count "$count"
(cd "$tmp" && go test ./n10000 -run '^$' -bench Scaling -count "$count" | sed 's|^pkg: .*|pkg: github.com/oarc/oarc/bench/synth|')
