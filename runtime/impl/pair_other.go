//go:build !amd64 || purego

package impl

// pairNext is the first offset i of s such that s[i] is c0 and s[i+b]
// is cb, or -1 (always for b <= 0).
func pairNext(s string, b int, c0, cb byte) int { return pairNextGeneric(s, b, c0, cb) }
