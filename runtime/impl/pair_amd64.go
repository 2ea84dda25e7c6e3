//go:build !purego

package impl

// pairNext is the first offset i of s such that s[i] is c0 and s[i+b]
// is cb, or -1 (always for b <= 0): sixteen offsets at a time with SSE2,
// which every amd64 processor has (pair_amd64.s). It reads no byte
// outside s.
//
//go:noescape
func pairNext(s string, b int, c0, cb byte) int
