//go:build !linux

package impl

import "testing"

// pageEnd is memory filled with 'q' (on Linux, the next page cannot be
// read).
func pageEnd(t *testing.T) []byte {
	t.Helper()
	page := make([]byte, 4096)
	for i := range page {
		page[i] = 'q'
	}
	return page
}
