//go:build !linux

package benchloop

// threadCPUTime is not available here: the cpu-ns/op metric is left out.
func threadCPUTime() (int64, bool) { return 0, false }
