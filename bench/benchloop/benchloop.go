// Package benchloop is the loop of oarc's benchmarks: b.Loop that also
// reports the CPU time of the benchmark's thread per op. It is not
// internal so that benchmarks generated into temporary modules
// (bench/scaling.sh) can use it.
package benchloop

import (
	"runtime"
	"testing"
)

// Loop is the benchmark loop: b.Loop over f, reporting allocations and,
// besides the wall-clock sec/op, the CPU time the benchmark's thread spent
// per op (cpu-ns/op, on Linux). On a machine shared with other work the
// wall clock also counts the time the thread waited for a CPU; the thread's
// CPU time does not (nor the work of other threads, such as the garbage
// collector's background marking: compare allocating engines by sec/op).
func Loop(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	t0, ok := threadCPUTime()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if t1, ok1 := threadCPUTime(); ok && ok1 && n > 0 {
		b.ReportMetric(float64(t1-t0)/float64(n), "cpu-ns/op")
	}
}
