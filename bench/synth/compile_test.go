package synth_test

import (
	"fmt"
	"testing"

	"github.com/oarc/oarc/bench/synth"
	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
)

// BenchmarkCompile is `oarc gen` without the process: load (YAML, schema,
// CEL check, lowering), build the IR, generate and gofmt the Go source, on
// packs of 1,000 and 10,000 rules. Profile it with
//
//	go test ./bench/synth -run '^$' -bench 'Compile/n=10000' -benchtime 1x -cpuprofile /tmp/gen.prof
func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if err := synth.WritePack(dir, n); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var size int
			for b.Loop() {
				p, diags := compiler.LoadPack(dir, compiler.Options{})
				if diags.HasErrors() {
					b.Fatal(diags.Text())
				}
				src, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "gen"})
				if err != nil {
					b.Fatal(err)
				}
				size = len(src)
			}
			b.ReportMetric(float64(size), "src-bytes")
		})
	}
}
